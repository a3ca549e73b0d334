#pragma once
/// The bytes of VMEM an operation touches, as strided blocks ("count rows of width bytes,
/// stride apart"), and an exact overlap test between two of them, so that double-buffered
/// and column-blocked buffers (the same rows, different columns) are not mistaken for
/// conflicts.
#include <algorithm>
#include <cstdint>

namespace chipless::sim::tpu {

struct StridedBlock {
  int64_t base = 0;   ///< first byte of row 0
  int64_t width = 0;  ///< bytes per row
  int64_t stride = 0; ///< bytes from one row to the next (any sign; 0 = the same row)
  int64_t count = 1;  ///< rows

  /// The same bytes with a non-negative stride (and one row when the stride is 0).
  StridedBlock normalised() const {
    StridedBlock b = *this;
    if (b.count <= 1 || b.stride == 0) {
      b.count = 1;
      b.stride = 0;
    } else if (b.stride < 0) {
      b.base += (b.count - 1) * b.stride;
      b.stride = -b.stride;
    }
    return b;
  }
  int64_t lo() const {
    StridedBlock b = normalised();
    return b.base;
  }
  int64_t hi() const {
    StridedBlock b = normalised();
    return b.base + (b.count - 1) * b.stride + b.width;
  }
};

namespace detail {
inline int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
inline int64_t ceilDiv(int64_t a, int64_t b) {
  return -floorDiv(-a, b);
}
/// Whether [x, x+w) meets a row of the normalised block b (b.stride > 0).
inline bool intervalMeetsRows(int64_t x, int64_t w, const StridedBlock& b) {
  // Row j meets it when b.base + j*s < x + w and b.base + j*s + b.width > x.
  int64_t first = floorDiv(x - b.width - b.base, b.stride) + 1;
  int64_t last = ceilDiv(x + w - b.base, b.stride) - 1;
  return std::max<int64_t>(first, 0) <= std::min<int64_t>(last, b.count - 1);
}
} // namespace detail

/// Whether two normalised blocks (non-negative strides) share a byte. Exact for equal
/// strides and for single rows; otherwise their bounding ranges are compared (conservative).
inline bool overlapsNormalised(const StridedBlock& a, const StridedBlock& b) {
  if (a.width <= 0 || b.width <= 0) return false;
  const int64_t aHi = a.base + (a.count - 1) * a.stride + a.width;
  const int64_t bHi = b.base + (b.count - 1) * b.stride + b.width;
  if (aHi <= b.base || bHi <= a.base) return false;
  if (a.count == 1 && b.count == 1) return true;
  if (a.count == 1) return detail::intervalMeetsRows(a.base, a.width, b);
  if (b.count == 1) return detail::intervalMeetsRows(b.base, b.width, a);
  if (a.stride == b.stride) {
    // Rows i of a and j of b meet when d - b.width < (j - i) * s < d + a.width, d = a0 - b0.
    const int64_t s = a.stride, d = a.base - b.base;
    int64_t first = detail::floorDiv(d - b.width, s) + 1;
    int64_t last = detail::ceilDiv(d + a.width, s) - 1;
    return std::max<int64_t>(first, -(a.count - 1)) <= std::min<int64_t>(last, b.count - 1);
  }
  return true;
}

/// Whether two blocks share a byte (see overlapsNormalised).
inline bool overlaps(const StridedBlock& x, const StridedBlock& y) {
  return overlapsNormalised(x.normalised(), y.normalised());
}

} // namespace chipless::sim::tpu
