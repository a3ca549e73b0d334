#pragma once
/// What `spyre-sim run` and `tpu-sim run` share: their common options, reading and checking
/// the bindings before anything is simulated, launching a prepared job N times, writing the
/// results only after every launch succeeded, and the tool's error reporting. Each tool adds
/// its own device, job and summary.
#include "support/arch_schema.h"
#include "support/error.h"
#include "support/npy.h"
#include "support/stats.h"
#include "support/trace.h"

#include <CLI/CLI.hpp>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <spdlog/spdlog.h>
#include <string>
#include <vector>

namespace chipless::tools {

/// The options of `run` common to both simulators.
struct RunOptions {
  std::string plan;
  std::vector<std::string> inputs, outputs, scalars, sets;
  std::string arch;
  std::string trace, stats;
  size_t traceLimit = 2'000'000;
  bool timingOnly = false;
  int launches = 1;
  int device = -1;
  std::string logLevel = "warn";
};

/// Adds the common options to the `run` subcommand; `archHelp` describes --arch.
void addRunOptions(CLI::App& run, RunOptions& o, const std::string& archHelp);

/// The command line's bindings, read and checked before simulating so bad input fails fast.
struct RunBindings {
  std::map<std::string, NpyArray> inputs;
  std::map<std::string, int64_t> scalars;
  std::map<std::string, std::string> outputFiles; ///< output name -> .npy path
};

/// Parses --input (reading each .npy), --scalar and --output; a name given twice, a missing
/// '=' or a non-integer scalar is an error naming the option.
RunBindings readBindings(const RunOptions& o);

/// Fails unless every --output names an output or inout argument of the job's plan.
template <typename Plan>
void checkOutputs(const Plan& plan, const RunBindings& b, bool timingOnly) {
  for (const auto& [name, file] : b.outputFiles) {
    const auto* a = plan.findArg(name);
    if (!a || a->role == decltype(a->role)::Input)
      throw Error("--output " + name + ": not an output of " + plan.kernel);
  }
  if (timingOnly && !b.outputFiles.empty())
    spdlog::warn("--timing-only computes no data: outputs will not be written");
}

/// Launches `job` `launches` times with `args`, tracing only the last launch; returns the
/// last launch's output and appends each launch's cycles to `cycles`.
template <typename Job, typename Args>
auto launchRepeatedly(Job& job, Args& args, int launches, TraceWriter* trace,
                      std::vector<double>& cycles) {
  decltype(job.launch(args)) last;
  for (int i = 0; i < launches; ++i) {
    args.trace = i + 1 == launches ? trace : nullptr;
    last = job.launch(args);
    cycles.push_back(last.device.cycles);
    spdlog::info("launch {}: {} cycles, {:.3f} s", i + 1, last.device.cycles,
                 last.device.hostSeconds);
  }
  return last;
}

/// A trace writer when --trace was given.
std::unique_ptr<TraceWriter> makeTrace(const RunOptions& o);

/// Writes the results of a successful run, all or nothing (a file that cannot be written
/// leaves none of the others behind; missing folders are created): the outputs (unless
/// timing only), stats.json, the trace (saying on stderr when its cap was hit) and
/// arch.resolved.yaml next to them.
void writeResults(const char* tool, const RunOptions& o, const RunBindings& b,
                  const std::map<std::string, NpyArray>& outputs, const Stats& stats,
                  const TraceWriter* trace, const ArchDescription& arch);

/// Prints the summary's timeline line when a trace was written.
void printTimelineLine(const RunOptions& o);

/// main() of a simulator tool: parses `argc/argv` into `app` (whose `run` subcommand the tool
/// has set up), then calls `run`; any error is printed as "TOOL: error: ..." with status 1.
int simulatorMain(const char* tool, CLI::App& app, int argc, char** argv,
                  const std::function<int()>& run);

} // namespace chipless::tools
