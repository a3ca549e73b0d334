//===- tpu_compile_main.cpp - tpu-compile: tensor graph to TPU program ----===//
//
// Part of chipless.
//
//   tpu-compile GRAPH.mlir [--arch FILE|v4|v5e|v5p|v6e] [--set key.path=value ...] -o DIR
//               [--dump-dir DIR]
//
// Reads a tensor graph (docs/graph-ir.md), runs the TPU compiler's passes (tpuc/Passes.h),
// emits TPU assembly and writes the TPU program directory (job.plan + program.bin,
// docs/tpu-program.md) to DIR for `tpu-sim run DIR/job.plan`, with the architecture it was
// compiled for (DIR/arch.yaml). --dump-dir writes the IR after every pass (NN-<pass>.mlir)
// and the assembly (program.s). Nothing is written unless the whole compile succeeds.
// Errors name the file, line and column of the op and the reason; exit status 1 (2 for bad
// command-line syntax).
//
//===----------------------------------------------------------------------===//

#include "ktir/ParseGuard.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "support/atomic_file.h"
#include "support/error.h"
#include "support/tpu_arch.h"
#include "support/tpuprog/assembler.h"
#include "support/tpuprog/directory.h"
#include "tpuc/Passes.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>

namespace cl = llvm::cl;

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("GRAPH.mlir"), cl::Required);
static cl::opt<std::string> outputDir("o", cl::desc("output TPU program directory"),
                                      cl::value_desc("DIR"), cl::Required);
static cl::opt<std::string> archFile("arch",
                                     cl::desc("architecture: a file, or v4, v5e, v5p, v6e "
                                              "(default models/hw/tpu-v5e.yaml)"),
                                     cl::value_desc("FILE"));
static cl::list<std::string> sets("set", cl::desc("override one architecture parameter"),
                                  cl::value_desc("key.path=value"));
static cl::opt<std::string> dumpDir("dump-dir",
                                    cl::desc("write the IR after every pass and the assembly here"),
                                    cl::value_desc("DIR"));

static std::string print(mlir::ModuleOp m) {
  std::string text;
  llvm::raw_string_ostream os(text);
  m->print(os);
  return text;
}

int main(int argc, char** argv) {
  llvm::InitLLVM init(argc, argv);
  if (!cl::ParseCommandLineOptions(
          argc, argv, "tpu-compile: compile a tensor graph into a TPU program\n", &llvm::errs()))
    return 2;
  using namespace chipless;
  try {
    std::vector<std::string> overrides(sets.begin(), sets.end());
    TpuArch arch = TpuArch::load(TpuArch::resolveFile(archFile), overrides);
    // Every file of a compile (the program directory and the dumps) is written only when the
    // whole compile succeeded: the dumps are kept until then.
    OutputSet out;
    if (!dumpDir.empty()) out.makeDirectory(dumpDir);
    auto dump = [&](const std::string& name, const std::string& text) {
      if (!dumpDir.empty()) out.add(std::string(dumpDir) + "/" + name, text);
    };

    mlir::DialectRegistry registry;
    tpuc::registerTpuDialects(registry);
    mlir::MLIRContext context(registry);
    // Errors name the op's file:line:col and quote its source line; the generic form of the
    // op (MLIR's default "see current operation" note) adds nothing for a graph's author.
    context.printOpOnDiagnostic(false);
    llvm::SourceMgr sources;
    mlir::SourceMgrDiagnosticHandler handler(sources, &context, llvm::errs());
    auto buffer = llvm::MemoryBuffer::getFile(inputFile);
    if (!buffer) throw Error(inputFile + ": cannot read: " + buffer.getError().message());
    sources.AddNewSourceBuffer(std::move(*buffer), llvm::SMLoc());
    mlir::OwningOpRef<mlir::ModuleOp> module =
        chipless::ktir::parseModuleGuarded(sources, &context);
    if (!module) return 1;
    dump("00-graph.mlir", print(*module));
    int step = 1;
    for (auto& [name, pass] : tpuc::tpuPipeline(TpuArch::resolveFile(archFile), overrides)) {
      mlir::PassManager pm(&context);
      pm.addPass(std::move(pass));
      if (mlir::failed(pm.run(*module))) return 1;
      char prefix[8];
      std::snprintf(prefix, sizeof prefix, "%02d-", step++);
      dump(prefix + name + ".mlir", print(*module));
    }
    mlir::FailureOr<std::string> text = tpuc::emitTpuAssembly(*module);
    if (mlir::failed(text)) return 1;
    dump("program.s", *text);
    tpuprog::Job job = tpuprog::assemble(*text, inputFile + " (generated program.s)",
                                         tpuprog::AssembleOptions::forArch(arch));
    tpuprog::stageJob(out, outputDir, job);
    out.commit();
    return 0;
  } catch (const std::exception& e) {
    llvm::errs() << "tpu-compile: error: " << e.what() << "\n";
    return 1;
  }
}
