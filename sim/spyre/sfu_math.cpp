#include "sim/spyre/sfu_math.h"

#include <algorithm>
#include <cmath>
#include <cstring>
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

float floatOp(Opcode op, float a, float b, float c) {
  switch (op) {
  case Opcode::SfuMov:
    return a;
  case Opcode::SfuNeg:
    return -a;
  case Opcode::SfuAbs:
    return std::fabs(a);
  case Opcode::SfuExp:
    return std::exp(a);
  case Opcode::SfuLog:
    return std::log(a);
  case Opcode::SfuRecip:
    return 1.0f / a;
  case Opcode::SfuRsqrt:
    return 1.0f / std::sqrt(a);
  case Opcode::SfuSqrt:
    return std::sqrt(a);
  case Opcode::SfuSigmoid:
    return sigmoid(a);
  case Opcode::SfuTanh:
    return std::tanh(a);
  case Opcode::SfuGelu:
    return gelu(a);
  case Opcode::SfuSilu:
    return a * sigmoid(a);
  case Opcode::SfuRelu:
    return a > 0 ? a : 0.0f;
  case Opcode::SfuAdd:
    return a + b;
  case Opcode::SfuSub:
    return a - b;
  case Opcode::SfuMul:
    return a * b;
  case Opcode::SfuDiv:
    return a / b;
  case Opcode::SfuMax:
    return std::max(a, b);
  case Opcode::SfuMin:
    return std::min(a, b);
  case Opcode::SfuEq:
    return a == b ? 1.0f : 0.0f;
  case Opcode::SfuNe:
    return a != b ? 1.0f : 0.0f;
  case Opcode::SfuLt:
    return a < b ? 1.0f : 0.0f;
  case Opcode::SfuLe:
    return a <= b ? 1.0f : 0.0f;
  case Opcode::SfuGt:
    return a > b ? 1.0f : 0.0f;
  case Opcode::SfuGe:
    return a >= b ? 1.0f : 0.0f;
  case Opcode::SfuFma:
    return std::fma(a, b, c);
  case Opcode::SfuSelect:
    return a != 0.0f ? b : c;
  default:
    return a;
  }
}

int32_t intOp(Opcode op, int32_t a, int32_t b, int32_t c) {
  auto wrap = [](int64_t v) { return static_cast<int32_t>(static_cast<uint32_t>(v)); };
  switch (op) {
  case Opcode::SfuMov:
    return a;
  case Opcode::SfuNeg:
    return wrap(-static_cast<int64_t>(a));
  case Opcode::SfuAbs:
    return wrap(a < 0 ? -static_cast<int64_t>(a) : a);
  case Opcode::SfuRelu:
    return a > 0 ? a : 0;
  case Opcode::SfuAdd:
    return wrap(static_cast<int64_t>(a) + b);
  case Opcode::SfuSub:
    return wrap(static_cast<int64_t>(a) - b);
  case Opcode::SfuMul:
    return wrap(static_cast<int64_t>(a) * b);
  case Opcode::SfuMax:
    return std::max(a, b);
  case Opcode::SfuMin:
    return std::min(a, b);
  case Opcode::SfuEq:
    return a == b;
  case Opcode::SfuNe:
    return a != b;
  case Opcode::SfuLt:
    return a < b;
  case Opcode::SfuLe:
    return a <= b;
  case Opcode::SfuGt:
    return a > b;
  case Opcode::SfuGe:
    return a >= b;
  case Opcode::SfuFma:
    return wrap(static_cast<int64_t>(a) * b + c);
  case Opcode::SfuSelect:
    return a != 0 ? b : c;
  default:
    return a;
  }
}
} // namespace

void decodeStick(DType dt, Fp16Format fmt, const uint8_t* stick, uint32_t* lanes, int n) {
  switch (dt) {
  case DType::F32:
  case DType::I32:
    std::memcpy(lanes, stick, static_cast<size_t>(n) * 4);
    return;
  case DType::F16:
  case DType::BF16:
    for (int k = 0; k < n; ++k) {
      uint16_t h;
      std::memcpy(&h, stick + 2 * k, 2);
      lanes[k] = bitsOf(dt == DType::F16 ? decodeF16(h, fmt) : bf16ToFloat(h));
    }
    return;
  case DType::I8:  // a TPU type; no SFU operation accepts it
  case DType::I64: // a host type; no device tensor holds it
    return;
  }
}

void encodeStick(DType dt, Fp16Format fmt, const uint32_t* lanes, uint8_t* stick, int n) {
  switch (dt) {
  case DType::F32:
  case DType::I32:
    std::memcpy(stick, lanes, static_cast<size_t>(n) * 4);
    return;
  case DType::F16:
  case DType::BF16:
    for (int k = 0; k < n; ++k) {
      uint16_t h = dt == DType::F16 ? encodeF16(f(lanes[k]), fmt) : floatToBf16(f(lanes[k]));
      std::memcpy(stick + 2 * k, &h, 2);
    }
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

void applyElementwise(Opcode op, DType dt, int n, const uint32_t* a, const uint32_t* b,
                      const uint32_t* c, uint32_t* out) {
  static const uint32_t zeros[4096] = {};
  if (!b) b = zeros;
  if (!c) c = zeros;
  if (dt == DType::I32) {
    for (int k = 0; k < n; ++k) out[k] = bitsOf(intOp(op, i(a[k]), i(b[k]), i(c[k])));
  } else {
    for (int k = 0; k < n; ++k) out[k] = bitsOf(floatOp(op, f(a[k]), f(b[k]), f(c[k])));
  }
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
    for (int k = 1; k < n; ++k) r = bitsOf(intOp(base, i(r), i(a[k]), 0));
  } else if (base == Opcode::SfuAdd) {
    double s = 0; // the SFU's adder tree keeps full precision within a stick
    for (int k = 0; k < n; ++k) s += f(a[k]);
    r = bitsOf(static_cast<float>(s));
  } else {
    for (int k = 1; k < n; ++k) r = bitsOf(floatOp(base, f(r), f(a[k]), 0));
  }
  for (int k = 0; k < n; ++k) out[k] = r;
}

void combineSticks(RingOp op, DType dt, Fp16Format fmt, const uint8_t* src, uint8_t* dst,
                   size_t sticks, size_t stickBytes) {
  const int n = lanesOf(dt, static_cast<int64_t>(stickBytes));
  std::vector<uint32_t> a(static_cast<size_t>(n)), b(static_cast<size_t>(n));
  Opcode base = op == RingOp::Add   ? Opcode::SfuAdd
                : op == RingOp::Max ? Opcode::SfuMax
                                    : Opcode::SfuMin;
  for (size_t s = 0; s < sticks; ++s) {
    decodeStick(dt, fmt, src + s * stickBytes, a.data(), n);
    decodeStick(dt, fmt, dst + s * stickBytes, b.data(), n);
    applyElementwise(base, dt, n, b.data(), a.data(), nullptr, b.data());
    encodeStick(dt, fmt, b.data(), dst + s * stickBytes, n);
  }
}

} // namespace chipless::sim::spyre
