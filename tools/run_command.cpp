#include "tools/run_command.h"

#include "runtime/device.h"
#include "support/atomic_file.h"
#include "support/error.h"
#include "support/scalar_arg.h"
#include "support/spyre_arch.h"
#include "support/spyrecode/directory.h"
#include "support/tpu_arch.h"
#include "tools/spyre_summary.h"
#include "tools/tpu_summary.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <spdlog/spdlog.h>
#include <string>
#include <vector>

namespace chipless::tools {

namespace {

/// Whether this build runs under AddressSanitizer (GCC says so with __SANITIZE_ADDRESS__,
/// clang with __has_feature).
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAddressSanitizer = true;
#else
constexpr bool kAddressSanitizer = false;
#endif
#else
constexpr bool kAddressSanitizer = false;
#endif

/// The options of `run`.
struct RunOptions {
  std::string plan;
  std::vector<std::string> inputs, outputs, scalars, sets;
  std::string arch;
  std::string trace, stats;
  size_t traceLimit = 2'000'000;
  bool timingOnly = false;
  int launches = 1;
  int device = -1;
  int chips = 1;
  /// A generous bound by default: 100 s of device time at 1 GHz, far past any bundled run,
  /// so a program that will not finish stops with an engine report instead of running on.
  double maxCycles = 1e11;
  double timeout = 0;
  std::string logLevel = "warn";
};

/// The command line's bindings, read and checked before simulating so bad input fails fast.
struct RunBindings {
  std::map<std::string, NpyArray> inputs;
  std::map<std::string, int64_t> scalars;
  std::map<std::string, double> reals;            ///< --scalar values that are not integers
  std::map<std::string, std::string> outputFiles; ///< output name -> .npy path
};

std::pair<std::string, std::string> splitAssignment(const std::string& s, const char* option) {
  auto eq = s.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == s.size())
    throw Error(std::string(option) + " " + s + ": expected NAME=VALUE");
  return {s.substr(0, eq), s.substr(eq + 1)};
}

/// The integer `text` spells (decimal or 0x..), or nullopt.
std::optional<int64_t> parseInteger(const std::string& text) {
  size_t pos = 0;
  long long v = 0;
  try {
    v = std::stoll(text, &pos, 0);
  } catch (...) {
    return std::nullopt;
  }
  if (pos != text.size()) return std::nullopt;
  return v;
}

void addRunOptions(CLI::App& run, RunOptions& o, ChipKind kind) {
  run.add_option("plan", o.plan, "the job plan, DIR/job.plan")->required();
  run.add_option("--input", o.inputs, "NAME=FILE.npy: bind an input tensor");
  run.add_option("--output", o.outputs, "NAME=FILE.npy: write an output tensor");
  run.add_option("--scalar", o.scalars, "NAME=VALUE: bind a scalar argument");
  run.add_option("--arch", o.arch,
                 kind == ChipKind::Spyre
                     ? "architecture: spyre or a file (default: the one the program was "
                       "compiled for; a run may change only timing parameters)"
                     : "architecture: v4, v5e, v5p, v6e or a file (default: the one the program "
                       "was compiled for; a run may change only timing parameters)");
  run.add_option("--set", o.sets, "key.path=value: override one timing parameter");
  run.add_option("--trace", o.trace, "write a Chrome/Perfetto timeline (JSON)");
  run.add_option("--trace-limit", o.traceLimit, "most trace events kept (default 2000000)");
  run.add_option("--stats", o.stats, "write hierarchical statistics (JSON)");
  run.add_flag("--timing-only", o.timingOnly, "model timing only: no arithmetic, no data");
  run.add_option("--launches", o.launches, "launch the prepared job N times")
      ->check(CLI::PositiveNumber);
  run.add_option("--device", o.device, "device number (default: the first free one)");
  if (kind == ChipKind::Tpu)
    run.add_option("--chips", o.chips, "chips joined by ICI (default 1)")
        ->check(CLI::PositiveNumber);
  run.add_option("--max-cycles", o.maxCycles,
                 "stop a launch that passes N simulated cycles, reporting where each engine "
                 "is (default 1e11; 0: no bound)")
      ->check(CLI::NonNegativeNumber);
  run.add_option("--timeout", o.timeout,
                 "stop a launch that passes SECONDS of host time, reporting where each engine "
                 "is (default: no bound)")
      ->check(CLI::NonNegativeNumber);
  run.add_option("--log-level", o.logLevel, "trace, debug, info, warn, error, off");
}

/// Parses --input (reading each .npy), --scalar and --output; a name given twice, a missing
/// '=' or a scalar that is not a number is an error naming the option.
RunBindings readBindings(const RunOptions& o) {
  RunBindings b;
  for (const auto& s : o.inputs) {
    auto [name, file] = splitAssignment(s, "--input");
    if (b.inputs.count(name)) throw Error("--input " + name + " given twice");
    b.inputs[name] = readNpy(file);
  }
  for (const auto& s : o.scalars) {
    auto [name, text] = splitAssignment(s, "--scalar");
    if (b.scalars.count(name) || b.reals.count(name))
      throw Error("--scalar " + name + " given twice");
    if (auto i = parseInteger(text))
      b.scalars[name] = *i;
    else if (auto r = parseReal(text))
      b.reals[name] = *r; // a real scalar's value (the runtime rejects it for an integer one)
    else
      throw Error("--scalar " + s + ": '" + text + "' is not a number");
  }
  for (const auto& s : o.outputs) {
    auto [name, file] = splitAssignment(s, "--output");
    if (b.outputFiles.count(name)) throw Error("--output " + name + " given twice");
    b.outputFiles[name] = file;
  }
  return b;
}

/// Fails unless every --output names an output or inout argument of the program.
void checkOutputs(const runtime::ProgramInfo& info, const RunBindings& b, bool timingOnly) {
  for (const auto& [name, file] : b.outputFiles) {
    const runtime::ArgumentInfo* a = info.find(name);
    if (!a || a->role == progformat::ArgRole::Input)
      throw Error("--output " + name + ": not an output of " + info.kernel);
  }
  if (timingOnly && !b.outputFiles.empty())
    spdlog::warn("--timing-only computes no data: outputs will not be written");
}

/// Writes the results of a successful run, all or nothing (a file that cannot be written
/// leaves none of the others behind; missing folders are created): the outputs (unless
/// timing only), stats.json, the trace (saying on stderr when its cap was hit) and
/// arch.resolved.yaml next to them.
void writeResults(const char* tool, const RunOptions& o, const RunBindings& b,
                  const std::map<std::string, NpyArray>& outputs, const Stats& stats,
                  const TraceWriter* trace, const ArchDescription& arch) {
  OutputSet out;
  if (!o.timingOnly)
    for (const auto& [name, file] : b.outputFiles) {
      auto it = outputs.find(name);
      if (it == outputs.end())
        throw Error("--output " + name + ": the job produced no such output");
      const std::string header = npyHeader(it->second, file); // checks the array first
      StagedFile& staged = out.stage(file);
      staged.append(header);
      staged.append(npyData(it->second)); // straight from the array: no copy of the tensor
    }
  if (!o.stats.empty()) out.add(o.stats, stats.jsonText());
  if (trace) trace->write(out.stage(o.trace));
  std::string resultsFile = !o.stats.empty()         ? o.stats
                            : !b.outputFiles.empty() ? b.outputFiles.begin()->second
                                                     : o.trace;
  if (!resultsFile.empty())
    out.add(spyrecode::directoryOf(resultsFile) + "/arch.resolved.yaml", arch.toYaml());
  out.commit();
  if (trace && trace->capped())
    std::fprintf(stderr,
                 "%s: trace capped at %zu events (%zu dropped); raise --trace-limit for the "
                 "whole timeline\n",
                 tool, trace->maxEvents(), trace->dropped());
}

/// The chip's summary of the last launch.
void printSummary(runtime::Device& device, const std::string& kernel, const Stats& stats,
                  const std::vector<double>& cycles, double hostSeconds) {
  if (device.kind() == ChipKind::Spyre)
    printSpyreSummary(stdout, kernel, SpyreArch::fromDescription(device.arch()), stats, cycles,
                      hostSeconds, device.timingOnly());
  else
    printTpuSummary(stdout, kernel, TpuArch::fromDescription(device.arch()), device.chips(), stats,
                    cycles, hostSeconds, device.timingOnly());
}

int run(const char* tool, ChipKind kind, const RunOptions& o) {
  spdlog::set_level(spdlog::level::from_str(o.logLevel));
  RunBindings bindings = readBindings(o);
  std::unique_ptr<runtime::Device> device = runtime::Device::openFor(
      kind, o.plan, o.arch, o.sets, {o.device, o.timingOnly, o.chips, o.maxCycles, o.timeout});
  std::unique_ptr<runtime::Program> program = device->prepare(o.plan);
  const runtime::ProgramInfo& info = program->info();
  checkOutputs(info, bindings, o.timingOnly);
  spdlog::info("prepared {} on {}", info.kernel, device->name());

  // The inputs move into the launch arguments: nothing reads them from the bindings again.
  runtime::LaunchArgs args{std::move(bindings.inputs), bindings.scalars, nullptr, bindings.reals};
  std::unique_ptr<TraceWriter> trace =
      o.trace.empty() ? nullptr : std::make_unique<TraceWriter>(o.traceLimit);
  std::vector<double> cycles;
  runtime::LaunchReport last;
  for (int i = 0; i < o.launches; ++i) {
    args.trace = i + 1 == o.launches ? trace.get() : nullptr; // the last launch's timeline
    last = device->launch(*program, args);
    cycles.push_back(last.cycles);
    spdlog::info("launch {}: {} cycles, {:.3f} s", i + 1, last.cycles, last.hostSeconds);
  }
  Stats stats = device->stats(last);
  writeResults(tool, o, bindings, last.outputs, stats, trace.get(), device->arch());
  printSummary(*device, info.kernel, stats, cycles, last.hostSeconds);
  if (!o.trace.empty())
    std::printf(
        "  timeline              %s (open in https://ui.perfetto.dev or chrome://tracing)\n",
        o.trace.c_str());
  // The process is about to exit: the device (hundreds of engine threads with their stacks,
  // FIFOs, scratchpads, device memory) is left for the operating system to reclaim at once.
  // Unmapping it piece by piece took longer than the simulation on the CI's virtual machines
  // (each munmap of touched memory flushes the TLB: ~0.3 ms there, ~500 of them).
  // Under AddressSanitizer (make test SAN=1) they are destroyed as usual, so that its leak
  // check at exit sees what a launch really leaves behind.
  if (!kAddressSanitizer) {
    (void)program.release();
    (void)device.release();
  }
  return 0;
}

} // namespace

int simulatorMain(ChipKind kind, int argc, char** argv) {
  const char* tool = kind == ChipKind::Spyre ? "spyre-sim" : "tpu-sim";
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  CLI::App app{kind == ChipKind::Spyre
                   ? "spyre-sim: run SpyreCode jobs on the emulated IBM Spyre card"
                   : "tpu-sim: run TPU programs on the emulated Google TPU"};
  app.require_subcommand(1);
  RunOptions o;
  CLI::App* runCmd =
      app.add_subcommand("run", kind == ChipKind::Spyre ? "run a compiled job (DIR/job.plan)"
                                                        : "run a TPU program (DIR/job.plan)");
  addRunOptions(*runCmd, o, kind);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
    return run(tool, kind, o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: %s\n", tool, e.what());
    return 1;
  }
}

} // namespace chipless::tools
