#pragma once
/// 16-bit float formats of the host and the device, and conversions to and from float.
///
/// Three 16-bit formats appear on the platform:
/// - IEEE binary16 ("f16", numpy float16): 1 sign, 5 exponent bits (bias 15), 10 fraction bits,
///   subnormals, +-infinity and NaN. Largest finite value 65504.
/// - bfloat16 ("bf16"): the upper half of an IEEE binary32: 1 sign, 8 exponent bits (bias 127),
///   7 fraction bits; same range as float, infinities, NaN.
/// - IBM DLFloat16 (the Spyre/NNPA "dlf16"): 1 sign, 6 exponent bits (bias 31), 9 fraction bits.
///   Every pattern except the ones below is a normal number (-1)^s * 1.f * 2^(e-31), including
///   exponent field 0 with a nonzero fraction and exponent field 63:
///     * 0x0000 / 0x8000 are +0 / -0 (there are no subnormals: results whose magnitude rounds
///       below 0x0001 = (1 + 2^-9) * 2^-31 flush to a zero of the same sign);
///     * 0x7FFF / 0xFFFF (all exponent and fraction bits set) is the single NaN/infinity code:
///       float NaN and +-inf encode to it, as does every finite value that rounds past the
///       largest finite value 0x7FFE = (2 - 2^-8) * 2^32 ~= 8.5731e9; it decodes to a quiet NaN.
///
/// All encoders round to nearest, ties to even. All decoders are exact. 16-bit values are read
/// and written little-endian, as .npy files and the device memory store them.
#include "support/dtype.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>

namespace chipless {

/// Encodes a float as IEEE binary16: round-to-nearest-even, subnormals, values that round past
/// 65504 become +-inf, NaN becomes a quiet NaN keeping the sign and the top payload bits.
uint16_t floatToHalf(float value);

/// Decodes IEEE binary16 exactly (table lookup). Signalling NaNs come back quiet.
float halfToFloat(uint16_t bits);

/// The table halfToFloat reads: all 65536 binary16 patterns as floats (for bulk decoders).
const float* halfToFloatTable();

/// Encodes a float as bfloat16 with round-to-nearest-even; NaN stays a (quiet) NaN with its sign.
uint16_t floatToBf16(float value);

/// Decodes bfloat16 exactly: the 16 bits become the upper half of a float. Inline because the
/// simulator's inner loops call it per element.
inline float bf16ToFloat(uint16_t bits) {
  const uint32_t wide = static_cast<uint32_t>(bits) << 16;
  float value;
  std::memcpy(&value, &wide, sizeof value);
  return value;
}

/// Encodes a float as DLFloat16 (see the top of this file): round-to-nearest-even, flush to
/// signed zero below the smallest normal, saturation to the NaN/infinity code 0x7FFF|sign.
uint16_t floatToDlf16(float value);

/// Decodes DLFloat16 exactly; the NaN/infinity code decodes to a quiet NaN.
float dlf16ToFloat(uint16_t bits);

/// Which 16-bit float the device's F16 data uses: IEEE binary16 or IBM DLFloat16. The host
/// (numpy) side is always IEEE; the simulator converts at the boundary.
enum class Fp16Format { Ieee, DLFloat16 };

/// Encodes a float in the given 16-bit format.
uint16_t encodeF16(float value, Fp16Format format);

/// Decodes a 16-bit pattern of the given format.
float decodeF16(uint16_t bits, Fp16Format format);

/// Parses "ieee" or "dlfloat16" (as written in architecture files and on command lines).
std::optional<Fp16Format> parseFp16Format(const std::string& name);

/// The name parseFp16Format accepts for `format`: "ieee" or "dlfloat16".
const char* fp16FormatName(Fp16Format format);

/// Decodes `n` little-endian elements of type `type` (F16 in `format`, BF16 or F32) from `src`
/// into floats. Throws chipless::Error for I32 and I8: integers must not silently pass through
/// float.
void decodeToFloat(DType type, const uint8_t* src, float* dst, size_t n, Fp16Format format);

/// Encodes `n` floats into little-endian elements of type `type` (F16 in `format`, BF16 or F32)
/// at `dst`. Throws chipless::Error for I32 and I8.
void encodeFromFloat(DType type, const float* src, uint8_t* dst, size_t n, Fp16Format format);

} // namespace chipless
