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

#include "dataflow/DfirRegistration.h"
#include "dataflow/Emit/EmitSpyreCode.h"
#include "dataflow/Scheduler/Scheduler.h"
#include "frontend/Frontend.h"
#include "ktir/KtirRegistration.h"
#include "ktir/ParseGuard.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/ToolUtilities.h"
#include "support/atomic_file.h"
#include "support/error.h"
#include "support/scalar_arg.h"
#include "support/spyrecode/directory.h"
#include "support/spyrecode/disassembler.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <filesystem>
#include <optional>
#include <regex>
#include <set>

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
    SpyreArch arch = SpyreArch::load(SpyreArch::resolveFile(archFile),
                                     std::vector<std::string>(sets.begin(), sets.end()));
    dataflow::SchedulerOptions options;
    options.entry = entry;
    options.grid.assign(grid.begin(), grid.end());
    if (timing)
      options.timing = [](const std::string& stage, double seconds) {
        llvm::errs() << llvm::format("  %-24s %8.3f s\n", stage.c_str(), seconds);
      };
    for (const std::string& c : constants) {
      size_t eq = c.find('=');
      if (eq == std::string::npos || eq == 0) throw Error("--const " + c + ": expected NAME=VALUE");
      const std::string name = c.substr(0, eq), text = c.substr(eq + 1);
      if (options.constants.count(name) || options.realConstants.count(name))
        throw Error("--const " + name + " given twice");
      try {
        size_t used = 0;
        int64_t v = std::stoll(text, &used, 0);
        if (used != text.size()) throw std::invalid_argument("trailing text");
        options.constants[name] = v;
      } catch (const std::exception&) {
        // Not an integer: a real number fixes a float argument (`--const eps=1e-5`).
        auto r = chipless::parseReal(text);
        if (!r) throw Error("--const " + c + ": the value is not a number");
        options.realConstants[name] = *r;
      }
    }
    for (const std::string& b : bounds) {
      size_t eq = b.find('=');
      if (eq == std::string::npos || eq == 0)
        throw Error("--bound " + b + ": expected NAME=BOUNDS");
      const std::string name = b.substr(0, eq);
      std::string why;
      auto parsed = chipless::dataflow::parseArgumentBounds(b.substr(eq + 1), why);
      if (!parsed) throw Error("--bound " + b + ": " + why);
      if (!options.bounds.emplace(name, *parsed).second)
        throw Error("--bound " + name + " given twice");
    }
    // Every file of a compile (the program directory and the stage dumps) is written only
    // when the whole compile succeeded: the dumps are kept until then.
    std::vector<std::pair<std::string, std::string>> dumps;
    if (!dumpDir.empty())
      options.dump = [&](const std::string& name, const std::string& text) {
        dumps.emplace_back(name, text);
      };

    mlir::DialectRegistry registry;
    ktir::registerKtirDialects(registry);
    dataflow::registerDfirDialects(registry);
    auto buffer = llvm::MemoryBuffer::getFile(inputFile);
    if (!buffer) throw Error(inputFile + ": cannot read: " + buffer.getError().message());

    // One kernel (a chunk of the file with --split-input-file): parse, schedule, emit.
    auto compile = [&](std::unique_ptr<llvm::MemoryBuffer> chunk,
                       llvm::raw_ostream&) -> mlir::LogicalResult {
      mlir::MLIRContext context(registry);
      context.printOpOnDiagnostic(false);
      llvm::SourceMgr sources;
      sources.AddNewSourceBuffer(std::move(chunk), llvm::SMLoc());
      std::optional<mlir::SourceMgrDiagnosticVerifierHandler> verifier;
      std::optional<mlir::SourceMgrDiagnosticHandler> handler;
      if (verifyDiagnostics)
        verifier.emplace(sources, &context);
      else
        handler.emplace(sources, &context, llvm::errs());
      auto result = [&]() -> mlir::LogicalResult {
        mlir::OwningOpRef<mlir::ModuleOp> module =
            chipless::ktir::parseModuleGuarded(sources, &context);
        if (!module) return mlir::failure();
        dumps.clear();
        if (frontend::isTensorGraph(*module)) {
          // A tensor graph: the front end divides it into KTIR kernels and links them.
          if (!constants.empty() || !bounds.empty() || !grid.empty() || !entry.empty())
            throw Error(inputFile + " is a tensor graph: --const, --bound, --grid and --entry "
                                    "apply to KTIR kernels only");
          frontend::FrontendOptions fo;
          fo.dump = options.dump;
          if (dumpCandidates && dumpDir.empty())
            throw Error("--dump-candidates writes into --dump-dir: give one");
          fo.dumpCandidates = dumpCandidates;
          for (const std::string& d : divisionChoices) {
            const size_t eq = d.find('=');
            size_t used = 0;
            long index = -1;
            try {
              index = eq == std::string::npos ? -1 : std::stol(d.substr(eq + 1), &used);
            } catch (const std::exception&) {
            }
            if (eq == std::string::npos || eq == 0 || index < 0 || used != d.size() - eq - 1)
              throw Error("--division " + d +
                          ": expected NAME=INDEX (a kernel and a candidate "
                          "number of divisions.txt)");
            fo.divisions[d.substr(0, eq)] = static_cast<size_t>(index);
          }
          fo.timing = options.timing;
          mlir::FailureOr<spyrecode::Job> job = frontend::compileGraph(*module, arch, fo);
          if (mlir::failed(job)) return mlir::failure();
          OutputSet out;
          spyrecode::stageJob(out, outputDir, *job);
          if (!dumpDir.empty()) out.makeDirectory(dumpDir);
          std::set<std::string> written;
          for (const auto& [name, text] : dumps) {
            const std::string path = std::string(dumpDir) + "/" + name;
            out.makeDirectory(path.substr(0, path.rfind('/')));
            out.add(path, text);
            written.insert(name.substr(0, name.find('/')));
          }
          // The kernels (kN_NAME.mlir, kN_NAME/) and candidates of an earlier compile that
          // this one does not have go, so the dump is this graph's only.
          if (!dumpDir.empty() && std::filesystem::is_directory(std::string(dumpDir))) {
            static const std::regex ours(R"(k[0-9]+_[A-Za-z0-9_]+(\.mlir)?|candidates)");
            for (const auto& entry : std::filesystem::directory_iterator(std::string(dumpDir))) {
              const std::string name = entry.path().filename().string();
              if (std::regex_match(name, ours) && !written.count(name))
                out.removeAfterCommit(entry.path().string());
            }
          }
          out.commit();
          return mlir::success();
        }
        if (!divisionChoices.empty() || dumpCandidates)
          throw Error(inputFile + " is a KTIR kernel: --division and --dump-candidates apply to "
                                  "tensor graphs only");
        if (!dumpDir.empty()) {
          std::string text;
          llvm::raw_string_ostream os(text);
          module->print(os);
          dumps.emplace_back("00-ktir.mlir", text);
        }
        auto job = dataflow::scheduleKernel(*module, arch, options);
        if (mlir::failed(job)) return mlir::failure();
        mlir::dfir::JobOp jobOp = *(*job)->getOps<mlir::dfir::JobOp>().begin();
        auto start = std::chrono::steady_clock::now();
        mlir::FailureOr<spyrecode::Job> emitted = dataflow::emitSpyreCode(jobOp, arch);
        if (mlir::failed(emitted)) return mlir::failure();
        if (timing)
          llvm::errs() << llvm::format(
              "  %-24s %8.3f s\n", static_cast<const char*>("emit SpyreCode"),
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        if (!dumpDir.empty())
          dumps.emplace_back("05-spyrecode.s", spyrecode::disassemble(*emitted));
        OutputSet out;
        spyrecode::stageJob(out, outputDir, *emitted);
        if (!dumpDir.empty()) out.makeDirectory(dumpDir);
        for (const auto& [name, text] : dumps) out.add(std::string(dumpDir) + "/" + name, text);
        out.commit();
        return mlir::success();
      }();
      // With -verify-diagnostics, success means: exactly the expected diagnostics.
      if (verifyDiagnostics) return verifier->verify();
      return result;
    };
    mlir::LogicalResult ok =
        splitInputFile ? mlir::splitAndProcessBuffer(std::move(*buffer), compile, llvm::outs())
                       : compile(std::move(*buffer), llvm::outs());
    return mlir::failed(ok) ? 1 : 0;
  } catch (const std::exception& e) {
    llvm::errs() << "spyre-compile: error: " << e.what() << "\n";
    return 1;
  }
}
