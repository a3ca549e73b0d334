/// spyre-sim: runs a SpyreCode job on the emulated Spyre card (docs/spyre-sim.md).
///
///   spyre-sim run DIR/job.plan --input NAME=FILE.npy ... --output NAME=FILE.npy ...
///             [--scalar NAME=VALUE] [--arch spyre|FILE] [--set key.path=value]
///             [--trace FILE.json] [--trace-limit N] [--stats FILE.json] [--timing-only]
///             [--launches N] [--device N] [--log-level LEVEL]
#include "tools/run_command.h"

int main(int argc, char** argv) {
  return chipless::tools::simulatorMain(chipless::ChipKind::Spyre, argc, argv);
}
