#include "support/numerics.h"

#include "support/error.h"
#include "support/float_bits.h"
#include "support/numerics_bulk.h"

#include <vector>

namespace chipless {
namespace {

/// Shifts `value` right by `shift` (1..31) bits rounding to nearest, ties to even.
inline uint32_t shiftRightRne(uint32_t value, unsigned shift) {
  const uint32_t half = 1u << (shift - 1);
  const uint32_t rest = value & ((1u << shift) - 1);
  uint32_t result = value >> shift;
  if (rest > half || (rest == half && (result & 1u))) ++result;
  return result;
}

/// Exact IEEE binary16 -> float by bit manipulation; used once to fill the lookup table.
float halfToFloatExact(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exponent = (h >> 10) & 0x1Fu;
  uint32_t fraction = h & 0x3FFu;
  if (exponent == 0x1F) { // infinity or NaN (quieted, payload kept)
    const uint32_t quiet = fraction != 0 ? 0x00400000u : 0u;
    return floatOf(sign | 0x7F800000u | quiet | (fraction << 13));
  }
  if (exponent == 0) {
    if (fraction == 0) return floatOf(sign);
    // Subnormal: normalise so that the implicit bit (0x400) is set.
    exponent = 1;
    while ((fraction & 0x400u) == 0) {
      fraction <<= 1;
      --exponent;
    }
    fraction &= 0x3FFu;
  }
  // Rebias from 15 to 127; `exponent` may have gone to zero or below for subnormals, which the
  // unsigned arithmetic handles because 112 + exponent stays positive (smallest is 112 - 9).
  return floatOf(sign | ((exponent + 112u) << 23) | (fraction << 13));
}

/// All 65536 binary16 values as floats, built on first use (thread-safe static init).
const float* halfTable() {
  static const std::vector<float> table = [] {
    std::vector<float> t(65536);
    for (uint32_t h = 0; h < 65536; ++h) t[h] = halfToFloatExact(static_cast<uint16_t>(h));
    return t;
  }();
  return table.data();
}

/// Little-endian 32-bit load and store.
inline uint32_t load32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) |
         (static_cast<uint32_t>(p[2]) << 16) | (static_cast<uint32_t>(p[3]) << 24);
}
inline void store32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

/// The error for element types that must not go through float.
[[noreturn]] void throwNotFloat(DType type, const char* what) {
  throw Error(std::string(what) + ": element type " + dtypeName(type) +
              " is not a float type (integers are never converted through float)");
}

} // namespace

uint16_t floatToHalf(float value) {
  const uint32_t bits = bitsOf(value);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t magnitude = bits & 0x7FFFFFFFu;
  if (magnitude >= 0x7F800000u) { // infinity or NaN
    if (magnitude == 0x7F800000u) return sign | 0x7C00u;
    return static_cast<uint16_t>(sign | 0x7E00u | ((magnitude >> 13) & 0x3FFu));
  }
  if (magnitude >= 0x477FF000u) return sign | 0x7C00u; // >= 65520 rounds past 65504
  if (magnitude >= 0x38800000u) {                      // normal result (>= 2^-14)
    // Rebias 127 -> 15 and round the 23-bit fraction to 10 bits; a carry out of the fraction
    // correctly bumps the exponent.
    const uint32_t rebiased = magnitude - ((127u - 15u) << 23);
    return static_cast<uint16_t>(sign | shiftRightRne(rebiased, 13));
  }
  if (magnitude <= 0x33000000u) return sign; // <= 2^-25: rounds to zero (the tie goes to even 0)
  // Subnormal result: units of 2^-24. The significand m (24 bits) scaled by 2^(e-150) in units
  // of 2^-24 is m >> (126 - e), with e in [102, 112] so the shift is 14..24.
  const uint32_t exponent = magnitude >> 23;
  const uint32_t significand = (magnitude & 0x7FFFFFu) | 0x800000u;
  return static_cast<uint16_t>(sign | shiftRightRne(significand, 126u - exponent));
}

float halfToFloat(uint16_t bits) {
  return halfTable()[bits];
}

const float* halfToFloatTable() {
  return halfTable();
}

uint16_t floatToBf16(float value) {
  const uint32_t bits = bitsOf(value);
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint16_t>((bits >> 16) | 0x0040u);
  // Overflow rounds into the infinity pattern by itself.
  return static_cast<uint16_t>((bits + 0x7FFFu + ((bits >> 16) & 1u)) >> 16);
}

uint16_t floatToDlf16(float value) {
  const uint32_t bits = bitsOf(value);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t magnitude = bits & 0x7FFFFFFFu;
  if (magnitude >= 0x7F800000u) return sign | 0x7FFFu;        // infinity and NaN
  if (magnitude < ((127u - 31u) << 23)) return sign;          // below 2^-31: flush to zero
  const uint32_t rebiased = magnitude - ((127u - 31u) << 23); // exponent field now e - 127 + 31
  const uint32_t rounded = shiftRightRne(rebiased, 23 - 9);
  // Past the largest finite value (including exponents above 63): saturate.
  if (rounded >= 0x7FFFu) return sign | 0x7FFFu;
  return static_cast<uint16_t>(sign | rounded); // 0 when |x| rounded to 2^-31: signed zero
}

float dlf16ToFloat(uint16_t bits) {
  const uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  const uint32_t magnitude = bits & 0x7FFFu;
  if (magnitude == 0) return floatOf(sign);
  if (magnitude == 0x7FFFu) return floatOf(sign | 0x7FC00000u);
  // Exponent field e (0..63) becomes e - 31 + 127; the fraction moves up 14 bits.
  return floatOf(sign | ((magnitude << 14) + ((127u - 31u) << 23)));
}

uint16_t encodeF16(float value, Fp16Format format) {
  return format == Fp16Format::DLFloat16 ? floatToDlf16(value) : floatToHalf(value);
}

float decodeF16(uint16_t bits, Fp16Format format) {
  return format == Fp16Format::DLFloat16 ? dlf16ToFloat(bits) : halfToFloat(bits);
}

std::optional<Fp16Format> parseFp16Format(const std::string& name) {
  if (name == "ieee") return Fp16Format::Ieee;
  if (name == "dlfloat16") return Fp16Format::DLFloat16;
  return std::nullopt;
}

const char* fp16FormatName(Fp16Format format) {
  return format == Fp16Format::DLFloat16 ? "dlfloat16" : "ieee";
}

void decodeToFloat(DType type, const uint8_t* src, float* dst, size_t n, Fp16Format format) {
  switch (type) {
  case DType::F16:
    decodeF16Bulk(src, dst, n, format);
    return;
  case DType::BF16:
    decodeBf16Bulk(src, dst, n);
    return;
  case DType::F32:
    for (size_t i = 0; i < n; ++i) dst[i] = floatOf(load32(src + 4 * i));
    return;
  case DType::I32:
  case DType::I8:
  case DType::I64:
    break;
  }
  throwNotFloat(type, "decodeToFloat");
}

void encodeFromFloat(DType type, const float* src, uint8_t* dst, size_t n, Fp16Format format) {
  switch (type) {
  case DType::F16:
    encodeF16Bulk(src, dst, n, format);
    return;
  case DType::BF16:
    encodeBf16Bulk(src, dst, n);
    return;
  case DType::F32:
    for (size_t i = 0; i < n; ++i) store32(dst + 4 * i, bitsOf(src[i]));
    return;
  case DType::I32:
  case DType::I8:
  case DType::I64:
    break;
  }
  throwNotFloat(type, "encodeFromFloat");
}

} // namespace chipless
