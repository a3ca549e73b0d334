// Tests for support/numerics_bulk.h: every bulk converter, on both implementations this CPU
// runs, gives the same bits as the scalar functions of support/numerics.h (decoders on all
// 65536 patterns, encoders on samples of every float exponent, both 16-bit formats).
#include "support/float_bits.h"
#include "support/numerics.h"
#include "support/numerics_bulk.h"

#include <cstring>
#include <gtest/gtest.h>
#include <random>
#include <vector>

namespace chipless {
namespace {

/// The implementations this CPU can run.
std::vector<BulkPath> paths() {
  std::vector<BulkPath> p{BulkPath::Portable};
  if (bestBulkPath() == BulkPath::F16cAvx2) p.push_back(BulkPath::F16cAvx2);
  return p;
}

const Fp16Format kFormats[] = {Fp16Format::Ieee, Fp16Format::DLFloat16};

/// Float patterns covering every exponent and sign: a stride through all 2^32 patterns, the
/// neighbourhoods of every power of two and of every rounding boundary of both 16-bit
/// formats, and random values.
std::vector<float> sampleFloats() {
  std::vector<float> out;
  for (uint64_t bits = 0; bits < 0x100000000ull; bits += 65521)
    out.push_back(floatOf(uint32_t(bits)));
  for (uint32_t sign : {0u, 0x80000000u})
    for (uint32_t exponent = 0; exponent < 256; ++exponent)
      for (uint32_t low : {0u, 1u, 0xFFFu, 0x1000u, 0x1001u, 0x1FFFu, 0x2000u, 0x2001u, 0x3FFFu,
                           0x4000u, 0x6000u, 0x7FFFFFu, 0x7FE000u, 0x7FF000u, 0x400000u})
        out.push_back(floatOf(sign | (exponent << 23) | low));
  std::mt19937 rng(7);
  for (int i = 0; i < 200000; ++i) out.push_back(floatOf(rng()));
  return out;
}

TEST(NumericsBulk, BestPathHasAName) {
  const std::string name = bulkPathName(bestBulkPath());
  EXPECT_TRUE(name == "portable" || name == "f16c+avx2") << name;
}

TEST(NumericsBulk, DecodesEvery16BitPatternLikeTheScalarDecoder) {
  std::vector<uint8_t> src(2 * 65536);
  for (uint32_t h = 0; h < 65536; ++h) {
    src[2 * h] = static_cast<uint8_t>(h);
    src[2 * h + 1] = static_cast<uint8_t>(h >> 8);
  }
  for (BulkPath path : paths())
    for (Fp16Format format : kFormats) {
      std::vector<float> got(65536);
      decodeF16Bulk(src.data(), got.data(), 65536, format, path);
      for (uint32_t h = 0; h < 65536; ++h)
        ASSERT_EQ(bitsOf(got[h]), bitsOf(decodeF16(static_cast<uint16_t>(h), format)))
            << bulkPathName(path) << " " << fp16FormatName(format) << " pattern " << h;
    }
  std::vector<float> bf(65536);
  decodeBf16Bulk(src.data(), bf.data(), 65536);
  for (uint32_t h = 0; h < 65536; ++h)
    ASSERT_EQ(bitsOf(bf[h]), bitsOf(bf16ToFloat(static_cast<uint16_t>(h)))) << h;
}

TEST(NumericsBulk, EncodesLikeTheScalarEncoder) {
  const std::vector<float> values = sampleFloats();
  const size_t n = values.size();
  for (BulkPath path : paths())
    for (Fp16Format format : kFormats) {
      std::vector<uint8_t> got(2 * n);
      encodeF16Bulk(values.data(), got.data(), n, format, path);
      for (size_t i = 0; i < n; ++i) {
        const uint16_t want = encodeF16(values[i], format);
        ASSERT_EQ(got[2 * i] | (got[2 * i + 1] << 8), want)
            << bulkPathName(path) << " " << fp16FormatName(format) << " float bits " << std::hex
            << bitsOf(values[i]);
      }
    }
  std::vector<uint8_t> bf(2 * n);
  encodeBf16Bulk(values.data(), bf.data(), n);
  for (size_t i = 0; i < n; ++i)
    ASSERT_EQ(bf[2 * i] | (bf[2 * i + 1] << 8), floatToBf16(values[i]))
        << std::hex << bitsOf(values[i]);
}

TEST(NumericsBulk, EveryLengthAndOffsetConvertsOnlyItsElements) {
  // Vector bodies and scalar tails: lengths 0..40 at unaligned offsets; bytes around the
  // destination stay untouched.
  std::mt19937 rng(3);
  std::vector<float> values(64);
  for (float& v : values) v = floatOf(rng() & 0xBFFFFFFFu);
  for (BulkPath path : paths())
    for (Fp16Format format : kFormats)
      for (size_t len = 0; len <= 40; ++len)
        for (size_t offset : {0u, 1u, 3u}) {
          std::vector<uint8_t> out(2 * len + 8, 0xAB);
          encodeF16Bulk(values.data() + offset, out.data() + 1, len, format, path);
          EXPECT_EQ(out[0], 0xAB);
          EXPECT_EQ(out[2 * len + 1], 0xAB);
          std::vector<float> back(len + 2, -1.0f);
          decodeF16Bulk(out.data() + 1, back.data() + 1, len, format, path);
          EXPECT_EQ(back[0], -1.0f);
          EXPECT_EQ(back[len + 1], -1.0f);
          for (size_t i = 0; i < len; ++i) {
            const uint16_t h = encodeF16(values[offset + i], format);
            ASSERT_EQ(out[1 + 2 * i] | (out[2 + 2 * i] << 8), h) << len << " " << i;
            ASSERT_EQ(bitsOf(back[1 + i]), bitsOf(decodeF16(h, format))) << len << " " << i;
          }
        }
}

TEST(NumericsBulk, TypedConvertersUseTheBulkPaths) {
  const std::vector<float> values = sampleFloats();
  const size_t n = values.size();
  for (Fp16Format format : kFormats) {
    std::vector<uint8_t> bytes(2 * n);
    encodeFromFloat(DType::F16, values.data(), bytes.data(), n, format);
    std::vector<float> back(n);
    decodeToFloat(DType::F16, bytes.data(), back.data(), n, format);
    for (size_t i = 0; i < n; ++i) {
      const uint16_t h = encodeF16(values[i], format);
      ASSERT_EQ(bytes[2 * i] | (bytes[2 * i + 1] << 8), h);
      ASSERT_EQ(bitsOf(back[i]), bitsOf(decodeF16(h, format)));
    }
  }
}

} // namespace
} // namespace chipless
