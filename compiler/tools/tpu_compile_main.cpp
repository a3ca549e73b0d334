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

#include "driver/Compile.h"
#include "support/error.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

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

int main(int argc, char** argv) {
  llvm::InitLLVM init(argc, argv);
  if (!cl::ParseCommandLineOptions(
          argc, argv, "tpu-compile: compile a tensor graph into a TPU program\n", &llvm::errs()))
    return 2;
  using namespace chipless;
  try {
    driver::CompileRequest request;
    request.arch = archFile;
    request.sets.assign(sets.begin(), sets.end());
    request.outputDir = outputDir;
    request.dumpDir = dumpDir;
    auto buffer = llvm::MemoryBuffer::getFile(inputFile);
    if (!buffer) throw Error(inputFile + ": cannot read: " + buffer.getError().message());
    return driver::compileTpu(std::move(*buffer), request, llvm::errs()) ? 0 : 1;
  } catch (const std::exception& e) {
    llvm::errs() << "tpu-compile: error: " << e.what() << "\n";
    return 1;
  }
}
