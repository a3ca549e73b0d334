/// tpu-sim: runs a TPU program on the emulated TPU system.
///
///   tpu-sim run DIR/job.plan --input NAME=FILE.npy ... --output NAME=FILE.npy ...
///           [--scalar NAME=VALUE] [--arch FILE|GENERATION] [--set key.path=value]
///           [--trace FILE.json] [--trace-limit N] [--stats FILE.json] [--timing-only]
///           [--launches N] [--chips N] [--device N] [--log-level LEVEL]
#include "runtime/tpu/tpu_device.h"
#include "runtime/tpu/tpu_prepared_job.h"
#include "sim/tools/tpu_run_summary.h"
#include "support/error.h"
#include "support/npy.h"
#include "support/spyrecode/directory.h"
#include "support/stats.h"
#include "support/tpu_arch.h"
#include "support/trace.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <spdlog/spdlog.h>

using namespace chipless;

namespace {

struct RunOptions {
  std::string plan;
  std::vector<std::string> inputs, outputs, scalars, sets;
  std::string arch;
  std::string trace, stats;
  size_t traceLimit = 2'000'000;
  bool timingOnly = false;
  int launches = 1;
  int chips = 1;
  int device = -1;
  std::string logLevel = "warn";
};

std::pair<std::string, std::string> splitAssignment(const std::string& s, const char* option) {
  auto eq = s.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == s.size())
    throw Error(std::string(option) + " " + s + ": expected NAME=VALUE");
  return {s.substr(0, eq), s.substr(eq + 1)};
}

int run(const RunOptions& o) {
  spdlog::set_level(spdlog::level::from_str(o.logLevel));
  TpuArch arch = TpuArch::load(TpuArch::resolveFile(o.arch), o.sets);

  // Read and check everything before simulating: bad input fails fast.
  runtime::TpuLaunchArgs args;
  for (const auto& s : o.inputs) {
    auto [name, file] = splitAssignment(s, "--input");
    if (args.inputs.count(name)) throw Error("--input " + name + " given twice");
    args.inputs[name] = readNpy(file);
  }
  for (const auto& s : o.scalars) {
    auto [name, text] = splitAssignment(s, "--scalar");
    size_t pos = 0;
    long long v = 0;
    try {
      v = std::stoll(text, &pos, 0);
    } catch (...) {
      pos = 0;
    }
    if (pos != text.size()) throw Error("--scalar " + s + ": '" + text + "' is not an integer");
    args.scalars[name] = v;
  }
  std::map<std::string, std::string> outputFiles;
  for (const auto& s : o.outputs) {
    auto [name, file] = splitAssignment(s, "--output");
    if (outputFiles.count(name)) throw Error("--output " + name + " given twice");
    outputFiles[name] = file;
  }
  auto device = runtime::TpuDevice::open(arch, {o.device, o.timingOnly, o.chips});
  runtime::TpuPreparedJob job(*device, o.plan);
  for (const auto& [name, file] : outputFiles) {
    const auto* a = job.plan().findArg(name);
    if (!a || a->role == tpuprog::ArgRole::Input)
      throw Error("--output " + name + ": not an output of " + job.plan().kernel);
  }
  if (o.timingOnly && !outputFiles.empty())
    spdlog::warn("--timing-only computes no data: outputs will not be written");
  spdlog::info("prepared {} on tpu:{} ({} chip(s) of tpu-{})", job.plan().kernel, device->index(),
               o.chips, arch.chip.generation);

  std::unique_ptr<TraceWriter> trace;
  if (!o.trace.empty()) trace = std::make_unique<TraceWriter>(o.traceLimit);
  runtime::TpuLaunchOutput last;
  std::vector<double> cycles;
  for (int i = 0; i < o.launches; ++i) {
    args.trace = i + 1 == o.launches ? trace.get() : nullptr;
    last = job.launch(args);
    cycles.push_back(last.device.cycles);
    spdlog::info("launch {}: {} cycles, {:.3f} s", i + 1, last.device.cycles,
                 last.device.hostSeconds);
  }
  Stats stats;
  device->system().collectStats(stats, last.device);

  // Outputs only after everything succeeded.
  if (!o.timingOnly)
    for (const auto& [name, file] : outputFiles) {
      auto it = last.outputs.find(name);
      if (it == last.outputs.end())
        throw Error("--output " + name + ": the job produced no such output");
      writeNpy(file, it->second);
    }
  if (!o.stats.empty()) stats.writeJson(o.stats);
  if (trace) {
    trace->write(o.trace);
    if (trace->capped())
      std::fprintf(stderr,
                   "tpu-sim: trace capped at %zu events (%zu dropped); raise --trace-limit for "
                   "the whole timeline\n",
                   trace->maxEvents(), trace->dropped());
  }
  std::string resultsFile = !o.stats.empty()       ? o.stats
                            : !outputFiles.empty() ? outputFiles.begin()->second
                                                   : o.trace;
  if (!resultsFile.empty())
    arch.description.writeResolved(spyrecode::directoryOf(resultsFile) + "/arch.resolved.yaml");

  printTpuSummary(stdout, job.plan().kernel, arch, o.chips, stats, cycles, last.device.hostSeconds,
                  o.timingOnly);
  if (!o.trace.empty())
    std::printf(
        "  timeline              %s (open in https://ui.perfetto.dev or chrome://tracing)\n",
        o.trace.c_str());
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  CLI::App app{"tpu-sim: run TPU programs on the emulated Google TPU"};
  app.require_subcommand(1);
  RunOptions o;
  CLI::App* runCmd = app.add_subcommand("run", "run a TPU program (DIR/job.plan)");
  runCmd->add_option("plan", o.plan, "the job plan, DIR/job.plan")->required();
  runCmd->add_option("--input", o.inputs, "NAME=FILE.npy: bind an input tensor");
  runCmd->add_option("--output", o.outputs, "NAME=FILE.npy: write an output tensor");
  runCmd->add_option("--scalar", o.scalars, "NAME=VALUE: bind a scalar argument");
  runCmd->add_option("--arch", o.arch,
                     "architecture: a file, or v4, v5e, v5p, v6e (default models/hw/tpu-v5e.yaml)");
  runCmd->add_option("--set", o.sets, "key.path=value: override one architecture parameter");
  runCmd->add_option("--trace", o.trace, "write a Chrome/Perfetto timeline (JSON)");
  runCmd->add_option("--trace-limit", o.traceLimit, "most trace events kept (default 2000000)");
  runCmd->add_option("--stats", o.stats, "write hierarchical statistics (JSON)");
  runCmd->add_flag("--timing-only", o.timingOnly, "model timing only: no arithmetic, no data");
  runCmd->add_option("--launches", o.launches, "launch the prepared job N times")
      ->check(CLI::PositiveNumber);
  runCmd->add_option("--chips", o.chips, "chips joined by ICI (default 1)")
      ->check(CLI::PositiveNumber);
  runCmd->add_option("--device", o.device, "device number (default: the first free one)");
  runCmd->add_option("--log-level", o.logLevel, "trace, debug, info, warn, error, off");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
    return run(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tpu-sim: error: %s\n", e.what());
    return 1;
  }
}
