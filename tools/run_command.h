#pragma once
/// `spyre-sim run` and `tpu-sim run`, written once over the runtime's Device interface: read
/// and check the bindings before anything is simulated, open the device the program was
/// compiled for (the run's --arch/--set may change timing parameters), prepare the program,
/// launch it N times, write the results only after every launch succeeded (all files or
/// none), and print the chip's summary.
#include "support/arch_files.h"

namespace chipless::tools {

/// main() of a simulator tool for chips of `kind`: parses `argv` (`TOOL run DIR/job.plan
/// ...`), runs, and prints any error as "TOOL: error: ..." with exit status 1 (2 for a bad
/// command line).
int simulatorMain(ChipKind kind, int argc, char** argv);

} // namespace chipless::tools
