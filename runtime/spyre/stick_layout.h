#pragma once
/// Host tensors ↔ the device layouts. In the stick layout the last dimension is padded to
/// whole sticks and split off as the outermost dimension: a (1024, 256) fp16 tensor is
/// stored as (4, 1024, 64); (1000, 200) as (4, 1000, 64) with 8 real values in each row's
/// last stick. A stick column may be padded to more rows than the tensor has (padded_rows:
/// stick s of row r at (s * paddedRows + r) * stickBytes). fp16 is converted to the device
/// format (IEEE or DLFloat16) on the way.
#include "support/dtype.h"
#include "support/npy.h"
#include "support/numerics.h"
#include "support/spyre_arch.h"

#include <cstdint>
#include <string>
#include <vector>

namespace chipless::runtime {

/// Where a tensor lives and how it is laid out on the device.
struct StickLayout {
  std::vector<int64_t> shape; ///< host shape (rank 0 is treated as (1))
  DType dtype = DType::F16;   ///< element type on the device
  int64_t stickBytes = 0;     ///< chip.stick_bytes of the device
  /// Row-major instead of sticks: the elements packed as on the host, the allocation
  /// rounded up to a whole stick (spyrecode::Layout::RowMajor).
  bool rowMajor = false;
  /// Rows of device memory per stick column (0: rows()): padding between stick columns.
  int64_t paddedRows = 0;
  /// Rows of device memory per stick column.
  int64_t stickRows() const { return paddedRows ? paddedRows : rows(); }

  int64_t elementsPerStick() const {
    return elementsInStick(stickBytes, static_cast<int64_t>(dtypeSize(dtype)));
  }
  /// Sticks along the last dimension.
  int64_t sticksPerRow() const;
  /// Product of all but the last dimension.
  int64_t rows() const;
  /// Number of elements.
  int64_t elements() const { return rows() * lastDim(); }
  /// Size of the last dimension (1 for rank 0).
  int64_t lastDim() const { return shape.empty() ? 1 : shape.back(); }
  /// Bytes on the device.
  uint64_t deviceBytes() const {
    if (rowMajor) {
      const int64_t bytes = elements() * static_cast<int64_t>(dtypeSize(dtype));
      return static_cast<uint64_t>((bytes + stickBytes - 1) / stickBytes * stickBytes);
    }
    return static_cast<uint64_t>(sticksPerRow() * stickRows() * stickBytes);
  }
};

/// Converts `host` (any of f16/f32 for float device types; i32 for i32) into the device
/// bytes of `layout`. Throws chipless::Error naming `what` when types cannot convert.
void toDevice(const NpyArray& host, const StickLayout& layout, Fp16Format fmt, uint8_t* device,
              const std::string& what);

/// Reads device bytes back into a host array of the layout's shape. bf16 comes back as f32
/// (.npy has no bfloat16).
NpyArray fromDevice(const uint8_t* device, const StickLayout& layout, Fp16Format fmt);

} // namespace chipless::runtime
