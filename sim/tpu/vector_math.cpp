#include "sim/tpu/vector_math.h"

#include "support/numerics.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace chipless::sim::tpu {

using tpuprog::Opcode;

namespace {

inline float f(uint32_t bits) {
  float v;
  std::memcpy(&v, &bits, 4);
  return v;
}
inline uint32_t bits(float v) {
  uint32_t b;
  std::memcpy(&b, &v, 4);
  return b;
}
inline int32_t i(uint32_t b) {
  return static_cast<int32_t>(b);
}
inline uint32_t u(int32_t v) {
  return static_cast<uint32_t>(v);
}

float unaryF(Opcode op, float x) {
  switch (op) {
  case Opcode::VMov:
    return x;
  case Opcode::VNeg:
    return -x;
  case Opcode::VAbs:
    return std::fabs(x);
  case Opcode::VRelu:
    return x > 0.0f ? x : 0.0f;
  case Opcode::VExp:
    return std::exp(x);
  case Opcode::VLog:
    return std::log(x);
  case Opcode::VRcp:
    return 1.0f / x;
  case Opcode::VRsqrt:
    return 1.0f / std::sqrt(x);
  case Opcode::VSqrt:
    return std::sqrt(x);
  case Opcode::VTanh:
    return std::tanh(x);
  default:
    return x;
  }
}

int32_t unaryI(Opcode op, int32_t x) {
  switch (op) {
  case Opcode::VNeg:
    return static_cast<int32_t>(0u - static_cast<uint32_t>(x));
  case Opcode::VAbs:
    return x < 0 ? static_cast<int32_t>(0u - static_cast<uint32_t>(x)) : x;
  case Opcode::VRelu:
    return x > 0 ? x : 0;
  default:
    return x;
  }
}

float binaryF(Opcode op, float x, float y) {
  switch (op) {
  case Opcode::VAdd:
    return x + y;
  case Opcode::VSub:
    return x - y;
  case Opcode::VMul:
    return x * y;
  case Opcode::VDiv:
    return x / y;
  case Opcode::VMax:
    return std::isnan(x) || std::isnan(y) ? std::numeric_limits<float>::quiet_NaN()
                                          : std::max(x, y);
  case Opcode::VMin:
    return std::isnan(x) || std::isnan(y) ? std::numeric_limits<float>::quiet_NaN()
                                          : std::min(x, y);
  case Opcode::VCmpEq:
    return x == y ? 1.0f : 0.0f;
  case Opcode::VCmpLt:
    return x < y ? 1.0f : 0.0f;
  case Opcode::VCmpLe:
    return x <= y ? 1.0f : 0.0f;
  default:
    return x;
  }
}

int32_t binaryI(Opcode op, int32_t x, int32_t y) {
  const uint32_t a = static_cast<uint32_t>(x), b = static_cast<uint32_t>(y);
  switch (op) {
  case Opcode::VAdd:
    return static_cast<int32_t>(a + b);
  case Opcode::VSub:
    return static_cast<int32_t>(a - b);
  case Opcode::VMul:
    return static_cast<int32_t>(a * b);
  case Opcode::VMax:
    return std::max(x, y);
  case Opcode::VMin:
    return std::min(x, y);
  case Opcode::VCmpEq:
    return x == y;
  case Opcode::VCmpLt:
    return x < y;
  case Opcode::VCmpLe:
    return x <= y;
  default:
    return x;
  }
}

} // namespace

void loadRow(DType type, const uint8_t* row, uint32_t* lanes, int count) {
  switch (type) {
  case DType::F32:
  case DType::I32:
    std::memcpy(lanes, row, static_cast<size_t>(count) * 4);
    return;
  case DType::BF16:
    for (int k = 0; k < count; ++k) {
      uint16_t h;
      std::memcpy(&h, row + 2 * k, 2);
      lanes[k] = static_cast<uint32_t>(h) << 16;
    }
    return;
  case DType::I8:
    for (int k = 0; k < count; ++k) lanes[k] = u(static_cast<int8_t>(row[k]));
    return;
  case DType::I64: // a host type; no device tensor holds it
    return;
  case DType::F16:
    for (int k = 0; k < count; ++k) {
      uint16_t h;
      std::memcpy(&h, row + 2 * k, 2);
      lanes[k] = bits(halfToFloat(h));
    }
    return;
  }
}

void storeRow(DType type, const uint32_t* lanes, uint8_t* row, int count) {
  switch (type) {
  case DType::F32:
  case DType::I32:
    std::memcpy(row, lanes, static_cast<size_t>(count) * 4);
    return;
  case DType::BF16:
    for (int k = 0; k < count; ++k) {
      uint16_t h = floatToBf16(f(lanes[k]));
      std::memcpy(row + 2 * k, &h, 2);
    }
    return;
  case DType::I8:
    for (int k = 0; k < count; ++k)
      row[k] = static_cast<uint8_t>(static_cast<int8_t>(std::clamp(i(lanes[k]), -128, 127)));
    return;
  case DType::I64: // a host type; no device tensor holds it
    return;
  case DType::F16:
    for (int k = 0; k < count; ++k) {
      uint16_t h = floatToHalf(f(lanes[k]));
      std::memcpy(row + 2 * k, &h, 2);
    }
    return;
  }
}

bool isTranscendental(Opcode op) {
  switch (op) {
  case Opcode::VExp:
  case Opcode::VLog:
  case Opcode::VRcp:
  case Opcode::VRsqrt:
  case Opcode::VSqrt:
  case Opcode::VTanh:
  case Opcode::VDiv:
    return true;
  default:
    return false;
  }
}

void valu(Opcode op, DType type, uint32_t* d, const uint32_t* a, const uint32_t* b,
          const uint32_t* c, double scalar, int sublanes, int lanes) {
  const int n = sublanes * lanes;
  const bool fl = type == DType::F32;
  switch (op) {
  case Opcode::VSplat: {
    uint32_t v = fl ? bits(static_cast<float>(scalar))
                    : u(static_cast<int32_t>(std::isfinite(scalar) ? std::trunc(scalar) : 0.0));
    std::fill(d, d + n, v);
    return;
  }
  case Opcode::VBcast: {
    uint32_t v = fl ? bits(static_cast<float>(scalar))
                    : u(static_cast<int32_t>(static_cast<int64_t>(scalar)));
    std::fill(d, d + n, v);
    return;
  }
  case Opcode::VSel:
    for (int k = 0; k < n; ++k) {
      bool take = fl ? f(c[k]) != 0.0f : c[k] != 0;
      d[k] = take ? a[k] : b[k];
    }
    return;
  case Opcode::VSumLanes:
  case Opcode::VMaxLanes:
    for (int r = 0; r < sublanes; ++r) {
      const uint32_t* row = a + r * lanes;
      uint32_t v;
      if (fl) {
        float acc = f(row[0]);
        for (int k = 1; k < lanes; ++k)
          acc = op == Opcode::VSumLanes ? acc + f(row[k]) : binaryF(Opcode::VMax, acc, f(row[k]));
        v = bits(acc);
      } else {
        int32_t acc = i(row[0]);
        for (int k = 1; k < lanes; ++k)
          acc = binaryI(op == Opcode::VSumLanes ? Opcode::VAdd : Opcode::VMax, acc, i(row[k]));
        v = u(acc);
      }
      std::fill(d + r * lanes, d + (r + 1) * lanes, v);
    }
    return;
  case Opcode::VSumSublanes:
  case Opcode::VMaxSublanes: {
    for (int k = 0; k < lanes; ++k) {
      uint32_t v;
      if (fl) {
        float acc = f(a[k]);
        for (int r = 1; r < sublanes; ++r)
          acc = op == Opcode::VSumSublanes ? acc + f(a[r * lanes + k])
                                           : binaryF(Opcode::VMax, acc, f(a[r * lanes + k]));
        v = bits(acc);
      } else {
        int32_t acc = i(a[k]);
        for (int r = 1; r < sublanes; ++r)
          acc = binaryI(op == Opcode::VSumSublanes ? Opcode::VAdd : Opcode::VMax, acc,
                        i(a[r * lanes + k]));
        v = u(acc);
      }
      for (int r = 0; r < sublanes; ++r) d[r * lanes + k] = v;
    }
    return;
  }
  case Opcode::VCvt:
    for (int k = 0; k < n; ++k) {
      if (fl) {
        d[k] = bits(static_cast<float>(i(a[k])));
      } else {
        const float x = f(a[k]);
        int32_t v = 0;
        if (std::isnan(x))
          v = 0;
        else if (x >= 2147483648.0f)
          v = std::numeric_limits<int32_t>::max();
        else if (x <= -2147483648.0f)
          v = std::numeric_limits<int32_t>::min();
        else
          v = static_cast<int32_t>(x); // truncates toward zero
        d[k] = u(v);
      }
    }
    return;
  default:
    break;
  }
  const bool binary = b != nullptr;
  if (fl) {
    if (binary)
      for (int k = 0; k < n; ++k) d[k] = bits(binaryF(op, f(a[k]), f(b[k])));
    else
      for (int k = 0; k < n; ++k) d[k] = bits(unaryF(op, f(a[k])));
  } else {
    if (binary)
      for (int k = 0; k < n; ++k) d[k] = u(binaryI(op, i(a[k]), i(b[k])));
    else
      for (int k = 0; k < n; ++k) d[k] = u(unaryI(op, i(a[k])));
  }
}

void iota(DType type, uint32_t* d, bool sublaneAxis, int64_t index, int sublanes, int lanes) {
  for (int r = 0; r < sublanes; ++r)
    for (int k = 0; k < lanes; ++k) {
      const int64_t v = sublaneAxis ? index * sublanes + r : k;
      d[r * lanes + k] =
          type == DType::F32 ? bits(static_cast<float>(v)) : u(static_cast<int32_t>(v));
    }
}

} // namespace chipless::sim::tpu
