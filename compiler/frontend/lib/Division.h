//===- Division.h - dividing a kernel's work over the cores ----*- C++ -*-===//
//
// Part of chipless. A kernel's candidate divisions (how many cores, how many rows or which
// output block each takes, how many rows or which slice of the reduction dimension is
// resident in the scratchpad at a time) and the cost model that picks one. The model reads
// the same architecture numbers the simulator runs on: DRAM bandwidth, DMA and SFU rates,
// the PT array's peak, the scratchpad's planning budget.
//
//===----------------------------------------------------------------------===//

#ifndef FRONTEND_DIVISION_H
#define FRONTEND_DIVISION_H

#include "Kernels.h"
#include "support/spyre_arch.h"

#include <string>
#include <vector>

namespace chipless::frontend {

/// One way to divide a kernel over the cores.
struct Division {
  int64_t gridBatch = 1;  ///< tiles along a batch
  int64_t blockBatch = 1; ///< matrices of the batch per tile (permutations; else 1)
  int64_t gridRows = 1;   ///< tiles along the rows (M; of one matrix when batched)
  int64_t gridCols = 1;   ///< tiles along the columns (N; matmul only)
  /// Tiles along the reduction dimension (matmul only): each multiplies a span of K and a
  /// ring reduce-scatter sums their partials, each keeping a slice of the rows.
  int64_t gridDepth = 1;
  int64_t blockRows = 1;     ///< rows per tile
  int64_t blockCols = 1;     ///< columns per tile (matmul; else the whole width)
  int64_t stepRows = 1;      ///< rows resident per step of a tile's loop (rows kernels)
  int64_t stepDepth = 1;     ///< reduction-dimension slice per step (matmul)
  int64_t residentBytes = 0; ///< scratchpad bytes a step keeps live (estimate)
  /// A re-layout that swaps the last two dimensions: the source rows each SFU transpose
  /// takes (at most a stick's lanes; Division.cpp), read as the source lies, whole rows at
  /// a time. 0: the copy reads the transposed view element by element (one DMA run each).
  int64_t transposeRows = 0;
  double cycles = 0;         ///< estimated cycles
  /// Bytes all tiles move between DRAM and their scratchpads (estimate): of near-ties, the
  /// division that moves fewer contends less, which the estimate does not see.
  double dramBytes = 0;
  std::string bound;         ///< what bounds the estimate: "dram", "pt", "sfu", "dma"
  int64_t tiles() const { return gridBatch * gridRows * gridCols * gridDepth; }
  /// "8 x 1 tiles of 32 x 1024, 16 rows per step".
  std::string describe() const;
};

/// Whether re-layout `k` swaps the last two dimensions of a source that lies as a matrix
/// with those two swapped (its rows one stride apart, its columns contiguous or whole sticks
/// of `lanes` values), so that it can load the source's rows as they lie and transpose
/// blocks of them on the SFU.
bool swapsLastTwo(const KernelGroup& k, int64_t lanes);

/// The box of batch positions that `blockBatch` consecutive matrices of a tensor form, for a
/// tensor whose dimensions before its matrix are `batchDims`: the innermost of them whole,
/// then a run of the next (so that the block is one box of the tensor, one access tile).
/// Empty when those matrices do not form such a box.
std::vector<int64_t> batchBox(llvm::ArrayRef<int64_t> batchDims, int64_t blockBatch);

/// The element size of `v`'s type, in bytes.
int64_t elementBytes(mlir::Value v);

/// Every division the front end considers for `k`, each with its estimated cycles: those
/// that fit the scratchpad and whose tiles address each tensor within
/// `dram.core_span_bytes` (CoreSpan.h). Empty (with the reason in `why`) when there is none.
std::vector<Division> candidateDivisions(const KernelGroup& k, const SpyreArch& arch,
                                         const KernelPlan& plan, std::string& why);

/// Estimates within this fraction of each other are a tie to the cost model.
constexpr double kNearTie = 0.05;

/// The index of the division with the fewest estimated cycles; among those within kNearTie
/// of it, the one with the most tiles, and of those the one that moves the fewest bytes.
size_t chooseDivision(const std::vector<Division>& candidates);

} // namespace chipless::frontend

#endif // FRONTEND_DIVISION_H
