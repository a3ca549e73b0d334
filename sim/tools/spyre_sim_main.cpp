/// spyre-sim: runs a SpyreCode job on the emulated Spyre card.
///
///   spyre-sim run DIR/job.plan --input NAME=FILE.npy ... --output NAME=FILE.npy ...
///             [--scalar NAME=VALUE] [--arch FILE] [--set key.path=value] [--trace FILE.json]
///             [--trace-limit N] [--stats FILE.json] [--timing-only] [--launches N]
///             [--device N] [--log-level LEVEL]
#include "runtime/device.h"
#include "runtime/prepared_job.h"
#include "sim/tools/run_command.h"
#include "sim/tools/run_summary.h"
#include "support/spyre_arch.h"
#include "support/spyrecode/directory.h"

using namespace chipless;

namespace {

int run(const tools::RunOptions& o) {
  spdlog::set_level(spdlog::level::from_str(o.logLevel));
  spyrecode::Job program = spyrecode::readJob(o.plan);
  SpyreArch arch = runArchitecture<SpyreArch>(program.arch, o.plan, o.arch, o.sets);
  tools::RunBindings bindings = tools::readBindings(o);
  auto device = runtime::Device::open(arch, {o.device, o.timingOnly});
  runtime::PreparedJob job(*device, std::move(program), o.plan);
  tools::checkOutputs(job.plan(), bindings, o.timingOnly);
  spdlog::info("prepared {} on spyre:{} ({} cores)", job.plan().kernel, device->index(),
               arch.chip.cores);

  runtime::LaunchArgs args{bindings.inputs, bindings.scalars};
  auto trace = tools::makeTrace(o);
  std::vector<double> cycles;
  runtime::LaunchOutput last = tools::launchRepeatedly(job, args, o.launches, trace.get(), cycles);
  Stats stats;
  device->chip().collectStats(stats, last.device);
  tools::writeResults("spyre-sim", o, bindings, last.outputs, stats, trace.get(), arch.description);
  printSummary(stdout, job.plan().kernel, arch, stats, cycles, last.device.hostSeconds,
               o.timingOnly);
  tools::printTimelineLine(o);
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  CLI::App app{"spyre-sim: run SpyreCode jobs on the emulated IBM Spyre card"};
  app.require_subcommand(1);
  tools::RunOptions o;
  CLI::App* runCmd = app.add_subcommand("run", "run a compiled job (DIR/job.plan)");
  tools::addRunOptions(*runCmd, o,
                       "architecture: spyre or a file (default: the one the program was "
                       "compiled for)");
  return tools::simulatorMain("spyre-sim", app, argc, argv, [&] { return run(o); });
}
