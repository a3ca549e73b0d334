/// tpu-sim: runs a TPU program on the emulated TPU system (docs/tpu-sim.md).
///
///   tpu-sim run DIR/job.plan --input NAME=FILE.npy ... --output NAME=FILE.npy ...
///           [--scalar NAME=VALUE] [--arch v4|v5e|v5p|v6e|FILE] [--set key.path=value]
///           [--trace FILE.json] [--trace-limit N] [--stats FILE.json] [--timing-only]
///           [--launches N] [--chips N] [--device N] [--log-level LEVEL]
#include "tools/run_command.h"

int main(int argc, char** argv) {
  return chipless::tools::simulatorMain(chipless::ChipKind::Tpu, argc, argv);
}
