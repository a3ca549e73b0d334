#pragma once
/// Host tensors ↔ a TPU chip's HBM. In HBM a tensor is row-major with its last two
/// dimensions padded up to multiples of its tile (zeros), the layout the MXU kernels work on:
/// a (200, 300) bf16 tensor with tile (8, 128) is stored as (200, 384). A rank-1 tensor pads
/// its only dimension to tile[1]. f32 or f16 host data feeds bf16 tensors (rounded to nearest
/// even); bf16 comes back to the host as f32 (.npy has no bfloat16); int32 host data feeds
/// i8 tensors when every value fits.
#include "support/dtype.h"
#include "support/npy.h"

#include <cstdint>
#include <string>
#include <vector>

namespace chipless::runtime {

/// How one chip's part of a tensor argument is laid out in its HBM.
struct TiledLayout {
  std::vector<int64_t> shape; ///< logical shape on one chip (rank 0 is treated as (1))
  DType dtype = DType::F32;   ///< element type in HBM
  int64_t tile[2] = {1, 1};   ///< the last two dimensions are padded to multiples of these

  /// The shape in HBM: the last two dimensions rounded up to the tile.
  std::vector<int64_t> paddedShape() const;
  /// Elements of the logical shape.
  int64_t elements() const;
  /// Bytes in HBM.
  uint64_t deviceBytes() const;
};

/// Converts the `elements()` values of `host` starting at element `first` into the HBM bytes
/// of `layout` (padding zeroed). Throws chipless::Error naming `what` when the types cannot
/// convert or an integer does not fit.
void toTiled(const NpyArray& host, int64_t first, const TiledLayout& layout, uint8_t* device,
             const std::string& what);

/// Reads HBM bytes back into `out`'s elements starting at `first` (out has the host dtype of
/// the layout: f32 for bf16 and f32, i32, i8).
void fromTiled(const uint8_t* device, const TiledLayout& layout, NpyArray& out, int64_t first);

} // namespace chipless::runtime
