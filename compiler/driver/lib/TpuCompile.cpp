//===- TpuCompile.cpp - a tensor graph to a TPU program --------------------===//
//
// Part of chipless. Parses the graph, runs the TPU compiler's passes (tpuc/Passes.h), emits
// and assembles the TPU assembly, and writes the program directory with every --dump-dir
// stage, all at once.
//
//===----------------------------------------------------------------------===//

#include "driver/Compile.h"
#include "ktir/ParseGuard.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "support/atomic_file.h"
#include "support/error.h"
#include "support/tpu_arch.h"
#include "support/tpuprog/assembler.h"
#include "support/tpuprog/directory.h"
#include "tpuc/Passes.h"

#include "llvm/Support/SourceMgr.h"

#include <cstdio>

namespace chipless::driver {

namespace {

std::string print(mlir::ModuleOp m) {
  std::string text;
  llvm::raw_string_ostream os(text);
  m->print(os);
  return text;
}

/// Refuses the options that only a Spyre compile takes.
void checkTpuRequest(const CompileRequest& r) {
  std::string spyreOnly;
  auto note = [&](bool given, const char* option) {
    if (given) spyreOnly += (spyreOnly.empty() ? "" : ", ") + std::string(option);
  };
  note(!r.entry.empty(), "--entry");
  note(!r.constants.empty(), "--const");
  note(!r.bounds.empty(), "--bound");
  note(!r.grid.empty(), "--grid");
  note(!r.divisions.empty(), "--division");
  note(r.dumpCandidates, "--dump-candidates");
  note(!r.keepInScratchpad, "--keep-in-scratchpad=false");
  note(r.verifyDiagnostics, "--verify-diagnostics");
  note(r.splitInputFile, "--split-input-file");
  if (!spyreOnly.empty())
    throw Error(spyreOnly + ": Spyre compile options; a TPU compile takes a tensor graph, "
                            "--arch, --set and --dump-dir");
}

} // namespace

bool compileTpu(std::unique_ptr<llvm::MemoryBuffer> source, const CompileRequest& request,
                llvm::raw_ostream& diagnostics) {
  checkTpuRequest(request);
  const std::string inputName = source->getBufferIdentifier().str();
  TpuArch arch = TpuArch::load(TpuArch::resolveFile(request.arch), request.sets);
  // Every file of a compile (the program directory and the dumps) is written only when the
  // whole compile succeeded: the dumps are kept until then.
  OutputSet out;
  if (!request.dumpDir.empty()) out.makeDirectory(request.dumpDir);
  auto dump = [&](const std::string& name, const std::string& text) {
    if (!request.dumpDir.empty()) out.add(request.dumpDir + "/" + name, text);
  };

  mlir::DialectRegistry registry;
  tpuc::registerTpuDialects(registry);
  mlir::MLIRContext context(registry);
  // Errors name the op's file:line:col and quote its source line; the generic form of the op
  // (MLIR's default "see current operation" note) adds nothing for a graph's author.
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sources;
  mlir::SourceMgrDiagnosticHandler handler(sources, &context, diagnostics);
  sources.AddNewSourceBuffer(std::move(source), llvm::SMLoc());
  mlir::OwningOpRef<mlir::ModuleOp> module = ktir::parseModuleGuarded(sources, &context);
  if (!module) return false;
  dump("00-graph.mlir", print(*module));
  int step = 1;
  for (auto& [name, pass] : tpuc::tpuPipeline(TpuArch::resolveFile(request.arch), request.sets)) {
    mlir::PassManager pm(&context);
    pm.addPass(std::move(pass));
    if (mlir::failed(pm.run(*module))) return false;
    char prefix[16];
    std::snprintf(prefix, sizeof prefix, "%02d-", step++);
    dump(prefix + name + ".mlir", print(*module));
  }
  mlir::FailureOr<std::string> text = tpuc::emitTpuAssembly(*module);
  if (mlir::failed(text)) return false;
  dump("program.s", *text);
  tpuprog::Job job = tpuprog::assemble(*text, inputName + " (generated program.s)",
                                       tpuprog::AssembleOptions::forArch(arch));
  tpuprog::stageJob(out, request.outputDir, job);
  out.commit();
  return true;
}

} // namespace chipless::driver
