//===- EmitFile.cpp - a DataflowIR file to a SpyreCode job ----------------===//
//
// Part of chipless. See EmitFile.h.
//
//===----------------------------------------------------------------------===//

#include "dataflow/Emit/EmitFile.h"

#include "dataflow/DfirRegistration.h"
#include "dataflow/Emit/EmitSpyreCode.h"
#include "ktir/ParseGuard.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "support/error.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;

chipless::spyrecode::Job chipless::dataflow::emitSpyreCodeFile(const std::string& path,
                                                               const SpyreArch& arch,
                                                               const std::string& jobName) {
  DialectRegistry registry;
  registerDfirDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();

  std::string diagnostics;
  llvm::raw_string_ostream os(diagnostics);
  llvm::SourceMgr sources;
  SourceMgrDiagnosticHandler handler(sources, &context, os);
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer) throw Error(path + ": cannot read: " + buffer.getError().message());
  sources.AddNewSourceBuffer(std::move(*buffer), llvm::SMLoc());

  // Text that would crash MLIR 19's parser gets located errors instead (ParseGuard.h).
  OwningOpRef<ModuleOp> module = chipless::ktir::parseModuleGuarded(sources, &context);
  if (!module) throw Error(os.str());
  dfir::JobOp job;
  int jobs = 0;
  for (dfir::JobOp candidate : module->getOps<dfir::JobOp>()) {
    ++jobs;
    if (jobName.empty() || candidate.getSymName() == jobName) job = candidate;
  }
  if (!job)
    throw Error(path + ": " + (jobName.empty() ? "no dfir.job" : "no dfir.job @" + jobName));
  if (jobName.empty() && jobs > 1)
    throw Error(path + ": several dfir.job ops; name the one to emit");
  FailureOr<spyrecode::Job> emitted = emitSpyreCode(job, arch);
  if (failed(emitted)) throw Error(os.str());
  return std::move(*emitted);
}
