/// Tests of the host <-> device stick layout: sizes, element placement and padding, round
/// trips for every element type, rounding of f32 host data, DLFloat16 on the device and
/// the rejection of integer <-> float conversions.
#include "runtime/spyre/stick_layout.h"
#include "support/error.h"

#include <cstring>
#include <gtest/gtest.h>
#include <random>
#include <string>
#include <vector>

namespace chipless::runtime {
namespace {

#define EXPECT_CONTAINS(text, part)                                                                \
  EXPECT_NE(std::string(text).find(part), std::string::npos)                                       \
      << "expected \"" << (part) << "\" in: " << (text)

/// A host array of `dtype` and `shape` filled from `value(i)` (flat index).
template <typename F>
NpyArray filled(DType dtype, std::vector<int64_t> shape, F value) {
  NpyArray a = makeNpy(dtype, std::move(shape));
  for (size_t i = 0; i < a.elements(); ++i) {
    float v = static_cast<float>(value(i));
    switch (dtype) {
    case DType::F16: {
      uint16_t h = floatToHalf(v);
      std::memcpy(&a.data[2 * i], &h, 2);
      break;
    }
    case DType::F32:
      std::memcpy(&a.data[4 * i], &v, 4);
      break;
    case DType::I32: {
      int32_t x = static_cast<int32_t>(value(i));
      std::memcpy(&a.data[4 * i], &x, 4);
      break;
    }
    case DType::I64: {
      int64_t x = static_cast<int64_t>(value(i));
      std::memcpy(&a.data[8 * i], &x, 8);
      break;
    }
    default:
      break;
    }
  }
  return a;
}

uint16_t u16(const uint8_t* p) {
  uint16_t v;
  std::memcpy(&v, p, 2);
  return v;
}

StickLayout layout(DType dt, std::vector<int64_t> shape) {
  StickLayout l;
  l.dtype = dt;
  l.shape = std::move(shape);
  l.stickBytes = 128; // the stick of models/hw/spyre.yaml, which these layouts are written for
  return l;
}

TEST(StickLayout, Sizes) {
  StickLayout a = layout(DType::F16, {1024, 256});
  EXPECT_EQ(a.elementsPerStick(), 64);
  EXPECT_EQ(a.sticksPerRow(), 4);
  EXPECT_EQ(a.rows(), 1024);
  EXPECT_EQ(a.deviceBytes(), 4u * 1024 * 128);
  StickLayout b = layout(DType::F16, {1000, 200});
  EXPECT_EQ(b.sticksPerRow(), 4);
  EXPECT_EQ(b.deviceBytes(), 4u * 1000 * 128);
  StickLayout c = layout(DType::F32, {3, 5, 33});
  EXPECT_EQ(c.elementsPerStick(), 32);
  EXPECT_EQ(c.sticksPerRow(), 2);
  EXPECT_EQ(c.rows(), 15);
  StickLayout d = layout(DType::F16, {100});
  EXPECT_EQ(d.rows(), 1);
  EXPECT_EQ(d.sticksPerRow(), 2);
  StickLayout e = layout(DType::I32, {});
  EXPECT_EQ(e.rows(), 1);
  EXPECT_EQ(e.sticksPerRow(), 1);
  EXPECT_EQ(e.deviceBytes(), 128u);
}

TEST(StickLayout, F16RoundTripPlacesEachElementInItsStick) {
  // (1024, 256) lives on the device as (4, 1024, 64): element (r, c) is element c % 64 of
  // stick (c / 64) * 1024 + r.
  NpyArray host = filled(DType::F16, {1024, 256}, [](size_t i) { return (i % 2001) * 0.25 - 250; });
  StickLayout l = layout(DType::F16, {1024, 256});
  std::vector<uint8_t> dev(l.deviceBytes(), 0xAB);
  toDevice(host, l, Fp16Format::Ieee, dev.data(), "x");
  for (int64_t r = 0; r < 1024; r += 37)
    for (int64_t c = 0; c < 256; c += 5) {
      size_t off = static_cast<size_t>(((c / 64) * 1024 + r) * 128 + (c % 64) * 2);
      ASSERT_EQ(u16(&dev[off]), u16(&host.data[static_cast<size_t>(r * 256 + c) * 2]))
          << r << "," << c;
    }
  NpyArray back = fromDevice(dev.data(), l, Fp16Format::Ieee);
  EXPECT_EQ(back.dtype, DType::F16);
  EXPECT_EQ(back.shape, host.shape);
  EXPECT_EQ(back.data, host.data);
}

TEST(StickLayout, PaddedStickColumns) {
  // (100, 200) with 128 rows per stick column: stick s of row r at (s * 128 + r) * 128; the
  // 28 padding rows of every column are zero.
  NpyArray host = filled(DType::F16, {100, 200}, [](size_t i) { return 1 + (i % 11); });
  StickLayout l = layout(DType::F16, {100, 200});
  l.paddedRows = 128;
  EXPECT_EQ(l.stickRows(), 128);
  EXPECT_EQ(l.deviceBytes(), 4u * 128 * 128);
  std::vector<uint8_t> dev(l.deviceBytes(), 0xAB);
  toDevice(host, l, Fp16Format::Ieee, dev.data(), "x");
  for (int64_t r = 0; r < 100; r += 9)
    for (int64_t c = 0; c < 200; c += 7)
      ASSERT_EQ(u16(&dev[static_cast<size_t>(((c / 64) * 128 + r) * 128 + (c % 64) * 2)]),
                u16(&host.data[static_cast<size_t>(r * 200 + c) * 2]));
  for (int64_t s = 0; s < 4; ++s)
    for (size_t b = static_cast<size_t>((s * 128 + 100) * 128);
         b < static_cast<size_t>((s + 1) * 128 * 128); ++b)
      ASSERT_EQ(dev[b], 0) << "stick column " << s << " byte " << b;
  EXPECT_EQ(fromDevice(dev.data(), l, Fp16Format::Ieee).data, host.data);
}

TEST(StickLayout, PaddingBytesAreZero) {
  // (1000, 200): 3 full sticks and one with 8 values + 112 bytes of padding per row.
  NpyArray host = filled(DType::F16, {1000, 200}, [](size_t i) { return 1 + (i % 7); });
  StickLayout l = layout(DType::F16, {1000, 200});
  std::vector<uint8_t> dev(l.deviceBytes(), 0xAB);
  toDevice(host, l, Fp16Format::Ieee, dev.data(), "x");
  for (int64_t r = 0; r < 1000; ++r) {
    const uint8_t* last = &dev[static_cast<size_t>((3 * 1000 + r) * 128)];
    for (int k = 0; k < 8; ++k)
      ASSERT_EQ(u16(last + 2 * k), u16(&host.data[static_cast<size_t>(r * 200 + 192 + k) * 2]));
    for (int b = 16; b < 128; ++b) ASSERT_EQ(last[b], 0) << "row " << r << " byte " << b;
  }
  for (uint8_t b : dev) ASSERT_NE(b, 0xAB); // every byte was written
  NpyArray back = fromDevice(dev.data(), l, Fp16Format::Ieee);
  EXPECT_EQ(back.data, host.data);
}

TEST(StickLayout, OneDimensionalAndScalarTensors) {
  NpyArray v = filled(DType::F32, {100}, [](size_t i) { return i * 1.5; });
  StickLayout lv = layout(DType::F32, {100});
  std::vector<uint8_t> dev(lv.deviceBytes(), 0xAB);
  toDevice(v, lv, Fp16Format::Ieee, dev.data(), "v");
  float x;
  std::memcpy(&x, &dev[3 * 128 + 4 * 3], 4); // element 99 = 32 * 3 + 3
  EXPECT_EQ(x, 99 * 1.5f);
  for (int b = 4 * 4; b < 128; ++b) ASSERT_EQ(dev[3 * 128 + b], 0);
  EXPECT_EQ(fromDevice(dev.data(), lv, Fp16Format::Ieee).data, v.data);

  NpyArray s = filled(DType::F16, {}, [](size_t) { return 3.5; });
  StickLayout ls = layout(DType::F16, {});
  std::vector<uint8_t> ds(ls.deviceBytes(), 0xAB);
  toDevice(s, ls, Fp16Format::Ieee, ds.data(), "s");
  EXPECT_EQ(u16(ds.data()), floatToHalf(3.5f));
  for (int b = 2; b < 128; ++b) ASSERT_EQ(ds[b], 0);
  NpyArray back = fromDevice(ds.data(), ls, Fp16Format::Ieee);
  EXPECT_TRUE(back.shape.empty());
  EXPECT_EQ(back.data, s.data);
}

TEST(StickLayout, F32HostToF16AndBf16DeviceRounds) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> dist(-1000.0f, 1000.0f);
  std::vector<float> values(3 * 70);
  for (float& v : values) v = dist(rng);
  values[0] = 1.0f + std::ldexp(1.0f, -11); // a tie: rounds to even (1.0) in f16
  values[1] = 70000.0f;                     // beyond f16: infinity
  NpyArray host = filled(DType::F32, {3, 70}, [&](size_t i) { return values[i]; });
  for (DType dt : {DType::F16, DType::BF16}) {
    StickLayout l = layout(dt, {3, 70});
    std::vector<uint8_t> dev(l.deviceBytes());
    toDevice(host, l, Fp16Format::Ieee, dev.data(), "x");
    for (int64_t r = 0; r < 3; ++r)
      for (int64_t c = 0; c < 70; ++c) {
        float v = values[static_cast<size_t>(r * 70 + c)];
        uint16_t want = dt == DType::F16 ? floatToHalf(v) : floatToBf16(v);
        ASSERT_EQ(u16(&dev[static_cast<size_t>(((c / 64) * 3 + r) * 128 + (c % 64) * 2)]), want);
      }
    NpyArray back = fromDevice(dev.data(), l, Fp16Format::Ieee);
    // bf16 comes back as f32 (numpy has no bfloat16); f16 as f16.
    EXPECT_EQ(back.dtype, dt == DType::F16 ? DType::F16 : DType::F32) << dtypeName(dt);
    EXPECT_EQ(back.shape, (std::vector<int64_t>{3, 70}));
    for (size_t i = 0; i < values.size(); ++i) {
      float got;
      if (dt == DType::F16)
        got = halfToFloat(u16(&back.data[2 * i]));
      else
        std::memcpy(&got, &back.data[4 * i], 4);
      float want = dt == DType::F16 ? halfToFloat(floatToHalf(values[i]))
                                    : bf16ToFloat(floatToBf16(values[i]));
      ASSERT_EQ(got, want) << i;
    }
  }
  // f16 host data into an f32 device tensor is exact.
  NpyArray h16 = filled(DType::F16, {2, 3}, [](size_t i) { return i * 0.125 - 0.3; });
  StickLayout l32 = layout(DType::F32, {2, 3});
  std::vector<uint8_t> d32(l32.deviceBytes());
  toDevice(h16, l32, Fp16Format::Ieee, d32.data(), "x");
  float f;
  std::memcpy(&f, &d32[128 + 4 * 2], 4);
  EXPECT_EQ(f, halfToFloat(u16(&h16.data[2 * 5])));
}

TEST(StickLayout, I32RoundTrip) {
  NpyArray host = filled(DType::I32, {5, 40}, [](size_t i) {
    return static_cast<int64_t>(i * 2654435761u % 4000000000u) - 2000000000;
  });
  StickLayout l = layout(DType::I32, {5, 40});
  std::vector<uint8_t> dev(l.deviceBytes(), 0xAB);
  toDevice(host, l, Fp16Format::DLFloat16, dev.data(), "i");
  int32_t x, y;
  std::memcpy(&x, &dev[(1 * 5 + 4) * 128 + 4 * 7], 4); // (4, 39)
  std::memcpy(&y, &host.data[(4 * 40 + 39) * 4], 4);
  EXPECT_EQ(x, y);
  NpyArray back = fromDevice(dev.data(), l, Fp16Format::DLFloat16);
  EXPECT_EQ(back.dtype, DType::I32);
  EXPECT_EQ(back.data, host.data);
}

TEST(StickLayout, DLFloat16DeviceFormat) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> dist(-30000.0f, 30000.0f);
  NpyArray host = filled(DType::F16, {4, 64}, [&](size_t i) { return i == 0 ? 0.1 : dist(rng); });
  StickLayout l = layout(DType::F16, {4, 64});
  std::vector<uint8_t> dev(l.deviceBytes());
  toDevice(host, l, Fp16Format::DLFloat16, dev.data(), "x");
  bool differs = false;
  for (size_t i = 0; i < host.elements(); ++i) {
    uint16_t h = u16(&host.data[2 * i]);
    uint16_t d = u16(&dev[2 * i]); // one stick per row, rows in order
    ASSERT_EQ(d, floatToDlf16(halfToFloat(h))) << i;
    differs |= d != h;
  }
  EXPECT_TRUE(differs); // the device really holds another format
  // Back on the host: IEEE binary16 of the DLFloat16 value.
  NpyArray back = fromDevice(dev.data(), l, Fp16Format::DLFloat16);
  EXPECT_EQ(back.dtype, DType::F16);
  for (size_t i = 0; i < host.elements(); ++i) {
    uint16_t d = u16(&dev[2 * i]);
    ASSERT_EQ(u16(&back.data[2 * i]), floatToHalf(dlf16ToFloat(d))) << i;
  }
  // DLFloat16 has fewer fraction bits: 0.1 does not survive exactly, but closely.
  float first = halfToFloat(u16(back.data.data()));
  EXPECT_NEAR(first, 0.1f, 0.1f / 256);
}

TEST(StickLayout, IntegerAndFloatDoNotConvert) {
  auto message = [](const NpyArray& host, DType deviceType) {
    StickLayout l = layout(deviceType, host.shape);
    std::vector<uint8_t> dev(l.deviceBytes());
    try {
      toDevice(host, l, Fp16Format::Ieee, dev.data(), "input 'weights'");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    ADD_FAILURE() << "no error for " << dtypeName(host.dtype) << " -> " << dtypeName(deviceType);
    return std::string();
  };
  NpyArray ints = filled(DType::I32, {2, 2}, [](size_t i) { return i; });
  NpyArray floats = filled(DType::F32, {2, 2}, [](size_t i) { return i; });
  NpyArray halves = filled(DType::F16, {2, 2}, [](size_t i) { return i; });
  for (DType dt : {DType::F16, DType::BF16, DType::F32}) {
    std::string e = message(ints, dt);
    EXPECT_CONTAINS(e, "input 'weights'");
    EXPECT_CONTAINS(e, "i32 data cannot feed a tensor of");
    EXPECT_CONTAINS(e, dtypeName(dt));
  }
  std::string e = message(floats, DType::I32);
  EXPECT_CONTAINS(e, "input 'weights'");
  EXPECT_CONTAINS(e, "f32 data cannot feed a tensor of i32 (give i32 or i64 data)");
  EXPECT_CONTAINS(message(halves, DType::I32), "f16");
  // An i8 array is no float: it is refused naming the input, not decoded as one.
  NpyArray bytes = makeNpy(DType::I8, {2, 2});
  EXPECT_CONTAINS(message(bytes, DType::F16),
                  "input 'weights': i8 data cannot feed a tensor of f16");
  // An i64 array (numpy's default integer) feeds an i32 tensor; a value beyond i32 is
  // refused naming the input, the value and its element.
  NpyArray wide = filled(DType::I64, {2, 3}, [](size_t i) { return i; });
  int64_t big = int64_t{3} << 31;
  std::memcpy(wide.data.data() + 8 * 4, &big, 8);
  EXPECT_CONTAINS(message(wide, DType::I32),
                  "input 'weights': value 6442450944 at element 4 does not fit the i32 tensor");
}

TEST(StickLayout, I64DataFeedsAnI32Tensor) {
  StickLayout layout{{2, 3}, DType::I32, 128, false};
  NpyArray wide = makeNpy(DType::I64, {2, 3});
  for (int64_t i = 0; i < 6; ++i) {
    int64_t v = i == 5 ? -(int64_t{1} << 31) : i * 1000 - 2000;
    std::memcpy(wide.data.data() + 8 * i, &v, 8);
  }
  std::vector<uint8_t> device(static_cast<size_t>(layout.deviceBytes()));
  toDevice(wide, layout, Fp16Format::Ieee, device.data(), "input 'ids'");
  NpyArray back = fromDevice(device.data(), layout, Fp16Format::Ieee);
  ASSERT_EQ(back.dtype, DType::I32);
  for (int64_t i = 0; i < 6; ++i) {
    int32_t v;
    std::memcpy(&v, back.data.data() + 4 * i, 4);
    EXPECT_EQ(v, i == 5 ? INT32_MIN : i * 1000 - 2000) << i;
  }
}

} // namespace
} // namespace chipless::runtime
