#include "runtime/tpu/tpu_layout.h"

#include "runtime/launch_common.h"
#include "support/error.h"
#include "support/numerics.h"

#include <cstring>

namespace chipless::runtime {

std::vector<int64_t> TiledLayout::paddedShape() const {
  std::vector<int64_t> s = shape.empty() ? std::vector<int64_t>{1} : shape;
  auto up = [](int64_t v, int64_t t) { return (v + t - 1) / t * t; };
  s.back() = up(s.back(), tile[1]);
  if (s.size() >= 2) s[s.size() - 2] = up(s[s.size() - 2], tile[0]);
  return s;
}

int64_t TiledLayout::elements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

uint64_t TiledLayout::deviceBytes() const {
  uint64_t n = 1;
  for (int64_t d : paddedShape()) n *= static_cast<uint64_t>(d);
  return n * dtypeSize(dtype);
}

namespace {

/// Calls fn(logicalIndex, deviceIndex, count) for each run of contiguous elements: the rows
/// of the last dimension, placed in the padded shape.
template <typename Fn>
void forEachRow(const TiledLayout& l, Fn fn) {
  std::vector<int64_t> shape = l.shape.empty() ? std::vector<int64_t>{1} : l.shape;
  std::vector<int64_t> padded = l.paddedShape();
  const size_t rank = shape.size();
  const int64_t cols = shape.back(), pcols = padded.back();
  int64_t rows = 1;
  for (size_t d = 0; d + 1 < rank; ++d) rows *= shape[d];
  std::vector<int64_t> idx(rank > 1 ? rank - 1 : 0, 0);
  for (int64_t r = 0; r < rows; ++r) {
    // Device row index of logical row r: the outer indices in the padded shape.
    int64_t drow = 0;
    for (size_t d = 0; d + 1 < rank; ++d) drow = drow * padded[d] + idx[d];
    fn(r * cols, drow * pcols, cols);
    for (size_t d = idx.size(); d-- > 0;) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
}

} // namespace

void toTiled(const NpyArray& host, int64_t first, const TiledLayout& layout, uint8_t* device,
             const std::string& what) {
  const DType dd = layout.dtype, hd = host.dtype;
  const size_t dsize = dtypeSize(dd), hsize = dtypeSize(hd);
  std::memset(device, 0, layout.deviceBytes());
  const uint8_t* src = host.data.data() + first * static_cast<int64_t>(hsize);
  const bool floatDevice = isFloatType(dd);
  checkHostFeeds(hd, dd, what);
  std::vector<float> tmp;
  forEachRow(layout, [&](int64_t li, int64_t di, int64_t n) {
    const uint8_t* s = src + li * static_cast<int64_t>(hsize);
    uint8_t* d = device + di * static_cast<int64_t>(dsize);
    if (hd == dd) {
      std::memcpy(d, s, static_cast<size_t>(n) * dsize);
    } else if (floatDevice) {
      tmp.resize(static_cast<size_t>(n));
      decodeToFloat(hd, s, tmp.data(), tmp.size(), Fp16Format::Ieee);
      encodeFromFloat(dd, tmp.data(), d, tmp.size(), Fp16Format::Ieee);
    } else { // wider host integers into an integer tensor
      narrowIntegers(hd, s, dd, d, n, first + li, what);
    }
  });
}

void fromTiled(const uint8_t* device, const TiledLayout& layout, NpyArray& out, int64_t first) {
  const DType dd = layout.dtype, hd = out.dtype;
  const size_t dsize = dtypeSize(dd), hsize = dtypeSize(hd);
  uint8_t* dst = out.data.data() + first * static_cast<int64_t>(hsize);
  std::vector<float> tmp;
  forEachRow(layout, [&](int64_t li, int64_t di, int64_t n) {
    const uint8_t* s = device + di * static_cast<int64_t>(dsize);
    uint8_t* d = dst + li * static_cast<int64_t>(hsize);
    if (hd == dd) {
      std::memcpy(d, s, static_cast<size_t>(n) * dsize);
    } else {
      tmp.resize(static_cast<size_t>(n));
      decodeToFloat(dd, s, tmp.data(), tmp.size(), Fp16Format::Ieee);
      encodeFromFloat(hd, tmp.data(), d, tmp.size(), Fp16Format::Ieee);
    }
  });
}

} // namespace chipless::runtime
