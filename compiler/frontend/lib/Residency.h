//===- Residency.h - intermediates kept in the scratchpad between kernels -*- C++ -*-===//
//
// Part of chipless. A tensor one kernel writes and only the next kernel reads need not go
// through device memory when both kernels' divisions give tile t the same block of it: the
// first kernel leaves its block in core t's scratchpad (a `ct_local` view of the tile's
// own scratchpad, docs/ktir.md) and the second reads it there in place. The simulator keeps
// a core's scratchpad from one kernel of a job to the next, as the chip does.
//
//===----------------------------------------------------------------------===//

#ifndef FRONTEND_RESIDENCY_H
#define FRONTEND_RESIDENCY_H

#include "Division.h"
#include "Kernels.h"
#include "support/spyre_arch.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <vector>

namespace chipless::frontend {

/// Where a kernel leaves its tiles' blocks of a tensor for the next kernel.
struct ResidentBlock {
  int64_t address = 0;        ///< byte address in every core's scratchpad
  int64_t rows = 0, cols = 0; ///< the block of one tile: rows [t rows, (t + 1) rows), all columns
  int64_t bytes = 0;          ///< of one block, in whole sticks
  size_t producer = 0;        ///< the kernel that writes it (the next one reads it)
};

/// Resident tensors, by the tensor whose memory they are (memoryRoot).
using ResidentTensors = llvm::DenseMap<mlir::Value, ResidentBlock>;

/// The intermediates that stay in the scratchpad, given every kernel's chosen division: a
/// tensor written by kernel i in whole rows and read only by kernel i + 1 (as the rows of a
/// rows kernel, or as a matmul's A in one slice of K), neither kernel stepping through it,
/// whole sticks per row, both kernels with the same tiles of the same rows, and its blocks
/// with the kernels' own (estimated) resident bytes within half the planning budget (the
/// estimate does not count double buffering). `results`: the graph's results (they go to
/// device memory).
ResidentTensors planResidency(const KernelPlan& plan, const std::vector<Division>& divisions,
                              const SpyreArch& arch, const llvm::DenseSet<mlir::Value>& results);

/// Re-chooses, left to right, kernel i + 1's division (`chosen`: indices into `candidates`,
/// chosen kernel by kernel) for what it lets stay in the scratchpad: a candidate with which
/// kernel i's output would stay replaces the choice when its estimate less the traffic it
/// saves (the tensor written and read back at DRAM bandwidth) is below the choice's (less
/// what the choice saves) by more than a tie (kNearTie). Kernels whose division is `forced`
/// (--division) keep it.
void preferResidency(const KernelPlan& plan, const std::vector<std::vector<Division>>& candidates,
                     std::vector<size_t>& chosen, const std::vector<bool>& forced,
                     const SpyreArch& arch, const llvm::DenseSet<mlir::Value>& results);

} // namespace chipless::frontend

#endif // FRONTEND_RESIDENCY_H
