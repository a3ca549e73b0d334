#pragma once
/// Bulk conversions between the 16-bit float formats of support/numerics.h and float: the
/// same bits as the per-element encoders and decoders there, many elements at a time.
///
/// The simulator converts every stick it computes on and the runtime every tensor it copies,
/// so these loops dominate functional runs. Two implementations give identical results:
/// - Portable: plain C++ on any CPU (a table for binary16 decoding, branch-free loops the
///   compiler vectorises with the baseline SSE2 for DLFloat16 and bfloat16);
/// - F16cAvx2: x86-64 CPUs with F16C and AVX2 (checked once at run time, the project is
///   built for generic x86-64): vcvtph2ps / vcvtps2ph for binary16 (round to nearest even,
///   the same NaN quieting as floatToHalf), 8-wide integer code for DLFloat16.
/// Tests check both against the scalar functions on every 16-bit pattern and on samples of
/// every float exponent.
#include "support/numerics.h"

#include <cstddef>
#include <cstdint>

namespace chipless {

/// An implementation of the bulk conversions.
enum class BulkPath { Portable, F16cAvx2 };

/// The fastest implementation this CPU can run (F16cAvx2 where the CPU has F16C and AVX2).
BulkPath bestBulkPath();

/// "portable" or "f16c+avx2".
const char* bulkPathName(BulkPath path);

/// Decodes `n` little-endian 16-bit values of `format` at `src` into floats, exactly as
/// decodeF16 does element by element.
void decodeF16Bulk(const uint8_t* src, float* dst, size_t n, Fp16Format format);

/// Encodes `n` floats as little-endian 16-bit values of `format` at `dst`, exactly as
/// encodeF16 does element by element.
void encodeF16Bulk(const float* src, uint8_t* dst, size_t n, Fp16Format format);

/// Decodes `n` little-endian bfloat16 values at `src` (bf16ToFloat per element).
void decodeBf16Bulk(const uint8_t* src, float* dst, size_t n);

/// Encodes `n` floats as little-endian bfloat16 at `dst` (floatToBf16 per element).
void encodeBf16Bulk(const float* src, uint8_t* dst, size_t n);

/// decodeF16Bulk with a chosen implementation (for tests and benchmarks; F16cAvx2 only on a
/// CPU where bestBulkPath() returns it).
void decodeF16Bulk(const uint8_t* src, float* dst, size_t n, Fp16Format format, BulkPath path);

/// encodeF16Bulk with a chosen implementation (for tests and benchmarks, as above).
void encodeF16Bulk(const float* src, uint8_t* dst, size_t n, Fp16Format format, BulkPath path);

} // namespace chipless
