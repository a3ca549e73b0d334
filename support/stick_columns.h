#pragma once
/// How long each stick column of a Spyre tensor in the stick layout is in device memory —
/// one rule for the front end, which lays out the tensors of the programs it compiles, and
/// the runtime, which keeps device tensors in the same layout so that programs bind them in
/// place.
#include <cstdint>
#include <numeric>

namespace chipless {

/// The rows each stick column of a stick-layout tensor of `rows` rows and `sticks` columns
/// takes: its rows, or more where every column would otherwise start in the same DRAM
/// channel (a column a whole multiple of channels x interleave bytes long), so that a block
/// of rows spread over several columns reads from every channel. The columns are then
/// padded to the next number of interleave blocks that shares no factor with the channel
/// count, so each column starts one channel after the one before (bench/frontend/blocks.py:
/// padding columns that only share some channels was slower on the MLP).
inline int64_t stickColumnRows(int64_t rows, int64_t sticks, int64_t stickBytes,
                               int64_t interleaveBytes, int64_t channels) {
  const int64_t bytes = rows * stickBytes;
  if (sticks <= 1 || channels <= 1 || interleaveBytes <= 0 || interleaveBytes % stickBytes != 0 ||
      bytes % interleaveBytes != 0)
    return rows;
  int64_t blocks = bytes / interleaveBytes;
  if (blocks % channels != 0) return rows;
  while (std::gcd(blocks, channels) != 1) ++blocks;
  return blocks * interleaveBytes / stickBytes;
}

} // namespace chipless
