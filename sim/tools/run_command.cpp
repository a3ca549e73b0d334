#include "sim/tools/run_command.h"

#include "support/atomic_file.h"
#include "support/spyrecode/directory.h"

#include <cstdio>
#include <cstdlib>

namespace chipless::tools {

namespace {

std::pair<std::string, std::string> splitAssignment(const std::string& s, const char* option) {
  auto eq = s.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == s.size())
    throw Error(std::string(option) + " " + s + ": expected NAME=VALUE");
  return {s.substr(0, eq), s.substr(eq + 1)};
}

int64_t parseInteger(const std::string& s, const std::string& text) {
  size_t pos = 0;
  long long v = 0;
  try {
    v = std::stoll(text, &pos, 0);
  } catch (...) {
    pos = 0;
  }
  if (pos != text.size()) throw Error("--scalar " + s + ": '" + text + "' is not an integer");
  return v;
}

} // namespace

void addRunOptions(CLI::App& run, RunOptions& o, const std::string& archHelp) {
  run.add_option("plan", o.plan, "the job plan, DIR/job.plan")->required();
  run.add_option("--input", o.inputs, "NAME=FILE.npy: bind an input tensor");
  run.add_option("--output", o.outputs, "NAME=FILE.npy: write an output tensor");
  run.add_option("--scalar", o.scalars, "NAME=VALUE: bind a scalar argument");
  run.add_option("--arch", o.arch, archHelp);
  run.add_option("--set", o.sets, "key.path=value: override one architecture parameter");
  run.add_option("--trace", o.trace, "write a Chrome/Perfetto timeline (JSON)");
  run.add_option("--trace-limit", o.traceLimit, "most trace events kept (default 2000000)");
  run.add_option("--stats", o.stats, "write hierarchical statistics (JSON)");
  run.add_flag("--timing-only", o.timingOnly, "model timing only: no arithmetic, no data");
  run.add_option("--launches", o.launches, "launch the prepared job N times")
      ->check(CLI::PositiveNumber);
  run.add_option("--device", o.device, "device number (default: the first free one)");
  run.add_option("--log-level", o.logLevel, "trace, debug, info, warn, error, off");
}

RunBindings readBindings(const RunOptions& o) {
  RunBindings b;
  for (const auto& s : o.inputs) {
    auto [name, file] = splitAssignment(s, "--input");
    if (b.inputs.count(name)) throw Error("--input " + name + " given twice");
    b.inputs[name] = readNpy(file);
  }
  for (const auto& s : o.scalars) {
    auto [name, text] = splitAssignment(s, "--scalar");
    if (b.scalars.count(name)) throw Error("--scalar " + name + " given twice");
    b.scalars[name] = parseInteger(s, text);
  }
  for (const auto& s : o.outputs) {
    auto [name, file] = splitAssignment(s, "--output");
    if (b.outputFiles.count(name)) throw Error("--output " + name + " given twice");
    b.outputFiles[name] = file;
  }
  return b;
}

std::unique_ptr<TraceWriter> makeTrace(const RunOptions& o) {
  if (o.trace.empty()) return nullptr;
  return std::make_unique<TraceWriter>(o.traceLimit);
}

void writeResults(const char* tool, const RunOptions& o, const RunBindings& b,
                  const std::map<std::string, NpyArray>& outputs, const Stats& stats,
                  const TraceWriter* trace, const ArchDescription& arch) {
  // All or nothing: every file is staged first, and none appears unless all were written.
  OutputSet out;
  if (!o.timingOnly)
    for (const auto& [name, file] : b.outputFiles) {
      auto it = outputs.find(name);
      if (it == outputs.end())
        throw Error("--output " + name + ": the job produced no such output");
      out.add(file, encodeNpy(it->second, file));
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

void printTimelineLine(const RunOptions& o) {
  if (!o.trace.empty())
    std::printf(
        "  timeline              %s (open in https://ui.perfetto.dev or chrome://tracing)\n",
        o.trace.c_str());
}

int simulatorMain(const char* tool, CLI::App& app, int argc, char** argv,
                  const std::function<int()>& run) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
    return run();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: %s\n", tool, e.what());
    return 1;
  }
}

} // namespace chipless::tools
