#include "support/numerics_bulk.h"

#include <cstdlib>
#include <cstring>
#include <string>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define CHIPLESS_HAVE_X86_BULK 1
#endif

namespace chipless {
namespace {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "the bulk converters read and write 16-bit values in host byte order");

/// The loops below are written once and compiled twice: into the portable functions and,
/// inlined, into the AVX2 ones (always_inline lets each caller's target compile them).
#define CHIPLESS_BULK_INLINE inline __attribute__((always_inline))

/// DLFloat16 -> float without branches: dlf16ToFloat element by element.
CHIPLESS_BULK_INLINE void decodeDlfLoop(const uint8_t* src, float* dst, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    uint16_t h;
    std::memcpy(&h, src + 2 * i, 2);
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    const uint32_t magnitude = h & 0x7FFFu;
    uint32_t bits = sign | ((magnitude << 14) + ((127u - 31u) << 23));
    bits = magnitude == 0 ? sign : bits;
    bits = magnitude == 0x7FFFu ? (sign | 0x7FC00000u) : bits;
    std::memcpy(dst + i, &bits, 4);
  }
}

/// float -> DLFloat16 without branches: floatToDlf16 element by element. Magnitudes are
/// below 2^31, so signed arithmetic (which vectorises best) cannot overflow; the rounded
/// value of a magnitude below the smallest normal is garbage and selected away.
CHIPLESS_BULK_INLINE void encodeDlfLoop(const float* src, uint8_t* dst, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    uint32_t bits;
    std::memcpy(&bits, src + i, 4);
    const int32_t sign = static_cast<int32_t>((bits >> 16) & 0x8000u);
    const int32_t magnitude = static_cast<int32_t>(bits & 0x7FFFFFFFu);
    const int32_t rebiased = magnitude - ((127 - 31) << 23);
    // Shift right by 14 rounding to nearest, ties to even.
    const int32_t rounded = (rebiased + 0x1FFF + ((rebiased >> 14) & 1)) >> 14;
    int32_t result = rounded >= 0x7FFF ? 0x7FFF : rounded; // past the largest finite value
    result = magnitude < ((127 - 31) << 23) ? 0 : result;  // below 2^-31: signed zero
    result = magnitude >= 0x7F800000 ? 0x7FFF : result;    // infinity and NaN
    const uint16_t h = static_cast<uint16_t>(sign | result);
    std::memcpy(dst + 2 * i, &h, 2);
  }
}

/// bfloat16 -> float: the upper half of the float.
CHIPLESS_BULK_INLINE void decodeBf16Loop(const uint8_t* src, float* dst, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    uint16_t h;
    std::memcpy(&h, src + 2 * i, 2);
    const uint32_t bits = static_cast<uint32_t>(h) << 16;
    std::memcpy(dst + i, &bits, 4);
  }
}

/// float -> bfloat16 without branches: floatToBf16 element by element.
CHIPLESS_BULK_INLINE void encodeBf16Loop(const float* src, uint8_t* dst, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    uint32_t bits;
    std::memcpy(&bits, src + i, 4);
    const bool nan = static_cast<int32_t>(bits & 0x7FFFFFFFu) > 0x7F800000;
    const uint32_t rounded = (bits + 0x7FFFu + ((bits >> 16) & 1u)) >> 16;
    const uint16_t h = static_cast<uint16_t>(nan ? ((bits >> 16) | 0x0040u) : rounded);
    std::memcpy(dst + 2 * i, &h, 2);
  }
}

/// binary16 -> float through the exact table.
CHIPLESS_BULK_INLINE void decodeHalfTableLoop(const uint8_t* src, float* dst, size_t n) {
  const float* table = halfToFloatTable();
  for (size_t i = 0; i < n; ++i) {
    uint16_t h;
    std::memcpy(&h, src + 2 * i, 2);
    dst[i] = table[h];
  }
}

/// float -> binary16 with the scalar encoder.
CHIPLESS_BULK_INLINE void encodeHalfScalarLoop(const float* src, uint8_t* dst, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const uint16_t h = floatToHalf(src[i]);
    std::memcpy(dst + 2 * i, &h, 2);
  }
}

void decodePortable(const uint8_t* src, float* dst, size_t n, Fp16Format format) {
  if (format == Fp16Format::DLFloat16)
    decodeDlfLoop(src, dst, n);
  else
    decodeHalfTableLoop(src, dst, n);
}

void encodePortable(const float* src, uint8_t* dst, size_t n, Fp16Format format) {
  if (format == Fp16Format::DLFloat16)
    encodeDlfLoop(src, dst, n);
  else
    encodeHalfScalarLoop(src, dst, n);
}

#ifdef CHIPLESS_HAVE_X86_BULK
__attribute__((target("avx2,f16c"))) void decodeAvx2(const uint8_t* src, float* dst, size_t n,
                                                     Fp16Format format) {
  if (format == Fp16Format::DLFloat16) return decodeDlfLoop(src, dst, n);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 2 * i));
    _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(h));
  }
  decodeHalfTableLoop(src + 2 * i, dst + i, n - i);
}

__attribute__((target("avx2,f16c"))) void encodeAvx2(const float* src, uint8_t* dst, size_t n,
                                                     Fp16Format format) {
  if (format == Fp16Format::DLFloat16) return encodeDlfLoop(src, dst, n);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_loadu_ps(src + i);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + 2 * i),
                     _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
  }
  encodeHalfScalarLoop(src + i, dst + 2 * i, n - i);
}

__attribute__((target("avx2"))) void decodeBf16Avx2(const uint8_t* src, float* dst, size_t n) {
  decodeBf16Loop(src, dst, n);
}

__attribute__((target("avx2"))) void encodeBf16Avx2(const float* src, uint8_t* dst, size_t n) {
  encodeBf16Loop(src, dst, n);
}
#endif

BulkPath detectBulkPath() {
  // CHIPLESS_PORTABLE_NUMERICS=1 forces the portable loops (to check them end to end).
  const char* force = std::getenv("CHIPLESS_PORTABLE_NUMERICS");
  if (force && std::string(force) != "0") return BulkPath::Portable;
#ifdef CHIPLESS_HAVE_X86_BULK
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c")) return BulkPath::F16cAvx2;
#endif
  return BulkPath::Portable;
}

} // namespace

BulkPath bestBulkPath() {
  static const BulkPath path = detectBulkPath();
  return path;
}

const char* bulkPathName(BulkPath path) {
  return path == BulkPath::F16cAvx2 ? "f16c+avx2" : "portable";
}

void decodeF16Bulk(const uint8_t* src, float* dst, size_t n, Fp16Format format, BulkPath path) {
#ifdef CHIPLESS_HAVE_X86_BULK
  if (path == BulkPath::F16cAvx2) return decodeAvx2(src, dst, n, format);
#endif
  decodePortable(src, dst, n, format);
}

void encodeF16Bulk(const float* src, uint8_t* dst, size_t n, Fp16Format format, BulkPath path) {
#ifdef CHIPLESS_HAVE_X86_BULK
  if (path == BulkPath::F16cAvx2) return encodeAvx2(src, dst, n, format);
#endif
  encodePortable(src, dst, n, format);
}

void decodeF16Bulk(const uint8_t* src, float* dst, size_t n, Fp16Format format) {
  decodeF16Bulk(src, dst, n, format, bestBulkPath());
}

void encodeF16Bulk(const float* src, uint8_t* dst, size_t n, Fp16Format format) {
  encodeF16Bulk(src, dst, n, format, bestBulkPath());
}

void decodeBf16Bulk(const uint8_t* src, float* dst, size_t n) {
#ifdef CHIPLESS_HAVE_X86_BULK
  if (bestBulkPath() == BulkPath::F16cAvx2) return decodeBf16Avx2(src, dst, n);
#endif
  decodeBf16Loop(src, dst, n);
}

void encodeBf16Bulk(const float* src, uint8_t* dst, size_t n) {
#ifdef CHIPLESS_HAVE_X86_BULK
  if (bestBulkPath() == BulkPath::F16cAvx2) return encodeBf16Avx2(src, dst, n);
#endif
  encodeBf16Loop(src, dst, n);
}

} // namespace chipless
