#pragma once
/// The vector program of a kernel (internal to compiler/tpu/lib/Emit): its element-wise
/// values and reductions sorted into passes over the columns of a block of rows.
#include "tpuc/KernelSpec.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace chipless::tpuc::emitter {

/// One pass over the columns of a block of rows. Full values are recomputed in every pass that
/// needs them (from loads and column values); column values live in registers for the block.
struct VPass {
  std::vector<int> columnOps;  ///< column values computed before the pass's column loop
  std::vector<int> reductions; ///< reductions accumulated in this pass
  std::vector<int> outputs;    ///< output indices stored in this pass
  std::vector<int> tileValues; ///< full values computed per tile, in order
  bool masked = false;         ///< the last tile is partial and the pass reduces: mask it
};

struct VProgram {
  std::vector<VPass> passes;
  std::vector<int> columnValues; ///< every column value (one register slot each)
};

/// Buffer ids of the vector phase: -1 the accumulator, i >= 0 input i, kOutputBase + j output j.
constexpr int kAccBuffer = -1;
constexpr int kOutputBase = 1000;

/// Whether output j is written back straight from the accumulator (no vector work).
inline bool fromAcc(const KernelSpec& k, size_t j) {
  return k.memory.outputOffsets[j] < 0;
}

/// Sorts the kernel's vector program into passes: a reduction's result (a column value) is
/// only ready in the pass after the one that accumulates it. No passes when the vector unit
/// has nothing to do.
VProgram planPasses(const KernelSpec& k, int64_t lanes);

} // namespace chipless::tpuc::emitter
