#include "runtime/spyre/stick_layout.h"

#include "runtime/launch_common.h"
#include "support/error.h"

#include <cstring>

namespace chipless::runtime {

int64_t StickLayout::sticksPerRow() const {
  int64_t last = shape.empty() ? 1 : shape.back();
  int64_t eps = elementsPerStick();
  return (last + eps - 1) / eps;
}

int64_t StickLayout::rows() const {
  int64_t r = 1;
  for (size_t i = 0; i + 1 < shape.size(); ++i) r *= shape[i];
  return r;
}

void toDevice(const NpyArray& host, const StickLayout& layout, Fp16Format fmt, uint8_t* device,
              const std::string& what) {
  const DType hd = host.dtype, dd = layout.dtype;
  checkHostFeeds(hd, dd, what);
  const int64_t last = layout.shape.empty() ? 1 : layout.shape.back();
  const int64_t eps = layout.elementsPerStick(), spr = layout.sticksPerRow(), rows = layout.rows();
  const size_t hsize = dtypeSize(hd), dsize = dtypeSize(dd);
  const bool sameBits = hd == dd && !(dd == DType::F16 && fmt != Fp16Format::Ieee);
  if (layout.rowMajor) {
    // Row-major: the elements as they are, converted in place; the rest of the last stick zero.
    const size_t n = static_cast<size_t>(layout.elements());
    if (sameBits) {
      std::memcpy(device, host.data.data(), n * dsize);
    } else if (!isFloatType(dd)) {
      narrowIntegers(hd, host.data.data(), dd, device, static_cast<int64_t>(n), 0, what);
    } else {
      std::vector<float> tmp(n);
      decodeToFloat(hd, host.data.data(), tmp.data(), n, Fp16Format::Ieee);
      encodeFromFloat(dd, tmp.data(), device, n, fmt);
    }
    std::memset(device + n * dsize, 0, layout.deviceBytes() - n * dsize);
    return;
  }
  // Each row's elements (converted unless the bits are the same) go to its sticks, one per
  // stick row; the padding after the last element of a row's last stick is zero, and so are
  // the padding rows of each stick column.
  const int64_t stickRows = layout.stickRows();
  if (stickRows != rows) std::memset(device, 0, layout.deviceBytes());
  std::vector<float> row(static_cast<size_t>(spr * eps), 0.0f);
  std::vector<uint8_t> encoded(static_cast<size_t>(spr * layout.stickBytes));
  for (int64_t r = 0; r < rows; ++r) {
    const uint8_t* src = host.data.data() + static_cast<size_t>(r * last) * hsize;
    const uint8_t* elements = encoded.data();
    if (sameBits) {
      elements = src;
    } else if (!isFloatType(dd)) {
      narrowIntegers(hd, src, dd, encoded.data(), last, r * last, what);
    } else {
      // Through fp32: host f16 is IEEE; the device type may be f16 (IEEE or DLFloat16),
      // bf16 or f32.
      decodeToFloat(hd, src, row.data(), static_cast<size_t>(last), Fp16Format::Ieee);
      encodeFromFloat(dd, row.data(), encoded.data(), static_cast<size_t>(last), fmt);
    }
    for (int64_t s = 0; s < spr; ++s) {
      const size_t count = static_cast<size_t>(std::min(eps, last - s * eps)) * dsize;
      uint8_t* dst = device + static_cast<size_t>((s * stickRows + r) * layout.stickBytes);
      std::memcpy(dst, elements + static_cast<size_t>(s * eps) * dsize, count);
      std::memset(dst + count, 0, static_cast<size_t>(layout.stickBytes) - count);
    }
  }
}

NpyArray fromDevice(const uint8_t* device, const StickLayout& layout, Fp16Format fmt) {
  const DType dd = layout.dtype;
  const DType hd = hostTypeOf(dd);
  std::vector<int64_t> shape = layout.shape;
  NpyArray out = makeNpy(hd, shape);
  const bool sameBits = hd == dd && !(dd == DType::F16 && fmt != Fp16Format::Ieee);
  if (layout.rowMajor) {
    const size_t n = static_cast<size_t>(layout.elements());
    if (sameBits) {
      std::memcpy(out.data.data(), device, n * dtypeSize(dd));
    } else {
      std::vector<float> tmp(n);
      decodeToFloat(dd, device, tmp.data(), n, fmt);
      encodeFromFloat(hd, tmp.data(), out.data.data(), n, Fp16Format::Ieee);
    }
    return out;
  }
  const int64_t last = layout.shape.empty() ? 1 : layout.shape.back();
  const int64_t eps = layout.elementsPerStick(), spr = layout.sticksPerRow(), rows = layout.rows();
  const size_t dsize = dtypeSize(dd), hsize = dtypeSize(hd);
  std::vector<uint8_t> gathered(static_cast<size_t>(spr * eps) * dsize);
  std::vector<float> tmp(static_cast<size_t>(last));
  for (int64_t r = 0; r < rows; ++r) {
    // The row's elements from its sticks: straight into the array when the bits are the same.
    uint8_t* dst = out.data.data() + static_cast<size_t>(r * last) * hsize;
    uint8_t* row = sameBits ? dst : gathered.data();
    for (int64_t s = 0; s < spr; ++s)
      std::memcpy(row + static_cast<size_t>(s * eps) * dsize,
                  device + static_cast<size_t>((s * layout.stickRows() + r) * layout.stickBytes),
                  static_cast<size_t>(std::min(eps, last - s * eps)) * dsize);
    if (!sameBits) {
      decodeToFloat(dd, gathered.data(), tmp.data(), static_cast<size_t>(last), fmt);
      encodeFromFloat(hd, tmp.data(), dst, static_cast<size_t>(last), Fp16Format::Ieee);
    }
  }
  return out;
}

} // namespace chipless::runtime
