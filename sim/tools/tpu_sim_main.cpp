/// tpu-sim: runs a TPU program on the emulated TPU system.
///
///   tpu-sim run DIR/job.plan --input NAME=FILE.npy ... --output NAME=FILE.npy ...
///           [--scalar NAME=VALUE] [--arch FILE|GENERATION] [--set key.path=value]
///           [--trace FILE.json] [--trace-limit N] [--stats FILE.json] [--timing-only]
///           [--launches N] [--chips N] [--device N] [--log-level LEVEL]
#include "runtime/tpu/tpu_device.h"
#include "runtime/tpu/tpu_prepared_job.h"
#include "sim/tools/run_command.h"
#include "sim/tools/tpu_run_summary.h"
#include "support/tpu_arch.h"
#include "support/tpuprog/directory.h"

using namespace chipless;

namespace {

int run(const tools::RunOptions& o, int chips) {
  spdlog::set_level(spdlog::level::from_str(o.logLevel));
  tpuprog::Job program = tpuprog::readJob(o.plan);
  TpuArch arch = runArchitecture<TpuArch>(program.arch, o.plan, o.arch, o.sets);
  tools::RunBindings bindings = tools::readBindings(o);
  auto device = runtime::TpuDevice::open(arch, {o.device, o.timingOnly, chips});
  runtime::TpuPreparedJob job(*device, std::move(program), o.plan);
  tools::checkOutputs(job.plan(), bindings, o.timingOnly);
  spdlog::info("prepared {} on tpu:{} ({} chip(s) of tpu-{})", job.plan().kernel, device->index(),
               chips, arch.chip.generation);

  runtime::TpuLaunchArgs args{bindings.inputs, bindings.scalars};
  auto trace = tools::makeTrace(o);
  std::vector<double> cycles;
  runtime::TpuLaunchOutput last =
      tools::launchRepeatedly(job, args, o.launches, trace.get(), cycles);
  Stats stats;
  device->system().collectStats(stats, last.device);
  tools::writeResults("tpu-sim", o, bindings, last.outputs, stats, trace.get(), arch.description);
  printTpuSummary(stdout, job.plan().kernel, arch, chips, stats, cycles, last.device.hostSeconds,
                  o.timingOnly);
  tools::printTimelineLine(o);
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  CLI::App app{"tpu-sim: run TPU programs on the emulated Google TPU"};
  app.require_subcommand(1);
  tools::RunOptions o;
  int chips = 1;
  CLI::App* runCmd = app.add_subcommand("run", "run a TPU program (DIR/job.plan)");
  tools::addRunOptions(
      *runCmd, o,
      "architecture: v4, v5e, v5p, v6e or a file (default: the one the program was compiled for)");
  runCmd->add_option("--chips", chips, "chips joined by ICI (default 1)")
      ->check(CLI::PositiveNumber);
  return tools::simulatorMain("tpu-sim", app, argc, argv, [&] { return run(o, chips); });
}
