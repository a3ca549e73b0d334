#include "sim/tpu/mxu_math.h"

#include "support/numerics.h"

#include <cstring>
#include <vector>

namespace chipless::sim::tpu {

namespace {

float loadF32(const uint8_t* p) {
  float v;
  std::memcpy(&v, p, 4);
  return v;
}

float loadBf16(const uint8_t* p) {
  uint16_t h;
  std::memcpy(&h, p, 2);
  return bf16ToFloat(h);
}

float roundBf16(float x) {
  return bf16ToFloat(floatToBf16(x));
}

/// Splits x into `pieces` bf16 values whose sum approximates x (1, 2 or 3 pieces).
void splitBf16(float x, int pieces, float* out) {
  float rest = x;
  for (int i = 0; i < pieces; ++i) {
    out[i] = roundBf16(rest);
    rest -= out[i];
  }
}

void foldInt8(const FoldOperands& f) {
  std::vector<int32_t> w(static_cast<size_t>(f.k * f.n));
  for (int64_t i = 0; i < f.k; ++i)
    for (int64_t j = 0; j < f.n; ++j)
      w[i * f.n + j] = static_cast<int8_t>(f.transposeRhs ? f.rhs[j * f.rhsStride + i]
                                                          : f.rhs[i * f.rhsStride + j]);
  std::vector<uint32_t> s(static_cast<size_t>(f.n));
  for (int64_t r = 0; r < f.rows; ++r) {
    std::fill(s.begin(), s.end(), 0u);
    const uint8_t* a = f.lhs + r * f.lhsStride;
    for (int64_t i = 0; i < f.k; ++i) {
      int32_t x = static_cast<int8_t>(a[i]);
      const int32_t* wr = &w[i * f.n];
      for (int64_t j = 0; j < f.n; ++j)
        s[j] += static_cast<uint32_t>(x) * static_cast<uint32_t>(wr[j]); // wraps like int32
    }
    uint8_t* o = f.out + r * f.outStride;
    for (int64_t j = 0; j < f.n; ++j) {
      uint32_t v = s[j];
      if (f.accumulate) {
        uint32_t old;
        std::memcpy(&old, o + 4 * j, 4);
        v += old;
      }
      std::memcpy(o + 4 * j, &v, 4);
    }
  }
}

} // namespace

void foldMatmul(const FoldOperands& f) {
  if (f.rows <= 0 || f.k <= 0 || f.n <= 0) return;
  if (f.type == DType::I8) return foldInt8(f);
  // Weight pieces: pieces[p][i*n + j]; activations are split per row the same way.
  const int pieces = f.type == DType::BF16 ? 1 : f.fp32Passes == 1 ? 1 : f.fp32Passes == 3 ? 2 : 3;
  // Pairs (activation piece, weight piece) the passes multiply: 1 pass: (0,0); 3 passes:
  // (0,0), (0,1), (1,0); 6 passes: every pair with i + j <= 2.
  std::vector<std::pair<int, int>> pairs;
  for (int i = 0; i < pieces; ++i)
    for (int j = 0; j < pieces; ++j)
      if (i + j < pieces) pairs.push_back({i, j});
  std::vector<std::vector<float>> w(pieces, std::vector<float>(static_cast<size_t>(f.k * f.n)));
  float split[3];
  for (int64_t i = 0; i < f.k; ++i)
    for (int64_t j = 0; j < f.n; ++j) {
      const int64_t esize = f.type == DType::BF16 ? 2 : 4;
      const uint8_t* p = f.transposeRhs ? f.rhs + j * f.rhsStride + i * esize
                                        : f.rhs + i * f.rhsStride + j * esize;
      float x = f.type == DType::BF16 ? loadBf16(p) : loadF32(p);
      splitBf16(x, pieces, split);
      for (int q = 0; q < pieces; ++q) w[q][i * f.n + j] = split[q];
    }
  std::vector<float> s(static_cast<size_t>(f.n));
  std::vector<std::vector<float>> a(pieces, std::vector<float>(static_cast<size_t>(f.k)));
  for (int64_t r = 0; r < f.rows; ++r) {
    const uint8_t* row = f.lhs + r * f.lhsStride;
    for (int64_t i = 0; i < f.k; ++i) {
      float x = f.type == DType::BF16 ? loadBf16(row + 2 * i) : loadF32(row + 4 * i);
      splitBf16(x, pieces, split);
      for (int q = 0; q < pieces; ++q) a[q][i] = split[q];
    }
    std::fill(s.begin(), s.end(), 0.0f);
    for (const auto& [pa, pw] : pairs)
      for (int64_t i = 0; i < f.k; ++i) {
        const float x = a[pa][i];
        const float* wr = &w[pw][i * f.n];
        for (int64_t j = 0; j < f.n; ++j) s[j] += x * wr[j];
      }
    uint8_t* o = f.out + r * f.outStride;
    for (int64_t j = 0; j < f.n; ++j) {
      float v = s[j];
      if (f.accumulate) v += loadF32(o + 4 * j);
      std::memcpy(o + 4 * j, &v, 4);
    }
  }
}

} // namespace chipless::sim::tpu
