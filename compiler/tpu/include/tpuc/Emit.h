#pragma once
/// TPU assembly from kernel specifications (plain C++, no MLIR). The text is the language of
/// docs/tpu-program.md; tpuprog::assemble turns it into the program directory.
#include "support/tpu_arch.h"
#include "tpuc/KernelSpec.h"

#include <string>

namespace chipless::tpuc {

/// The whole program: `.input` / `.output` directives for the arguments (rows padded to the
/// vector lanes: tile=1x<vpu.lanes>), the `scratch` buffer, and one `.program cores=c` per
/// TensorCore that runs its share of every kernel in order, with a barrier between kernels
/// when there are several TensorCores. Throws CompileError naming the kernel's location when
/// a kernel cannot be emitted (too few scalar or vector registers or semaphores).
std::string emitProgram(const ProgramSpec& program, const TpuArch& arch);

} // namespace chipless::tpuc
