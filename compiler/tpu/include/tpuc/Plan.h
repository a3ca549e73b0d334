#pragma once
/// Sizing decisions of the TPU compiler that need no MLIR: how many rows a unit of work takes,
/// where a kernel's buffers go in VMEM and whether the matmul's RHS stays resident or streams
/// through in panels (tpu-alloc-vmem), and how units are shared out over the TensorCores
/// (tpu-split-cores). Everything is sized from the architecture description.
#include "support/tpu_arch.h"
#include "tpuc/KernelSpec.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace chipless::tpuc {

/// Most vector registers per row group the emitter processes at once (the `n` of its vector
/// operations): a code-generation choice; buffers are rounded up to rows for that many
/// register rows (vpu.sublanes each), so the emitter never reads past them.
constexpr int kMaxRegisterBlock = 8;

/// Most rows of one unit the planner considers (a search bound, not a hardware limit: VMEM
/// decides what fits; beyond this the fixed costs per unit are already negligible).
constexpr int64_t kMaxUnitRows = 8192;

/// The largest register block (a power of two <= kMaxRegisterBlock) worth using for units of
/// `rows` rows: no larger than the rows need. Buffers hold `rows` rounded up to a multiple of
/// that many register rows.
int maxRegisterBlock(int64_t rows, int sublanes);

/// Chooses the unit size, the RHS panel scheme and the VMEM layout of `kernel` (its inputs,
/// outputs and matmul must be filled in) for `arch`, by an estimate of the kernel's cycles on
/// that chip; `cores` TensorCores share the units. Throws CompileError (at kernel.where) when
/// nothing fits in vmem.bytes.
MemoryPlan planMemory(const KernelSpec& kernel, const TpuArch& arch, int cores);

/// The estimated cycles of `kernel` with `plan` (used to choose the plan; also reported).
double estimateCycles(const KernelSpec& kernel, const MemoryPlan& plan, const TpuArch& arch,
                      int cores);

/// Contiguous, balanced [first, end) ranges of `units` for `cores` TensorCores.
std::vector<std::pair<int64_t, int64_t>> splitUnits(int64_t units, int cores);

/// Semaphores a kernel uses (inputs, outputs, panels, the barrier), to check against
/// scalar.semaphores.
int semaphoresNeeded(const KernelSpec& kernel);

/// Rows rounded up to a multiple of `m`.
inline int64_t roundUp(int64_t x, int64_t m) {
  return (x + m - 1) / m * m;
}
inline int64_t ceilDiv(int64_t x, int64_t m) {
  return (x + m - 1) / m;
}

} // namespace chipless::tpuc
