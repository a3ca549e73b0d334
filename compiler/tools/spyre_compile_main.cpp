//===- spyre_compile_main.cpp - spyre-compile: KTIR to SpyreCode ----------===//
//
// Part of chipless.
//
//   spyre-compile KERNEL.mlir [--entry FUNC] [--arch FILE] [--set k=v ...]
//                 [--const NAME=VALUE ...] [--bound NAME=[MIN..]MAX[/G] ...] [--grid N,...]
//                 -o DIR [--dump-dir DIR]
//
// A tensor graph (docs/graph-ir.md; told apart from KTIR by its tensor arguments) goes
// through the Spyre front end (compiler/frontend): one KTIR kernel per fused group of ops,
// each compiled as below, linked into one job (docs/frontend.md).
// Parses the KTIR kernel, runs the Dataflow Scheduler (dataflow/Scheduler/Scheduler.h)
// and the SpyreCode emitter, and writes the SpyreCode directory (job.plan + init.bin) to
// DIR for `spyre-sim run DIR/job.plan`, with the architecture it was compiled for
// (DIR/arch.yaml). --dump-dir writes every stage: the specialised KTIR, the arguments, the
// core schedules, the DataflowIR job and the final assembly. Nothing is written unless the
// whole compile succeeds.
// Errors name the file, line and column of the op and the reason; exit status 1.
//
//===----------------------------------------------------------------------===//

#include "driver/Compile.h"
#include "support/error.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

namespace cl = llvm::cl;

/// The tool's own options: --help lists only these.
static cl::OptionCategory category("spyre-compile options");

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("KERNEL.mlir"), cl::Required,
                                      cl::cat(category));
static cl::opt<std::string> outputDir("o", cl::desc("output SpyreCode directory"),
                                      cl::value_desc("DIR"), cl::Required, cl::cat(category));
static cl::opt<std::string> entry("entry", cl::desc("the kernel function (default: the only one)"),
                                  cl::value_desc("FUNC"), cl::cat(category));
static cl::opt<std::string> archFile("arch",
                                     cl::desc("architecture: spyre (the default, "
                                              "models/hw/spyre.yaml) or a file"),
                                     cl::value_desc("FILE"), cl::cat(category));
static cl::list<std::string> sets("set", cl::desc("override one architecture parameter"),
                                  cl::value_desc("key.path=value"), cl::cat(category));
static cl::list<std::string> constants("const",
                                       cl::desc("fix an integer or float argument at compile time"),
                                       cl::value_desc("NAME=VALUE"), cl::cat(category));
static cl::list<std::string>
    bounds("bound",
           cl::desc("leave an integer argument symbolic, with the values it may take at launch: "
                    "MAX, MIN..MAX, optionally /MULTIPLE (e.g. n=4194304/4096)"),
           cl::value_desc("NAME=BOUNDS"), cl::cat(category));
static cl::list<int64_t>
    grid("grid", cl::desc("override the kernel's grid (without one it runs on one tile)"),
         cl::value_desc("N[,M...]"), cl::CommaSeparated, cl::cat(category));
static cl::list<std::string>
    divisionChoices("division",
                    cl::desc("tensor graphs: use candidate INDEX of divisions.txt for kernel NAME "
                             "instead of the cost model's choice"),
                    cl::value_desc("NAME=INDEX"), cl::cat(category));
static cl::opt<bool> dumpCandidates(
    "dump-candidates",
    cl::desc("tensor graphs: also write every candidate division's KTIR to --dump-dir "
             "(candidates/KERNEL/INDEX.mlir)"),
    cl::cat(category));
static cl::opt<bool> keepInScratchpad(
    "keep-in-scratchpad",
    cl::desc("tensor graphs: keep a tensor one kernel writes and the next reads in the cores' "
             "scratchpads when both kernels' divisions allow it (default true; =false sends "
             "every intermediate through device memory)"),
    cl::init(true), cl::cat(category));
static cl::opt<bool> verifyDiagnostics(
    "verify-diagnostics",
    cl::desc("check that the errors are those the file's expected-error comments name"),
    cl::cat(category));
static cl::opt<bool> splitInputFile("split-input-file",
                                    cl::desc("compile each '// -----' chunk of the file alone"),
                                    cl::cat(category));
static cl::opt<bool> timing("timing", cl::desc("print the time every stage takes"),
                            cl::cat(category));
static cl::opt<std::string> dumpDir("dump-dir", cl::desc("write the IR after every stage here"),
                                    cl::value_desc("DIR"), cl::cat(category));

int main(int argc, char** argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(argc, argv,
                              "spyre-compile: compile a KTIR kernel into a SpyreCode directory\n");
  using namespace chipless;
  try {
    driver::CompileRequest request;
    request.arch = archFile;
    request.sets.assign(sets.begin(), sets.end());
    request.outputDir = outputDir;
    request.dumpDir = dumpDir;
    request.entry = entry;
    request.constants.assign(constants.begin(), constants.end());
    request.bounds.assign(bounds.begin(), bounds.end());
    request.grid.assign(grid.begin(), grid.end());
    request.divisions.assign(divisionChoices.begin(), divisionChoices.end());
    request.dumpCandidates = dumpCandidates;
    request.keepInScratchpad = keepInScratchpad;
    request.verifyDiagnostics = verifyDiagnostics;
    request.splitInputFile = splitInputFile;
    if (timing)
      request.timing = [](const std::string& stage, double seconds) {
        llvm::errs() << llvm::format("  %-24s %8.3f s\n", stage.c_str(), seconds);
      };
    auto buffer = llvm::MemoryBuffer::getFile(inputFile);
    if (!buffer) throw Error(inputFile + ": cannot read: " + buffer.getError().message());
    return driver::compileSpyre(std::move(*buffer), request, llvm::errs()) ? 0 : 1;
  } catch (const std::exception& e) {
    llvm::errs() << "spyre-compile: error: " << e.what() << "\n";
    return 1;
  }
}
