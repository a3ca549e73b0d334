#pragma once
/// What the MLIR harnesses share: parsing text as the tools do (ParseGuard first, then
/// MLIR's parser and the ops' verifiers), with the diagnostics counted instead of printed,
/// and the rule that a failure is never silent.
#include "dataflow/DfirRegistration.h"
#include "ktir/KtirRegistration.h"
#include "ktir/ParseGuard.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "support/spyre_arch.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstdlib>
#include <string>

namespace chipless::fuzz {

/// One input's MLIR context and source, with its error diagnostics counted (not printed:
/// set CHIPLESS_FUZZ_VERBOSE=1 to see them). The context has no thread pool: one is started
/// per context otherwise, and starting threads for every input (under ASan) costs more than
/// the passes it would parallelise over a fuzzed module's few functions.
class MlirInput {
public:
  MlirInput(const mlir::DialectRegistry& registry, const std::string& text, const char* harness)
      : context_(registry, mlir::MLIRContext::Threading::DISABLED), harness_(harness) {
    context_.printOpOnDiagnostic(false);
    sources_.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, "input.mlir"),
                                llvm::SMLoc());
    static const bool verbose = std::getenv("CHIPLESS_FUZZ_VERBOSE") != nullptr;
    handler_ = context_.getDiagEngine().registerHandler([this](mlir::Diagnostic& d) {
      if (d.getSeverity() == mlir::DiagnosticSeverity::Error) ++errors_;
      if (verbose) llvm::errs() << d.getLocation() << ": " << d << "\n";
      return mlir::success();
    });
  }
  ~MlirInput() { context_.getDiagEngine().eraseHandler(handler_); }

  /// The module, or null when the text does not parse and verify (errors reported).
  mlir::OwningOpRef<mlir::ModuleOp> parse() {
    return chipless::ktir::parseModuleGuarded(sources_, &context_);
  }
  mlir::MLIRContext& context() { return context_; }
  /// The input text as parsed (the compilers read SSA names from it).
  const llvm::SourceMgr& sources() const { return sources_; }

  /// A stage that failed must have said why: aborts (a finding) when `failed` and no error
  /// was reported since the input started.
  void requireErrorIf(bool failed, const char* stage) const {
    if (failed && errors_ == 0) {
      std::fprintf(stderr, "%s: %s failed without an error message\n", harness_, stage);
      std::abort();
    }
  }

private:
  mlir::MLIRContext context_;
  llvm::SourceMgr sources_;
  const char* harness_;
  mlir::DiagnosticEngine::HandlerID handler_ = 0;
  int errors_ = 0;
};

/// The dialects spyre-compile reads (KTIR's and DataflowIR's with the upstream ones they
/// use), registered once.
inline const mlir::DialectRegistry& spyreCompileDialects() {
  static const mlir::DialectRegistry registry = [] {
    mlir::DialectRegistry r;
    chipless::ktir::registerKtirDialects(r);
    chipless::dataflow::registerDfirDialects(r);
    return r;
  }();
  return registry;
}

/// The bundled Spyre card (models/hw/spyre.yaml), loaded once.
inline const SpyreArch& bundledSpyre() {
  static const SpyreArch arch = SpyreArch::load(SpyreArch::defaultFile());
  return arch;
}

/// `op` printed as MLIR text.
inline std::string printed(mlir::Operation* op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  op->print(os);
  return text;
}

} // namespace chipless::fuzz
