#include "sim/spyre/sfu_math.h"

#include "support/numerics_bulk.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>
#include <vector>

namespace chipless::sim::spyre {

using spyrecode::Opcode;

namespace {
inline float f(uint32_t bits) {
  float v;
  std::memcpy(&v, &bits, 4);
  return v;
}
inline uint32_t bitsOf(float v) {
  uint32_t b;
  std::memcpy(&b, &v, 4);
  return b;
}
inline int32_t i(uint32_t bits) {
  return static_cast<int32_t>(bits);
}
inline uint32_t bitsOf(int32_t v) {
  return static_cast<uint32_t>(v);
}

float gelu(float x) {
  return 0.5f * x * (1.0f + std::erf(x * 0.70710678118654752f));
}
float sigmoid(float x) {
  return 1.0f / (1.0f + std::exp(-x));
}

// The elementwise ops, one template instance per opcode so that a bulk run chooses the op
// once and its inner loop over lanes is plain arithmetic (which the compiler vectorises
// where the results stay exact: no reassociation, no contraction). Opcodes not listed
// behave as sfu.mov (returning a), as the per-element switch always did.
// clang-format off
#define CHIPLESS_SFU_FLOAT_OPS(X)                                                                  \
  X(SfuMov) X(SfuNeg) X(SfuAbs) X(SfuExp) X(SfuLog) X(SfuRecip) X(SfuRsqrt) X(SfuSqrt)             \
  X(SfuSigmoid) X(SfuTanh) X(SfuGelu) X(SfuSilu) X(SfuRelu) X(SfuAdd) X(SfuSub) X(SfuMul)          \
  X(SfuDiv) X(SfuMax) X(SfuMin) X(SfuEq) X(SfuNe) X(SfuLt) X(SfuLe) X(SfuGt) X(SfuGe) X(SfuFma)   \
  X(SfuSelect)
#define CHIPLESS_SFU_INT_OPS(X)                                                                    \
  X(SfuMov) X(SfuNeg) X(SfuAbs) X(SfuRelu) X(SfuAdd) X(SfuSub) X(SfuMul) X(SfuMax) X(SfuMin)      \
  X(SfuDiv) X(SfuEq) X(SfuNe) X(SfuLt) X(SfuLe) X(SfuGt) X(SfuGe) X(SfuFma) X(SfuSelect)
// clang-format on

template <Opcode op>
inline float floatOpT(float a, float b, float c) {
  if constexpr (op == Opcode::SfuNeg)
    return -a;
  else if constexpr (op == Opcode::SfuAbs)
    return std::fabs(a);
  else if constexpr (op == Opcode::SfuExp)
    return std::exp(a);
  else if constexpr (op == Opcode::SfuLog)
    return std::log(a);
  else if constexpr (op == Opcode::SfuRecip)
    return 1.0f / a;
  else if constexpr (op == Opcode::SfuRsqrt)
    return 1.0f / std::sqrt(a);
  else if constexpr (op == Opcode::SfuSqrt)
    return std::sqrt(a);
  else if constexpr (op == Opcode::SfuSigmoid)
    return sigmoid(a);
  else if constexpr (op == Opcode::SfuTanh)
    return std::tanh(a);
  else if constexpr (op == Opcode::SfuGelu)
    return gelu(a);
  else if constexpr (op == Opcode::SfuSilu)
    return a * sigmoid(a);
  else if constexpr (op == Opcode::SfuRelu)
    return a > 0 ? a : 0.0f;
  else if constexpr (op == Opcode::SfuAdd)
    return a + b;
  else if constexpr (op == Opcode::SfuSub)
    return a - b;
  else if constexpr (op == Opcode::SfuMul)
    return a * b;
  else if constexpr (op == Opcode::SfuDiv)
    return a / b;
  else if constexpr (op == Opcode::SfuMax)
    return std::max(a, b);
  else if constexpr (op == Opcode::SfuMin)
    return std::min(a, b);
  else if constexpr (op == Opcode::SfuEq)
    return a == b ? 1.0f : 0.0f;
  else if constexpr (op == Opcode::SfuNe)
    return a != b ? 1.0f : 0.0f;
  else if constexpr (op == Opcode::SfuLt)
    return a < b ? 1.0f : 0.0f;
  else if constexpr (op == Opcode::SfuLe)
    return a <= b ? 1.0f : 0.0f;
  else if constexpr (op == Opcode::SfuGt)
    return a > b ? 1.0f : 0.0f;
  else if constexpr (op == Opcode::SfuGe)
    return a >= b ? 1.0f : 0.0f;
  else if constexpr (op == Opcode::SfuFma)
    return std::fma(a, b, c);
  else if constexpr (op == Opcode::SfuSelect)
    return a != 0.0f ? b : c;
  else
    return a; // sfu.mov and anything else
}

/// Wraps an int64 result to int32 as the SFU's 32-bit lanes do.
inline int32_t wrap(int64_t v) {
  return static_cast<int32_t>(static_cast<uint32_t>(v));
}

template <Opcode op>
inline int32_t intOpT(int32_t a, int32_t b, int32_t c) {
  if constexpr (op == Opcode::SfuNeg)
    return wrap(-static_cast<int64_t>(a));
  else if constexpr (op == Opcode::SfuAbs)
    return wrap(a < 0 ? -static_cast<int64_t>(a) : a);
  else if constexpr (op == Opcode::SfuRelu)
    return a > 0 ? a : 0;
  else if constexpr (op == Opcode::SfuAdd)
    return wrap(static_cast<int64_t>(a) + b);
  else if constexpr (op == Opcode::SfuSub)
    return wrap(static_cast<int64_t>(a) - b);
  else if constexpr (op == Opcode::SfuMul)
    return wrap(static_cast<int64_t>(a) * b);
  else if constexpr (op == Opcode::SfuDiv)
    return b == 0 ? -1 : wrap(static_cast<int64_t>(a) / b); // RISC-V's div
  else if constexpr (op == Opcode::SfuMax)
    return std::max(a, b);
  else if constexpr (op == Opcode::SfuMin)
    return std::min(a, b);
  else if constexpr (op == Opcode::SfuEq)
    return a == b;
  else if constexpr (op == Opcode::SfuNe)
    return a != b;
  else if constexpr (op == Opcode::SfuLt)
    return a < b;
  else if constexpr (op == Opcode::SfuLe)
    return a <= b;
  else if constexpr (op == Opcode::SfuGt)
    return a > b;
  else if constexpr (op == Opcode::SfuGe)
    return a >= b;
  else if constexpr (op == Opcode::SfuFma)
    return wrap(static_cast<int64_t>(a) * b + c);
  else if constexpr (op == Opcode::SfuSelect)
    return a != 0 ? b : c;
  else
    return a; // sfu.mov and anything else
}

/// Calls f(std::integral_constant<Opcode, op>{}) for the float op `op`.
template <class F>
auto withFloatOp(Opcode op, F&& f) {
  switch (op) {
#define CHIPLESS_SFU_CASE(name)                                                                    \
  case Opcode::name:                                                                               \
    return f(std::integral_constant<Opcode, Opcode::name>{});
    CHIPLESS_SFU_FLOAT_OPS(CHIPLESS_SFU_CASE)
#undef CHIPLESS_SFU_CASE
  default:
    return f(std::integral_constant<Opcode, Opcode::SfuMov>{});
  }
}

/// Calls f(std::integral_constant<Opcode, op>{}) for the i32 op `op`.
template <class F>
auto withIntOp(Opcode op, F&& f) {
  switch (op) {
#define CHIPLESS_SFU_CASE(name)                                                                    \
  case Opcode::name:                                                                               \
    return f(std::integral_constant<Opcode, Opcode::name>{});
    CHIPLESS_SFU_INT_OPS(CHIPLESS_SFU_CASE)
#undef CHIPLESS_SFU_CASE
  default:
    return f(std::integral_constant<Opcode, Opcode::SfuMov>{});
  }
}

/// The lanes every absent operand reads (b and c of one-operand ops).
const uint32_t* zeroLanes() {
  static const uint32_t zeros[4096] = {};
  return zeros;
}

template <Opcode op>
void floatRun(int n, int64_t items, const uint32_t* a, int64_t sa, const uint32_t* b, int64_t sb,
              const uint32_t* c, int64_t sc, uint32_t* out) {
  for (int64_t it = 0; it < items; ++it, a += sa, b += sb, c += sc, out += n)
    for (int k = 0; k < n; ++k) out[k] = bitsOf(floatOpT<op>(f(a[k]), f(b[k]), f(c[k])));
}

template <Opcode op>
void intRun(int n, int64_t items, const uint32_t* a, int64_t sa, const uint32_t* b, int64_t sb,
            const uint32_t* c, int64_t sc, uint32_t* out) {
  for (int64_t it = 0; it < items; ++it, a += sa, b += sb, c += sc, out += n)
    for (int k = 0; k < n; ++k) out[k] = bitsOf(intOpT<op>(i(a[k]), i(b[k]), i(c[k])));
}
} // namespace

void decodeStick(DType dt, Fp16Format fmt, const uint8_t* stick, uint32_t* lanes, size_t n) {
  switch (dt) {
  case DType::F32:
  case DType::I32:
    std::memcpy(lanes, stick, n * 4);
    return;
  case DType::F16:
    // The lanes hold float bit patterns; the bulk decoder writes them as floats.
    decodeF16Bulk(stick, reinterpret_cast<float*>(lanes), n, fmt);
    return;
  case DType::BF16:
    decodeBf16Bulk(stick, reinterpret_cast<float*>(lanes), n);
    return;
  case DType::I8:  // a TPU type; no SFU operation accepts it
  case DType::I64: // a host type; no device tensor holds it
    return;
  }
}

void encodeStick(DType dt, Fp16Format fmt, const uint32_t* lanes, uint8_t* stick, size_t n) {
  switch (dt) {
  case DType::F32:
  case DType::I32:
    std::memcpy(stick, lanes, n * 4);
    return;
  case DType::F16:
    encodeF16Bulk(reinterpret_cast<const float*>(lanes), stick, n, fmt);
    return;
  case DType::BF16:
    encodeBf16Bulk(reinterpret_cast<const float*>(lanes), stick, n);
    return;
  case DType::I8:  // a TPU type; no SFU operation accepts it
  case DType::I64: // a host type; no device tensor holds it
    return;
  }
}

bool isTranscendental(Opcode op) {
  switch (op) {
  case Opcode::SfuExp:
  case Opcode::SfuLog:
  case Opcode::SfuRecip:
  case Opcode::SfuRsqrt:
  case Opcode::SfuSqrt:
  case Opcode::SfuSigmoid:
  case Opcode::SfuTanh:
  case Opcode::SfuGelu:
  case Opcode::SfuSilu:
  case Opcode::SfuDiv:
    return true;
  default:
    return false;
  }
}

float sfuFloatOp(Opcode op, float a, float b, float c) {
  return withFloatOp(op, [&](auto k) { return floatOpT<decltype(k)::value>(a, b, c); });
}

int32_t sfuIntOp(Opcode op, int32_t a, int32_t b, int32_t c) {
  return withIntOp(op, [&](auto k) { return intOpT<decltype(k)::value>(a, b, c); });
}

// Compiled for AVX2 and for baseline x86-64, chosen when the program loads; flatten inlines
// the op's loop into each. Never with FMA: a*b+c must round twice, as the per-lane ops do.
__attribute__((target_clones("avx2", "default"), flatten)) void
applyElementwiseRun(Opcode op, DType dt, int n, int64_t items, const uint32_t* a, int64_t aStride,
                    const uint32_t* b, int64_t bStride, const uint32_t* c, int64_t cStride,
                    uint32_t* out) {
  if (!b) b = zeroLanes(), bStride = 0;
  if (!c) c = zeroLanes(), cStride = 0;
  if (dt == DType::I32)
    withIntOp(op, [&](auto k) {
      intRun<decltype(k)::value>(n, items, a, aStride, b, bStride, c, cStride, out);
    });
  else
    withFloatOp(op, [&](auto k) {
      floatRun<decltype(k)::value>(n, items, a, aStride, b, bStride, c, cStride, out);
    });
}

void applyElementwise(Opcode op, DType dt, int n, const uint32_t* a, const uint32_t* b,
                      const uint32_t* c, uint32_t* out) {
  applyElementwiseRun(op, dt, n, 1, a, 0, b, 0, c, 0, out);
}

void applyAccumulate(Opcode op, DType dt, int n, const uint32_t* a, uint32_t* acc) {
  Opcode base = op == Opcode::SfuAccAdd   ? Opcode::SfuAdd
                : op == Opcode::SfuAccMax ? Opcode::SfuMax
                                          : Opcode::SfuMin;
  applyElementwise(base, dt, n, acc, a, nullptr, acc);
}

void applyLaneReduce(Opcode op, DType dt, int n, const uint32_t* a, uint32_t* out) {
  uint32_t r = a[0];
  Opcode base = op == Opcode::SfuLaneAdd   ? Opcode::SfuAdd
                : op == Opcode::SfuLaneMax ? Opcode::SfuMax
                                           : Opcode::SfuMin;
  if (dt == DType::I32) {
    for (int k = 1; k < n; ++k) r = bitsOf(sfuIntOp(base, i(r), i(a[k]), 0));
  } else if (base == Opcode::SfuAdd) {
    double s = 0; // the SFU's adder tree keeps full precision within a stick
    for (int k = 0; k < n; ++k) s += f(a[k]);
    r = bitsOf(static_cast<float>(s));
  } else {
    for (int k = 1; k < n; ++k) r = bitsOf(sfuFloatOp(base, f(r), f(a[k]), 0));
  }
  for (int k = 0; k < n; ++k) out[k] = r;
}

void combineSticks(RingOp op, DType dt, Fp16Format fmt, const uint8_t* src, uint8_t* dst,
                   size_t sticks, size_t stickBytes) {
  const int n = lanesOf(dt, static_cast<int64_t>(stickBytes));
  Opcode base = op == RingOp::Add   ? Opcode::SfuAdd
                : op == RingOp::Max ? Opcode::SfuMax
                                    : Opcode::SfuMin;
  // Runs of sticks at a time; overlapping ranges go stick by stick, so that a stick written
  // early is read back later exactly as before.
  const size_t bytes = sticks * stickBytes;
  const bool overlap = src < dst + bytes && dst < src + bytes;
  const size_t run = overlap ? 1 : 64;
  std::vector<uint32_t> a(run * static_cast<size_t>(n)), b(run * static_cast<size_t>(n));
  for (size_t s = 0; s < sticks; s += run) {
    const size_t m = std::min(run, sticks - s), lanes = m * static_cast<size_t>(n);
    decodeStick(dt, fmt, src + s * stickBytes, a.data(), lanes);
    decodeStick(dt, fmt, dst + s * stickBytes, b.data(), lanes);
    applyElementwiseRun(base, dt, n, static_cast<int64_t>(m), b.data(), n, a.data(), n, nullptr, 0,
                        b.data());
    encodeStick(dt, fmt, b.data(), dst + s * stickBytes, lanes);
  }
}

} // namespace chipless::sim::spyre
