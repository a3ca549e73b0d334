// Tests for support/numerics.h: binary16, bfloat16 and DLFloat16 conversions.
#include "support/error.h"
#include "support/numerics.h"

#include <cfenv>
#include <cmath>
#include <cstring>
#include <gtest/gtest.h>
#include <limits>
#include <random>
#include <vector>

namespace chipless {
namespace {

float fromBits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

uint32_t toBits(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  return bits;
}

bool isHalfNan(uint16_t h) {
  return (h & 0x7C00u) == 0x7C00u && (h & 0x3FFu) != 0;
}
bool isBf16Nan(uint16_t b) {
  return (b & 0x7F80u) == 0x7F80u && (b & 0x7Fu) != 0;
}

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNan = std::numeric_limits<float>::quiet_NaN();

/// Independent reference: rounds finite `x` to a binary format with `fractionBits` fraction
/// bits and minimum normal exponent `minExponent` (subnormals below it), ties to even, computed
/// in double with nearbyint (the default rounding mode is round-to-nearest-even).
double roundReference(double x, int fractionBits, int minExponent) {
  if (x == 0) return x;
  int exponent = std::ilogb(x);
  if (exponent < minExponent) exponent = minExponent;
  const double quantum = std::ldexp(1.0, exponent - fractionBits);
  return std::nearbyint(x / quantum) * quantum;
}

/// Float bit patterns spread over the whole range (every exponent, many fractions), both signs.
std::vector<float> sampleFloats() {
  std::vector<float> out;
  for (uint64_t bits = 0; bits < 0x100000000ull; bits += 4093)
    out.push_back(fromBits(uint32_t(bits)));
  std::mt19937 rng(12345);
  std::uniform_real_distribution<float> unit(-2.0f, 2.0f);
  for (int i = 0; i < 200000; ++i) out.push_back(std::ldexp(unit(rng), int(rng() % 80) - 40));
  return out;
}

// ---------------------------------------------------------------------------------------------
// IEEE binary16
// ---------------------------------------------------------------------------------------------

TEST(HalfTest, KnownValues) {
  EXPECT_EQ(floatToHalf(1.0f), 0x3C00u);
  EXPECT_EQ(floatToHalf(-2.0f), 0xC000u);
  EXPECT_EQ(floatToHalf(0.5f), 0x3800u);
  EXPECT_EQ(floatToHalf(0.0f), 0x0000u);
  EXPECT_EQ(floatToHalf(-0.0f), 0x8000u);
  EXPECT_EQ(floatToHalf(65504.0f), 0x7BFFu);
  EXPECT_EQ(floatToHalf(-65504.0f), 0xFBFFu);
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -14)), 0x0400u); // smallest normal
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -24)), 0x0001u); // smallest subnormal
  EXPECT_EQ(floatToHalf(-std::ldexp(1.0f, -24)), 0x8001u);
  EXPECT_EQ(floatToHalf(std::ldexp(1023.0f, -24)), 0x03FFu); // largest subnormal
  EXPECT_EQ(floatToHalf(0.333251953125f), 0x3555u);

  EXPECT_EQ(halfToFloat(0x3C00), 1.0f);
  EXPECT_EQ(halfToFloat(0x7BFF), 65504.0f);
  EXPECT_EQ(halfToFloat(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(halfToFloat(0x03FF), std::ldexp(1023.0f, -24));
  EXPECT_EQ(halfToFloat(0x0400), std::ldexp(1.0f, -14));
  EXPECT_EQ(halfToFloat(0xC000), -2.0f);
  EXPECT_TRUE(std::signbit(halfToFloat(0x8000)));
  EXPECT_EQ(halfToFloat(0x8000), 0.0f);
  EXPECT_EQ(halfToFloat(0x7C00), kInf);
  EXPECT_EQ(halfToFloat(0xFC00), -kInf);
  EXPECT_TRUE(std::isnan(halfToFloat(0x7E00)));
}

TEST(HalfTest, OverflowToInfinity) {
  EXPECT_EQ(floatToHalf(65519.99f), 0x7BFFu); // below the midpoint: largest finite
  EXPECT_EQ(floatToHalf(65520.0f), 0x7C00u);  // midpoint ties to even: infinity
  EXPECT_EQ(floatToHalf(-65520.0f), 0xFC00u);
  EXPECT_EQ(floatToHalf(1e6f), 0x7C00u);
  EXPECT_EQ(floatToHalf(std::numeric_limits<float>::max()), 0x7C00u);
  EXPECT_EQ(floatToHalf(kInf), 0x7C00u);
  EXPECT_EQ(floatToHalf(-kInf), 0xFC00u);
}

TEST(HalfTest, NanStaysQuietNan) {
  EXPECT_TRUE(isHalfNan(floatToHalf(kNan)));
  EXPECT_TRUE(isHalfNan(floatToHalf(-kNan)));
  EXPECT_EQ(floatToHalf(-kNan) & 0x8000u, 0x8000u);
  EXPECT_TRUE(floatToHalf(kNan) & 0x0200u); // quiet bit
  // A signalling float NaN whose payload lives only in the low bits must not become infinity.
  EXPECT_TRUE(isHalfNan(floatToHalf(fromBits(0x7F800001u))));
  // Payload top bits survive.
  EXPECT_EQ(floatToHalf(fromBits(0x7FC00000u | (0x155u << 13))), 0x7E00u | 0x155u);
}

TEST(HalfTest, RoundsToNearestEven) {
  const float ulp = std::ldexp(1.0f, -10);             // at 1.0
  EXPECT_EQ(floatToHalf(1.0f + ulp / 2), 0x3C00u);     // tie, even stays
  EXPECT_EQ(floatToHalf(1.0f + 3 * ulp / 2), 0x3C02u); // tie, odd rounds up
  EXPECT_EQ(floatToHalf(std::nextafter(1.0f + ulp / 2, 2.0f)), 0x3C01u);
  EXPECT_EQ(floatToHalf(std::nextafter(1.0f + 3 * ulp / 2, 0.0f)), 0x3C01u);
  EXPECT_EQ(floatToHalf(-(1.0f + ulp / 2)), 0xBC00u);
  // Carry out of the fraction bumps the exponent: 2 - 2^-12 rounds up to 2.
  EXPECT_EQ(floatToHalf(2.0f - std::ldexp(1.0f, -12)), 0x4000u);
  // Subnormal ties: 2^-25 is half the smallest subnormal.
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -25)), 0x0000u);
  EXPECT_EQ(floatToHalf(std::nextafter(std::ldexp(1.0f, -25), 1.0f)), 0x0001u);
  EXPECT_EQ(floatToHalf(std::ldexp(3.0f, -25)), 0x0002u);
  EXPECT_EQ(floatToHalf(std::ldexp(5.0f, -25)), 0x0002u);
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -26)), 0x0000u);
  EXPECT_EQ(floatToHalf(-std::ldexp(1.0f, -30)), 0x8000u); // underflow keeps the sign
  EXPECT_EQ(floatToHalf(std::numeric_limits<float>::denorm_min()), 0x0000u);
  // Largest subnormal rounding up into the smallest normal.
  EXPECT_EQ(floatToHalf(std::ldexp(1023.5f, -24)), 0x0400u);
  EXPECT_EQ(floatToHalf(std::ldexp(1022.5f, -24)), 0x03FEu);
}

TEST(HalfTest, ExhaustiveRoundTrip) {
  for (uint32_t h = 0; h < 65536; ++h) {
    const uint16_t bits = static_cast<uint16_t>(h);
    const float f = halfToFloat(bits);
    if (isHalfNan(bits)) {
      ASSERT_TRUE(std::isnan(f)) << std::hex << h;
      ASSERT_TRUE(isHalfNan(floatToHalf(f))) << std::hex << h;
      ASSERT_EQ(floatToHalf(f) & 0x8000u, bits & 0x8000u) << std::hex << h;
    } else {
      ASSERT_EQ(floatToHalf(f), bits) << std::hex << h << " -> " << f;
    }
  }
}

TEST(HalfTest, DecodingMatchesTheFormula) {
  for (uint32_t h = 0; h < 0x7C00; ++h) {
    const int exponent = int(h >> 10), fraction = int(h & 0x3FF);
    const double expected = exponent == 0 ? std::ldexp(double(fraction), -24)
                                          : std::ldexp(1.0 + fraction / 1024.0, exponent - 15);
    ASSERT_EQ(double(halfToFloat(uint16_t(h))), expected) << std::hex << h;
    ASSERT_EQ(double(halfToFloat(uint16_t(h | 0x8000))), -expected) << std::hex << h;
  }
}

TEST(HalfTest, EncodingMatchesReferenceRounding) {
  ASSERT_EQ(std::fegetround(), FE_TONEAREST);
  for (float f : sampleFloats()) {
    if (std::isnan(f)) continue;
    const uint16_t h = floatToHalf(f);
    const double expected = roundReference(f, 10, -14);
    if (std::fabs(expected) > 65504.0 || std::isinf(f)) {
      ASSERT_EQ(h & 0x7FFFu, 0x7C00u) << f;
    } else {
      ASSERT_EQ(double(halfToFloat(h)), expected) << f;
    }
    ASSERT_EQ(h & 0x8000u, (toBits(f) >> 16) & 0x8000u) << f;
#ifdef __FLT16_MAX__
    const _Float16 native = static_cast<_Float16>(f);
    uint16_t nativeBits;
    std::memcpy(&nativeBits, &native, sizeof nativeBits);
    ASSERT_EQ(h, nativeBits) << f;
#endif
  }
}

// ---------------------------------------------------------------------------------------------
// bfloat16
// ---------------------------------------------------------------------------------------------

TEST(Bf16Test, KnownValues) {
  EXPECT_EQ(floatToBf16(1.0f), 0x3F80u);
  EXPECT_EQ(floatToBf16(-2.0f), 0xC000u);
  EXPECT_EQ(floatToBf16(0.0f), 0x0000u);
  EXPECT_EQ(floatToBf16(-0.0f), 0x8000u);
  EXPECT_EQ(floatToBf16(kInf), 0x7F80u);
  EXPECT_EQ(floatToBf16(-kInf), 0xFF80u);
  EXPECT_EQ(bf16ToFloat(0x3F80), 1.0f);
  EXPECT_EQ(bf16ToFloat(0x7F7F), fromBits(0x7F7F0000u)); // largest finite
  EXPECT_EQ(bf16ToFloat(0xFF80), -kInf);
}

TEST(Bf16Test, RoundsToNearestEven) {
  EXPECT_EQ(floatToBf16(fromBits(0x3F808000u)), 0x3F80u); // tie, even stays
  EXPECT_EQ(floatToBf16(fromBits(0x3F818000u)), 0x3F82u); // tie, odd rounds up
  EXPECT_EQ(floatToBf16(fromBits(0x3F808001u)), 0x3F81u); // above the tie
  EXPECT_EQ(floatToBf16(fromBits(0x3F817FFFu)), 0x3F81u); // below the tie
  EXPECT_EQ(floatToBf16(fromBits(0xBF818000u)), 0xBF82u);
  EXPECT_EQ(floatToBf16(fromBits(0x3FFF8000u)), 0x4000u);             // carry into the exponent
  EXPECT_EQ(floatToBf16(std::numeric_limits<float>::max()), 0x7F80u); // rounds past max: inf
  EXPECT_EQ(floatToBf16(fromBits(0x7F7F7FFFu)), 0x7F7Fu);
}

TEST(Bf16Test, NanIsPreserved) {
  EXPECT_TRUE(isBf16Nan(floatToBf16(kNan)));
  EXPECT_TRUE(isBf16Nan(floatToBf16(fromBits(0x7F800001u)))); // low-payload sNaN: not inf
  EXPECT_TRUE(isBf16Nan(floatToBf16(fromBits(0x7FFFFFFFu)))); // must not carry into sign
  EXPECT_EQ(floatToBf16(fromBits(0xFFC00000u)), 0xFFC0u);
  EXPECT_TRUE(std::isnan(bf16ToFloat(0x7FC0)));
}

TEST(Bf16Test, ExhaustiveRoundTrip) {
  for (uint32_t b = 0; b < 65536; ++b) {
    const uint16_t bits = static_cast<uint16_t>(b);
    const float f = bf16ToFloat(bits);
    ASSERT_EQ(toBits(f), b << 16);
    if (isBf16Nan(bits))
      ASSERT_TRUE(isBf16Nan(floatToBf16(f))) << std::hex << b;
    else
      ASSERT_EQ(floatToBf16(f), bits) << std::hex << b;
  }
}

TEST(Bf16Test, EncodingMatchesReferenceRounding) {
  const double maxFinite = double(bf16ToFloat(0x7F7F));
  for (float f : sampleFloats()) {
    if (std::isnan(f)) continue;
    const uint16_t b = floatToBf16(f);
    const double expected = roundReference(f, 7, -126);
    if (std::fabs(expected) > maxFinite || std::isinf(f))
      ASSERT_EQ(b & 0x7FFFu, 0x7F80u) << f;
    else
      ASSERT_EQ(double(bf16ToFloat(b)), expected) << f;
  }
}

// ---------------------------------------------------------------------------------------------
// DLFloat16
// ---------------------------------------------------------------------------------------------

const double kDlfMax = std::ldexp(1.0 + 510.0 / 512.0, 32);      // 0x7FFE
const double kDlfMinNormal = std::ldexp(1.0 + 1.0 / 512.0, -31); // 0x0001

TEST(Dlf16Test, KnownValues) {
  EXPECT_EQ(floatToDlf16(1.0f), 0x3E00u); // exponent 31, fraction 0
  EXPECT_EQ(floatToDlf16(-2.0f), 0xC000u);
  EXPECT_EQ(floatToDlf16(1.5f), 0x3F00u);
  EXPECT_EQ(floatToDlf16(0.0f), 0x0000u);
  EXPECT_EQ(floatToDlf16(-0.0f), 0x8000u);
  EXPECT_EQ(dlf16ToFloat(0x3E00), 1.0f);
  EXPECT_EQ(dlf16ToFloat(0x3F00), 1.5f);
  EXPECT_EQ(dlf16ToFloat(0xC000), -2.0f);
  EXPECT_EQ(dlf16ToFloat(0x0000), 0.0f);
  EXPECT_FALSE(std::signbit(dlf16ToFloat(0x0000)));
  EXPECT_TRUE(std::signbit(dlf16ToFloat(0x8000)));
  // Exponent field 0 with a nonzero fraction is a normal number, not a subnormal.
  EXPECT_EQ(double(dlf16ToFloat(0x0001)), kDlfMinNormal);
  EXPECT_EQ(double(dlf16ToFloat(0x8001)), -kDlfMinNormal);
  EXPECT_EQ(double(dlf16ToFloat(0x01FF)), std::ldexp(1.0 + 511.0 / 512.0, -31));
  // Exponent field 63 is normal except the all-ones pattern.
  EXPECT_EQ(double(dlf16ToFloat(0x7E00)), std::ldexp(1.0, 32));
  EXPECT_EQ(double(dlf16ToFloat(0x7FFE)), kDlfMax);
  EXPECT_EQ(double(dlf16ToFloat(0xFFFE)), -kDlfMax);
  EXPECT_EQ(dlf16ToFloat(0x7FFE), 8573157376.0f);
  EXPECT_TRUE(std::isnan(dlf16ToFloat(0x7FFF)));
  EXPECT_TRUE(std::isnan(dlf16ToFloat(0xFFFF)));
}

TEST(Dlf16Test, MaxValueAndSaturation) {
  EXPECT_EQ(floatToDlf16(float(kDlfMax)), 0x7FFEu);
  EXPECT_EQ(floatToDlf16(-float(kDlfMax)), 0xFFFEu);
  // The midpoint between the max and the (unused) next pattern ties to even: the max.
  const float midpoint = float(std::ldexp(1.0 + 1021.0 / 1024.0, 32));
  EXPECT_EQ(floatToDlf16(midpoint), 0x7FFEu);
  EXPECT_EQ(floatToDlf16(std::nextafter(midpoint, kInf)), 0x7FFFu);
  EXPECT_EQ(floatToDlf16(-std::nextafter(midpoint, kInf)), 0xFFFFu);
  EXPECT_EQ(floatToDlf16(1e10f), 0x7FFFu);
  EXPECT_EQ(floatToDlf16(-1e10f), 0xFFFFu);
  EXPECT_EQ(floatToDlf16(std::numeric_limits<float>::max()), 0x7FFFu);
  EXPECT_EQ(floatToDlf16(kInf), 0x7FFFu);
  EXPECT_EQ(floatToDlf16(-kInf), 0xFFFFu);
  EXPECT_EQ(floatToDlf16(kNan) & 0x7FFFu, 0x7FFFu);
  EXPECT_EQ(floatToDlf16(-kNan), 0xFFFFu);
}

TEST(Dlf16Test, FlushesBelowSmallestNormalToSignedZero) {
  EXPECT_EQ(floatToDlf16(std::ldexp(1.0f, -32)), 0x0000u);
  EXPECT_EQ(floatToDlf16(-std::ldexp(1.0f, -32)), 0x8000u);
  EXPECT_EQ(floatToDlf16(std::ldexp(1.0f, -31)), 0x0000u); // would be exponent 0, fraction 0
  EXPECT_EQ(floatToDlf16(-std::ldexp(1.0f, -31)), 0x8000u);
  EXPECT_EQ(floatToDlf16(std::ldexp(1.0f, -100)), 0x0000u);
  EXPECT_EQ(floatToDlf16(std::numeric_limits<float>::denorm_min()), 0x0000u);
  EXPECT_EQ(floatToDlf16(-std::numeric_limits<float>::denorm_min()), 0x8000u);
  EXPECT_EQ(floatToDlf16(float(kDlfMinNormal)), 0x0001u);
  // Ties at the bottom of the range: halfway between "2^-31" (zero) and 0x0001 goes to zero.
  EXPECT_EQ(floatToDlf16(float(std::ldexp(1.0 + 1.0 / 1024.0, -31))), 0x0000u);
  EXPECT_EQ(floatToDlf16(std::nextafter(float(std::ldexp(1.0 + 1.0 / 1024.0, -31)), 1.0f)),
            0x0001u);
  EXPECT_EQ(floatToDlf16(float(std::ldexp(1.0 + 3.0 / 1024.0, -31))), 0x0002u);
}

TEST(Dlf16Test, RoundsToNearestEven) {
  const float ulp = std::ldexp(1.0f, -9); // at 1.0
  EXPECT_EQ(floatToDlf16(1.0f + ulp / 2), 0x3E00u);
  EXPECT_EQ(floatToDlf16(1.0f + 3 * ulp / 2), 0x3E02u);
  EXPECT_EQ(floatToDlf16(std::nextafter(1.0f + ulp / 2, 2.0f)), 0x3E01u);
  EXPECT_EQ(floatToDlf16(std::nextafter(1.0f + 3 * ulp / 2, 0.0f)), 0x3E01u);
  EXPECT_EQ(floatToDlf16(2.0f - std::ldexp(1.0f, -11)), 0x4000u); // carry into the exponent
}

TEST(Dlf16Test, RoundTripOfEveryNonNanPattern) {
  for (uint32_t d = 0; d < 65536; ++d) {
    const uint16_t bits = static_cast<uint16_t>(d);
    const float f = dlf16ToFloat(bits);
    if ((bits & 0x7FFFu) == 0x7FFFu) {
      ASSERT_TRUE(std::isnan(f));
      continue;
    }
    ASSERT_FALSE(std::isnan(f)) << std::hex << d;
    ASSERT_FALSE(std::isinf(f)) << std::hex << d;
    ASSERT_EQ(floatToDlf16(f), bits) << std::hex << d << " -> " << f;
    // The formula from the header.
    const int exponent = int((d >> 9) & 0x3F), fraction = int(d & 0x1FF);
    const double magnitude =
        (d & 0x7FFF) == 0 ? 0.0 : std::ldexp(1.0 + fraction / 512.0, exponent - 31);
    ASSERT_EQ(double(f), (d & 0x8000) ? -magnitude : magnitude) << std::hex << d;
  }
}

TEST(Dlf16Test, DecodingIsMonotonic) {
  float previous = dlf16ToFloat(0);
  for (uint32_t d = 1; d < 0x7FFF; ++d) {
    const float f = dlf16ToFloat(uint16_t(d));
    ASSERT_GT(f, previous) << std::hex << d;
    previous = f;
  }
}

TEST(Dlf16Test, RelativeErrorWithinHalfUlp) {
  for (float f : sampleFloats()) {
    if (!std::isfinite(f)) continue;
    const double magnitude = std::fabs(double(f));
    if (magnitude < kDlfMinNormal || magnitude > kDlfMax) continue;
    const double decoded = dlf16ToFloat(floatToDlf16(f));
    ASSERT_LE(std::fabs(decoded - f) / magnitude, std::ldexp(1.0, -10)) << f;
  }
}

TEST(Dlf16Test, EncodingMatchesReferenceRounding) {
  for (float f : sampleFloats()) {
    if (std::isnan(f)) continue;
    const uint16_t d = floatToDlf16(f);
    ASSERT_EQ(d & 0x8000u, (toBits(f) >> 16) & 0x8000u) << f;
    const double magnitude = std::fabs(double(f));
    double expected = magnitude < std::ldexp(1.0, -31) ? 0.0 : roundReference(magnitude, 9, -31);
    if (expected == std::ldexp(1.0, -31)) expected = 0.0; // that pattern is the zero
    if (expected > kDlfMax || std::isinf(f))
      ASSERT_EQ(d & 0x7FFFu, 0x7FFFu) << f;
    else
      ASSERT_EQ(std::fabs(double(dlf16ToFloat(d))), expected) << f;
  }
}

// ---------------------------------------------------------------------------------------------
// Format selection and bulk conversion
// ---------------------------------------------------------------------------------------------

TEST(Fp16FormatTest, ParseAndName) {
  EXPECT_EQ(parseFp16Format("ieee"), Fp16Format::Ieee);
  EXPECT_EQ(parseFp16Format("dlfloat16"), Fp16Format::DLFloat16);
  EXPECT_FALSE(parseFp16Format("IEEE").has_value());
  EXPECT_FALSE(parseFp16Format("dlf16").has_value());
  EXPECT_FALSE(parseFp16Format("").has_value());
  for (Fp16Format f : {Fp16Format::Ieee, Fp16Format::DLFloat16})
    EXPECT_EQ(parseFp16Format(fp16FormatName(f)), f);
}

TEST(Fp16FormatTest, EncodeDecodeDispatch) {
  EXPECT_EQ(encodeF16(1.0f, Fp16Format::Ieee), 0x3C00u);
  EXPECT_EQ(encodeF16(1.0f, Fp16Format::DLFloat16), 0x3E00u);
  EXPECT_EQ(decodeF16(0x3C00, Fp16Format::Ieee), 1.0f);
  EXPECT_EQ(decodeF16(0x3E00, Fp16Format::DLFloat16), 1.0f);
  EXPECT_EQ(encodeF16(1e6f, Fp16Format::Ieee), 0x7C00u);
  EXPECT_EQ(encodeF16(1e6f, Fp16Format::DLFloat16), floatToDlf16(1e6f));
}

TEST(BulkConversionTest, F16IeeeIsLittleEndian) {
  const float src[] = {1.0f, -2.0f, 65504.0f, 0.0f};
  uint8_t bytes[8];
  encodeFromFloat(DType::F16, src, bytes, 4, Fp16Format::Ieee);
  const uint8_t expected[] = {0x00, 0x3C, 0x00, 0xC0, 0xFF, 0x7B, 0x00, 0x00};
  EXPECT_EQ(std::memcmp(bytes, expected, sizeof bytes), 0);
  float back[4];
  decodeToFloat(DType::F16, bytes, back, 4, Fp16Format::Ieee);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(back[i], src[i]);
}

TEST(BulkConversionTest, MatchesScalarConversions) {
  std::vector<float> src;
  for (float f : sampleFloats()) src.push_back(f);
  const size_t n = src.size();
  std::vector<uint8_t> bytes(n * 4);
  std::vector<float> back(n);
  for (Fp16Format format : {Fp16Format::Ieee, Fp16Format::DLFloat16}) {
    encodeFromFloat(DType::F16, src.data(), bytes.data(), n, format);
    decodeToFloat(DType::F16, bytes.data(), back.data(), n, format);
    for (size_t i = 0; i < n; ++i) {
      const uint16_t bits = uint16_t(bytes[2 * i] | (bytes[2 * i + 1] << 8));
      ASSERT_EQ(bits, encodeF16(src[i], format)) << i;
      const float expected = decodeF16(bits, format);
      if (std::isnan(expected))
        ASSERT_TRUE(std::isnan(back[i]));
      else
        ASSERT_EQ(toBits(back[i]), toBits(expected)) << i;
    }
  }
  encodeFromFloat(DType::BF16, src.data(), bytes.data(), n, Fp16Format::Ieee);
  decodeToFloat(DType::BF16, bytes.data(), back.data(), n, Fp16Format::Ieee);
  for (size_t i = 0; i < n; ++i) {
    const uint16_t bits = uint16_t(bytes[2 * i] | (bytes[2 * i + 1] << 8));
    ASSERT_EQ(bits, floatToBf16(src[i])) << i;
    ASSERT_EQ(toBits(back[i]), uint32_t(bits) << 16) << i;
  }
  encodeFromFloat(DType::F32, src.data(), bytes.data(), n, Fp16Format::DLFloat16);
  EXPECT_EQ(bytes[0] | (bytes[1] << 8) | (bytes[2] << 16) | (uint32_t(bytes[3]) << 24),
            toBits(src[0]));
  decodeToFloat(DType::F32, bytes.data(), back.data(), n, Fp16Format::DLFloat16);
  EXPECT_EQ(std::memcmp(back.data(), src.data(), n * 4), 0);
}

TEST(BulkConversionTest, ZeroElementsIsANoOp) {
  decodeToFloat(DType::F16, nullptr, nullptr, 0, Fp16Format::Ieee);
  encodeFromFloat(DType::BF16, nullptr, nullptr, 0, Fp16Format::Ieee);
}

TEST(BulkConversionTest, IntegersAreRejected) {
  const uint8_t bytes[4] = {1, 0, 0, 0};
  float f = 0;
  uint8_t out[4];
  EXPECT_THROW(decodeToFloat(DType::I32, bytes, &f, 1, Fp16Format::Ieee), Error);
  EXPECT_THROW(encodeFromFloat(DType::I32, &f, out, 1, Fp16Format::Ieee), Error);
  try {
    decodeToFloat(DType::I32, bytes, &f, 1, Fp16Format::Ieee);
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("i32"), std::string::npos) << e.what();
  }
}

} // namespace
} // namespace chipless
