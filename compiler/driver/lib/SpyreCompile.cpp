//===- SpyreCompile.cpp - KTIR or a tensor graph to SpyreCode -------------===//
//
// Part of chipless. Parses the source, sends a tensor graph through the front end
// (compiler/frontend) and a KTIR kernel through the Dataflow Scheduler and the SpyreCode
// emitter, and writes the SpyreCode directory with every --dump-dir stage, all at once.
//
//===----------------------------------------------------------------------===//

#include "dataflow/DfirRegistration.h"
#include "dataflow/Emit/EmitSpyreCode.h"
#include "dataflow/Scheduler/Scheduler.h"
#include "driver/Compile.h"
#include "frontend/Frontend.h"
#include "ktir/KtirRegistration.h"
#include "ktir/ParseGuard.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/ToolUtilities.h"
#include "support/atomic_file.h"
#include "support/error.h"
#include "support/scalar_arg.h"
#include "support/spyrecode/directory.h"
#include "support/spyrecode/disassembler.h"

#include "llvm/Support/SourceMgr.h"

#include <chrono>
#include <filesystem>
#include <optional>
#include <regex>
#include <set>

namespace chipless::driver {

namespace {

/// The Dataflow Scheduler's options from the request's --entry, --grid, --const and --bound.
dataflow::SchedulerOptions schedulerOptions(const CompileRequest& request) {
  dataflow::SchedulerOptions options;
  options.entry = request.entry;
  options.grid = request.grid;
  options.timing = request.timing;
  for (const std::string& c : request.constants) {
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
      auto r = parseReal(text);
      if (!r) throw Error("--const " + c + ": the value is not a number");
      options.realConstants[name] = *r;
    }
  }
  for (const std::string& b : request.bounds) {
    size_t eq = b.find('=');
    if (eq == std::string::npos || eq == 0) throw Error("--bound " + b + ": expected NAME=BOUNDS");
    const std::string name = b.substr(0, eq);
    std::string why;
    auto parsed = dataflow::parseArgumentBounds(b.substr(eq + 1), why);
    if (!parsed) throw Error("--bound " + b + ": " + why);
    if (!options.bounds.emplace(name, *parsed).second)
      throw Error("--bound " + name + " given twice");
  }
  return options;
}

/// The front end's hand-chosen divisions from --division KERNEL=INDEX.
std::map<std::string, size_t> divisionChoices(const std::vector<std::string>& divisions) {
  std::map<std::string, size_t> chosen;
  for (const std::string& d : divisions) {
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
    chosen[d.substr(0, eq)] = static_cast<size_t>(index);
  }
  return chosen;
}

using Dumps = std::vector<std::pair<std::string, std::string>>;

/// Writes a tensor graph's job and dumps: the dump folder keeps only this graph's kernels.
void writeGraphOutputs(const CompileRequest& request, const spyrecode::Job& job,
                       const Dumps& dumps) {
  const std::string& dumpDir = request.dumpDir;
  OutputSet out;
  spyrecode::stageJob(out, request.outputDir, job);
  if (!dumpDir.empty()) out.makeDirectory(dumpDir);
  std::set<std::string> written;
  for (const auto& [name, text] : dumps) {
    const std::string path = dumpDir + "/" + name;
    out.makeDirectory(path.substr(0, path.rfind('/')));
    out.add(path, text);
    written.insert(name.substr(0, name.find('/')));
  }
  // The kernels (kN_NAME.mlir, kN_NAME/) and candidates of an earlier compile that this one
  // does not have go, so the dump is this graph's only.
  if (!dumpDir.empty() && std::filesystem::is_directory(dumpDir)) {
    static const std::regex ours(R"(k[0-9]+_[A-Za-z0-9_]+(\.mlir)?|candidates)");
    for (const auto& entry : std::filesystem::directory_iterator(dumpDir)) {
      const std::string name = entry.path().filename().string();
      if (std::regex_match(name, ours) && !written.count(name))
        out.removeAfterCommit(entry.path().string());
    }
  }
  out.commit();
}

/// After the KTIR compiler refused a kernel of a tensor graph: with --dump-dir, that
/// kernel's KTIR is kept (DIR/failed/NAME.mlir, and nothing else is written), so that
/// compiling it alone reproduces the error; without, a note says how to keep it.
void keepFailedKernel(const CompileRequest& request, const std::string& inputName,
                      const std::string& kernel, const std::string& ktir,
                      llvm::raw_ostream& diagnostics) {
  if (request.dumpDir.empty()) {
    diagnostics << inputName << ": note: rerun with --dump-dir DIR to keep kernel " << kernel
                << "'s KTIR (DIR/failed/" << kernel << ".mlir) and reproduce the error alone\n";
    return;
  }
  const std::string path = request.dumpDir + "/failed/" + kernel + ".mlir";
  OutputSet out;
  out.makeDirectory(request.dumpDir + "/failed");
  out.add(path, ktir);
  out.commit();
  diagnostics << inputName << ": note: kernel " << kernel << "'s KTIR is in " << path
              << ": `spyre-compile " << path << " -o OUT` reproduces the error\n";
}

} // namespace

bool compileSpyre(std::unique_ptr<llvm::MemoryBuffer> source, const CompileRequest& request,
                  llvm::raw_ostream& diagnostics) {
  const std::string inputName = source->getBufferIdentifier().str();
  SpyreArch arch = SpyreArch::load(SpyreArch::resolveFile(request.arch), request.sets);
  dataflow::SchedulerOptions options = schedulerOptions(request);
  // Every file of a compile (the program directory and the stage dumps) is written only when
  // the whole compile succeeded: the dumps are kept until then.
  Dumps dumps;
  if (!request.dumpDir.empty())
    options.dump = [&](const std::string& name, const std::string& text) {
      dumps.emplace_back(name, text);
    };

  mlir::DialectRegistry registry;
  ktir::registerKtirDialects(registry);
  dataflow::registerDfirDialects(registry);

  // One kernel (a chunk of the file with splitInputFile): parse, schedule, emit.
  auto compile = [&](std::unique_ptr<llvm::MemoryBuffer> chunk,
                     llvm::raw_ostream&) -> mlir::LogicalResult {
    mlir::MLIRContext context(registry);
    context.printOpOnDiagnostic(false);
    llvm::SourceMgr sources;
    sources.AddNewSourceBuffer(std::move(chunk), llvm::SMLoc());
    std::optional<mlir::SourceMgrDiagnosticVerifierHandler> verifier;
    std::optional<mlir::SourceMgrDiagnosticHandler> handler;
    if (request.verifyDiagnostics)
      verifier.emplace(sources, &context, diagnostics);
    else
      handler.emplace(sources, &context, diagnostics);
    auto result = [&]() -> mlir::LogicalResult {
      mlir::OwningOpRef<mlir::ModuleOp> module = ktir::parseModuleGuarded(sources, &context);
      if (!module) return mlir::failure();
      dumps.clear();
      if (frontend::isTensorGraph(*module)) {
        // A tensor graph: the front end divides it into KTIR kernels and links them.
        if (!request.constants.empty() || !request.bounds.empty() || !request.grid.empty() ||
            !request.entry.empty())
          throw Error(inputName + " is a tensor graph: --const, --bound, --grid and --entry "
                                  "apply to KTIR kernels only");
        frontend::FrontendOptions fo;
        fo.dump = options.dump;
        if (request.dumpCandidates && request.dumpDir.empty())
          throw Error("--dump-candidates writes into --dump-dir: give one");
        fo.dumpCandidates = request.dumpCandidates;
        fo.keepInScratchpad = request.keepInScratchpad;
        fo.divisions = divisionChoices(request.divisions);
        fo.timing = options.timing;
        std::optional<std::pair<std::string, std::string>> refused;
        fo.failedKernel = [&](const std::string& kernel, const std::string& ktir) {
          refused.emplace(kernel, ktir);
        };
        mlir::FailureOr<spyrecode::Job> job = frontend::compileGraph(*module, arch, fo);
        if (mlir::failed(job)) {
          if (refused)
            keepFailedKernel(request, inputName, refused->first, refused->second, diagnostics);
          return mlir::failure();
        }
        writeGraphOutputs(request, *job, dumps);
        return mlir::success();
      }
      if (!request.divisions.empty() || request.dumpCandidates || !request.keepInScratchpad)
        throw Error(inputName + " is a KTIR kernel: --division, --dump-candidates and "
                                "--keep-in-scratchpad apply to tensor graphs only");
      if (!request.dumpDir.empty()) {
        std::string text;
        llvm::raw_string_ostream os(text);
        module->print(os);
        dumps.emplace_back("00-ktir.mlir", text);
      }
      dataflow::SchedulerOptions kernelOptions = options;
      kernelOptions.sources = &sources; // names from this chunk's own text
      auto job = dataflow::scheduleKernel(*module, arch, kernelOptions);
      if (mlir::failed(job)) return mlir::failure();
      mlir::dfir::JobOp jobOp = *(*job)->getOps<mlir::dfir::JobOp>().begin();
      auto start = std::chrono::steady_clock::now();
      mlir::FailureOr<spyrecode::Job> emitted = dataflow::emitSpyreCode(jobOp, arch);
      if (mlir::failed(emitted)) return mlir::failure();
      if (request.timing)
        request.timing(
            "emit SpyreCode",
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      if (!request.dumpDir.empty())
        dumps.emplace_back("05-spyrecode.s", spyrecode::disassemble(*emitted));
      OutputSet out;
      spyrecode::stageJob(out, request.outputDir, *emitted);
      if (!request.dumpDir.empty()) out.makeDirectory(request.dumpDir);
      for (const auto& [name, text] : dumps) out.add(request.dumpDir + "/" + name, text);
      out.commit();
      return mlir::success();
    }();
    // With verifyDiagnostics, success means: exactly the expected diagnostics.
    if (request.verifyDiagnostics) return verifier->verify();
    return result;
  };
  mlir::LogicalResult ok =
      request.splitInputFile ? mlir::splitAndProcessBuffer(std::move(source), compile, llvm::outs())
                             : compile(std::move(source), diagnostics);
  return mlir::succeeded(ok);
}

} // namespace chipless::driver
