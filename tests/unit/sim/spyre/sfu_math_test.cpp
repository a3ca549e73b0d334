/// Tests of the SFU and ring-reduction arithmetic (sim/spyre/sfu_math): every elementwise
/// opcode for f16/bf16/f32 against std:: math in fp32 rounded once to the element type,
/// i32 ops with wrap-around, lane reductions, accumulation, select/fma, combineSticks and
/// the DLFloat16 device format through decodeStick/encodeStick.
#include "sim/spyre/sfu_math.h"
#include "support/float_bits.h"
#include "support/numerics.h"
#include "support/spyrecode/isa.h"

#include <climits>
#include <cmath>
#include <cstring>
#include <functional>
#include <gtest/gtest.h>
#include <map>
#include <random>
#include <vector>

namespace chipless::sim::spyre {
namespace {

using spyrecode::Opcode;

constexpr int kStick = 128;

uint32_t bitsOfInt(int32_t v) {
  return static_cast<uint32_t>(v);
}
int32_t intOf(uint32_t b) {
  return static_cast<int32_t>(b);
}

/// Rounds a float to element type dt (fp16 in `fmt`) and back: what a stick can hold.
float roundTo(DType dt, float v, Fp16Format fmt = Fp16Format::Ieee) {
  switch (dt) {
  case DType::F16:
    return decodeF16(encodeF16(v, fmt), fmt);
  case DType::BF16:
    return bf16ToFloat(floatToBf16(v));
  default:
    return v;
  }
}

/// The 16-bit pattern of v in dt (for ulp distances).
int32_t pattern16(DType dt, float v) {
  uint16_t h = dt == DType::F16 ? floatToHalf(v) : floatToBf16(v);
  // Map sign-magnitude to a monotonic integer line.
  return (h & 0x8000) ? -static_cast<int32_t>(h & 0x7FFF) : static_cast<int32_t>(h);
}

/// Encodes floats into one stick of type dt.
std::vector<uint8_t> stickOf(DType dt, const std::vector<float>& v,
                             Fp16Format fmt = Fp16Format::Ieee) {
  std::vector<uint8_t> s(kStick, 0);
  for (size_t k = 0; k < v.size(); ++k) {
    if (dt == DType::F32) {
      std::memcpy(&s[4 * k], &v[k], 4);
    } else {
      uint16_t h = dt == DType::F16 ? encodeF16(v[k], fmt) : floatToBf16(v[k]);
      std::memcpy(&s[2 * k], &h, 2);
    }
  }
  return s;
}

const std::vector<DType> kFloatTypes = {DType::F16, DType::BF16, DType::F32};

// ---- references: written from the opcode summaries, in fp32 with std:: functions ------

using FloatRef = std::function<float(float, float, float)>;

const std::map<Opcode, FloatRef>& floatReferences() {
  static const std::map<Opcode, FloatRef> refs = {
      {Opcode::SfuMov, [](float a, float, float) { return a; }},
      {Opcode::SfuNeg, [](float a, float, float) { return -a; }},
      {Opcode::SfuAbs, [](float a, float, float) { return std::fabs(a); }},
      {Opcode::SfuExp, [](float a, float, float) { return std::exp(a); }},
      {Opcode::SfuLog, [](float a, float, float) { return std::log(a); }},
      {Opcode::SfuRecip, [](float a, float, float) { return 1.0f / a; }},
      {Opcode::SfuRsqrt, [](float a, float, float) { return 1.0f / std::sqrt(a); }},
      {Opcode::SfuSqrt, [](float a, float, float) { return std::sqrt(a); }},
      {Opcode::SfuSigmoid, [](float a, float, float) { return 1.0f / (1.0f + std::exp(-a)); }},
      {Opcode::SfuTanh, [](float a, float, float) { return std::tanh(a); }},
      {Opcode::SfuGelu,
       [](float a, float, float) { return 0.5f * a * (1.0f + std::erf(a / std::sqrt(2.0f))); }},
      {Opcode::SfuSilu, [](float a, float, float) { return a / (1.0f + std::exp(-a)); }},
      {Opcode::SfuRelu, [](float a, float, float) { return a > 0 ? a : 0.0f; }},
      {Opcode::SfuAdd, [](float a, float b, float) { return a + b; }},
      {Opcode::SfuSub, [](float a, float b, float) { return a - b; }},
      {Opcode::SfuMul, [](float a, float b, float) { return a * b; }},
      {Opcode::SfuDiv, [](float a, float b, float) { return a / b; }},
      {Opcode::SfuMax, [](float a, float b, float) { return a > b ? a : b; }},
      {Opcode::SfuMin, [](float a, float b, float) { return a < b ? a : b; }},
      {Opcode::SfuEq, [](float a, float b, float) { return a == b ? 1.0f : 0.0f; }},
      {Opcode::SfuNe, [](float a, float b, float) { return a != b ? 1.0f : 0.0f; }},
      {Opcode::SfuLt, [](float a, float b, float) { return a < b ? 1.0f : 0.0f; }},
      {Opcode::SfuLe, [](float a, float b, float) { return a <= b ? 1.0f : 0.0f; }},
      {Opcode::SfuGt, [](float a, float b, float) { return a > b ? 1.0f : 0.0f; }},
      {Opcode::SfuGe, [](float a, float b, float) { return a >= b ? 1.0f : 0.0f; }},
      {Opcode::SfuFma, [](float a, float b, float c) { return std::fma(a, b, c); }},
      {Opcode::SfuSelect, [](float a, float b, float c) { return a != 0.0f ? b : c; }},
  };
  return refs;
}

/// Ops whose fp32 result comes from a libm approximation or is formed differently in the
/// reference: allowed one unit in the last place of the element type.
bool approximate(Opcode op) {
  return op == Opcode::SfuExp || op == Opcode::SfuLog || op == Opcode::SfuSigmoid ||
         op == Opcode::SfuTanh || op == Opcode::SfuGelu || op == Opcode::SfuSilu;
}

/// Input values suited to the op: positive for log/sqrt/rsqrt, away from zero for
/// divisors, moderate for exp.
float sample(Opcode op, int operand, std::mt19937& rng) {
  std::uniform_real_distribution<float> wide(-8.0f, 8.0f), pos(0.01f, 100.0f), mag(0.1f, 10.0f),
      expo(-10.0f, 10.0f);
  switch (op) {
  case Opcode::SfuLog:
  case Opcode::SfuSqrt:
  case Opcode::SfuRsqrt:
    return pos(rng);
  case Opcode::SfuRecip:
    return (rng() & 1 ? 1.0f : -1.0f) * mag(rng);
  case Opcode::SfuDiv:
    return operand == 1 ? (rng() & 1 ? 1.0f : -1.0f) * mag(rng) : wide(rng);
  case Opcode::SfuExp:
    return expo(rng);
  default:
    return wide(rng);
  }
}

bool isElementwise(Opcode op) {
  return op >= Opcode::SfuMov && op <= Opcode::SfuSelect;
}

TEST(SfuMath, LanesPerStick) {
  EXPECT_EQ(lanesOf(DType::F16, 128), 64);
  EXPECT_EQ(lanesOf(DType::BF16, 128), 64);
  EXPECT_EQ(lanesOf(DType::F32, 128), 32);
  EXPECT_EQ(lanesOf(DType::I32, 128), 32);
  EXPECT_EQ(lanesOf(DType::F16, 64), 32);
}

TEST(SfuMath, EveryElementwiseOpcodeHasAReference) {
  int count = 0;
  for (const auto& info : spyrecode::allOpcodes()) {
    if (!isElementwise(info.op)) continue;
    if (info.op == Opcode::SfuSplat) continue; // a register fill, not arithmetic
    ++count;
    EXPECT_TRUE(floatReferences().count(info.op)) << info.mnemonic;
  }
  EXPECT_EQ(count, static_cast<int>(floatReferences().size()));
}

TEST(SfuMath, ElementwiseFloatOpsMatchFp32RoundedOnce) {
  std::mt19937 rng(2024);
  for (DType dt : kFloatTypes) {
    const int n = lanesOf(dt, kStick);
    for (const auto& [op, ref] : floatReferences()) {
      const auto& info = spyrecode::opcodeInfo(op);
      ASSERT_TRUE(info.dtypeMask & (1u << static_cast<unsigned>(dt))) << info.mnemonic;
      SCOPED_TRACE(std::string(info.mnemonic) + "." + dtypeName(dt));
      for (int round = 0; round < 4; ++round) {
        // Inputs as a stick of dt holds them, decoded through decodeStick.
        std::vector<float> in[3];
        for (int j = 0; j < 3; ++j) {
          in[j].resize(static_cast<size_t>(n));
          for (int k = 0; k < n; ++k) in[j][k] = sample(op, j, rng);
        }
        for (int k = 0; k < n; k += 4) in[1][k] = in[0][k]; // equal operands for compares
        for (int k = 1; k < n; k += 3) in[0][k] = op == Opcode::SfuSelect ? 0.0f : in[0][k];
        std::vector<uint32_t> lanes[3];
        for (int j = 0; j < 3; ++j) {
          std::vector<uint8_t> s = stickOf(dt, in[j]);
          lanes[j].resize(static_cast<size_t>(n));
          decodeStick(dt, Fp16Format::Ieee, s.data(), lanes[j].data(), n);
        }
        std::vector<uint32_t> out(static_cast<size_t>(n));
        applyElementwise(op, dt, n, lanes[0].data(), lanes[1].data(), lanes[2].data(), out.data());
        std::vector<uint8_t> result(kStick, 0);
        encodeStick(dt, Fp16Format::Ieee, out.data(), result.data(), n);
        std::vector<uint32_t> got(static_cast<size_t>(n));
        decodeStick(dt, Fp16Format::Ieee, result.data(), got.data(), n);
        for (int k = 0; k < n; ++k) {
          float a = floatOf(lanes[0][k]), b = floatOf(lanes[1][k]), c = floatOf(lanes[2][k]);
          float want = roundTo(dt, ref(a, b, c));
          float g = floatOf(got[k]);
          if (!approximate(op)) {
            ASSERT_EQ(bitsOf(g), bitsOf(want)) << "lane " << k << ": a=" << a << " b=" << b
                                               << " c=" << c << " got " << g << " want " << want;
          } else if (dt == DType::F32) {
            ASSERT_NEAR(g, want, 1e-5f * std::fabs(want) + 1e-7f) << "lane " << k << " a=" << a;
          } else {
            ASSERT_LE(std::abs(pattern16(dt, g) - pattern16(dt, want)), 1)
                << "lane " << k << " a=" << a << " got " << g << " want " << want;
          }
        }
      }
    }
  }
}

TEST(SfuMath, SpecialValues) {
  const DType dt = DType::F32;
  auto one = [&](Opcode op, float a, float b = 0, float c = 0) {
    uint32_t x = bitsOf(a), y = bitsOf(b), z = bitsOf(c), r = 0;
    applyElementwise(op, dt, 1, &x, &y, &z, &r);
    return floatOf(r);
  };
  EXPECT_EQ(one(Opcode::SfuRecip, 0.0f), INFINITY);
  EXPECT_EQ(one(Opcode::SfuRecip, -0.0f), -INFINITY);
  EXPECT_TRUE(std::isnan(one(Opcode::SfuLog, -1.0f)));
  EXPECT_EQ(one(Opcode::SfuLog, 0.0f), -INFINITY);
  EXPECT_EQ(one(Opcode::SfuExp, -INFINITY), 0.0f);
  EXPECT_EQ(one(Opcode::SfuSigmoid, -200.0f), 0.0f);
  EXPECT_EQ(one(Opcode::SfuSigmoid, 200.0f), 1.0f);
  EXPECT_EQ(one(Opcode::SfuRelu, -3.0f), 0.0f);
  EXPECT_EQ(one(Opcode::SfuMax, -INFINITY, 2.0f), 2.0f);
  EXPECT_EQ(one(Opcode::SfuSelect, 0.0f, 1.0f, 2.0f), 2.0f);
  EXPECT_EQ(one(Opcode::SfuSelect, -0.0f, 1.0f, 2.0f), 2.0f); // -0 is false
  EXPECT_EQ(one(Opcode::SfuSelect, 0.5f, 1.0f, 2.0f), 1.0f);
  EXPECT_EQ(one(Opcode::SfuEq, 0.0f, -0.0f), 1.0f);
  EXPECT_EQ(one(Opcode::SfuNe, NAN, NAN), 1.0f);
  // fma rounds once: (1 + 2^-12)^2 - 1 keeps the 2^-24 term that a*b then +c would lose.
  float e = 1.0f + std::ldexp(1.0f, -12);
  EXPECT_EQ(one(Opcode::SfuFma, e, e, -1.0f), std::ldexp(1.0f, -11) + std::ldexp(1.0f, -24));
  // f16 results out of range become infinity; fp32 registers keep the exact value.
  uint32_t big = bitsOf(60000.0f), r = 0;
  applyElementwise(Opcode::SfuAdd, DType::F16, 1, &big, &big, nullptr, &r);
  EXPECT_EQ(floatOf(r), 120000.0f);
  uint8_t s[2];
  encodeStick(DType::F16, Fp16Format::Ieee, &r, s, 1);
  uint32_t back = 0;
  decodeStick(DType::F16, Fp16Format::Ieee, s, &back, 1);
  EXPECT_EQ(floatOf(back), INFINITY);
}

TEST(SfuMath, Transcendentals) {
  for (Opcode op :
       {Opcode::SfuExp, Opcode::SfuLog, Opcode::SfuRecip, Opcode::SfuRsqrt, Opcode::SfuSqrt,
        Opcode::SfuSigmoid, Opcode::SfuTanh, Opcode::SfuGelu, Opcode::SfuSilu, Opcode::SfuDiv})
    EXPECT_TRUE(isTranscendental(op)) << spyrecode::opcodeInfo(op).mnemonic;
  for (Opcode op :
       {Opcode::SfuMov, Opcode::SfuAdd, Opcode::SfuMul, Opcode::SfuMax, Opcode::SfuSelect,
        Opcode::SfuFma, Opcode::SfuRelu, Opcode::SfuAccAdd, Opcode::SfuLaneMax, Opcode::PtMm})
    EXPECT_FALSE(isTranscendental(op)) << spyrecode::opcodeInfo(op).mnemonic;
}

// ---- i32 -------------------------------------------------------------------------------

int32_t wrapInt(uint32_t v) {
  return static_cast<int32_t>(v);
}

using IntRef = std::function<int32_t(int32_t, int32_t, int32_t)>;

TEST(SfuMath, IntegerOpsWrapAround) {
  const std::map<Opcode, IntRef> refs = {
      {Opcode::SfuMov, [](int32_t a, int32_t, int32_t) { return a; }},
      {Opcode::SfuNeg, [](int32_t a, int32_t, int32_t) { return wrapInt(0u - uint32_t(a)); }},
      {Opcode::SfuAbs,
       [](int32_t a, int32_t, int32_t) { return a < 0 ? wrapInt(0u - uint32_t(a)) : a; }},
      {Opcode::SfuRelu, [](int32_t a, int32_t, int32_t) { return a > 0 ? a : 0; }},
      {Opcode::SfuAdd,
       [](int32_t a, int32_t b, int32_t) { return wrapInt(uint32_t(a) + uint32_t(b)); }},
      {Opcode::SfuSub,
       [](int32_t a, int32_t b, int32_t) { return wrapInt(uint32_t(a) - uint32_t(b)); }},
      {Opcode::SfuMul,
       [](int32_t a, int32_t b, int32_t) { return wrapInt(uint32_t(a) * uint32_t(b)); }},
      {Opcode::SfuDiv,
       [](int32_t a, int32_t b, int32_t) {
         if (b == 0) return -1;                       // RISC-V's div
         if (a == INT_MIN && b == -1) return INT_MIN; // overflow wraps
         return a / b;
       }},
      {Opcode::SfuMax, [](int32_t a, int32_t b, int32_t) { return a > b ? a : b; }},
      {Opcode::SfuMin, [](int32_t a, int32_t b, int32_t) { return a < b ? a : b; }},
      {Opcode::SfuEq, [](int32_t a, int32_t b, int32_t) { return int32_t(a == b); }},
      {Opcode::SfuNe, [](int32_t a, int32_t b, int32_t) { return int32_t(a != b); }},
      {Opcode::SfuLt, [](int32_t a, int32_t b, int32_t) { return int32_t(a < b); }},
      {Opcode::SfuLe, [](int32_t a, int32_t b, int32_t) { return int32_t(a <= b); }},
      {Opcode::SfuGt, [](int32_t a, int32_t b, int32_t) { return int32_t(a > b); }},
      {Opcode::SfuGe, [](int32_t a, int32_t b, int32_t) { return int32_t(a >= b); }},
      {Opcode::SfuFma, [](int32_t a, int32_t b,
                          int32_t c) { return wrapInt(uint32_t(a) * uint32_t(b) + uint32_t(c)); }},
      {Opcode::SfuSelect, [](int32_t a, int32_t b, int32_t c) { return a != 0 ? b : c; }},
  };
  // Every elementwise opcode that accepts i32 has a reference here.
  for (const auto& info : spyrecode::allOpcodes()) {
    if (isElementwise(info.op) && info.op != Opcode::SfuSplat &&
        (info.dtypeMask & (1u << static_cast<unsigned>(DType::I32)))) {
      EXPECT_TRUE(refs.count(info.op)) << info.mnemonic;
    }
  }

  const int n = lanesOf(DType::I32, kStick);
  const int32_t edges[] = {INT_MIN, INT_MIN + 1, -65536, -1, 0, 1, 2, 65536, 46341, INT_MAX};
  std::mt19937 rng(99);
  std::vector<uint32_t> a(n), b(n), c(n), out(n);
  for (int round = 0; round < 20; ++round) {
    for (int k = 0; k < n; ++k) {
      a[k] = k < 10 ? bitsOfInt(edges[k]) : static_cast<uint32_t>(rng());
      b[k] = bitsOfInt(edges[(k + round) % 10]);
      c[k] = round % 2 ? static_cast<uint32_t>(rng()) : bitsOfInt(edges[(k * 3 + round) % 10]);
      if (k % 5 == 0) b[k] = a[k];
    }
    for (const auto& [op, ref] : refs) {
      applyElementwise(op, DType::I32, n, a.data(), b.data(), c.data(), out.data());
      for (int k = 0; k < n; ++k)
        ASSERT_EQ(intOf(out[k]), ref(intOf(a[k]), intOf(b[k]), intOf(c[k])))
            << spyrecode::opcodeInfo(op).mnemonic << " lane " << k << " a=" << intOf(a[k])
            << " b=" << intOf(b[k]) << " c=" << intOf(c[k]);
    }
  }
  // The wrap-arounds spelled out.
  auto one = [](Opcode op, int32_t x, int32_t y, int32_t z = 0) {
    uint32_t p = bitsOfInt(x), q = bitsOfInt(y), r = bitsOfInt(z), o = 0;
    applyElementwise(op, DType::I32, 1, &p, &q, &r, &o);
    return intOf(o);
  };
  EXPECT_EQ(one(Opcode::SfuAdd, INT_MAX, 1), INT_MIN);
  EXPECT_EQ(one(Opcode::SfuSub, INT_MIN, 1), INT_MAX);
  EXPECT_EQ(one(Opcode::SfuMul, 65536, 65536), 0);
  EXPECT_EQ(one(Opcode::SfuMul, 46341, 46341), -2147479015);
  EXPECT_EQ(one(Opcode::SfuNeg, INT_MIN, 0), INT_MIN);
  EXPECT_EQ(one(Opcode::SfuAbs, INT_MIN, 0), INT_MIN);
  EXPECT_EQ(one(Opcode::SfuAbs, -5, 0), 5);
  EXPECT_EQ(one(Opcode::SfuFma, 65536, 65536, 7), 7);
  EXPECT_EQ(one(Opcode::SfuLt, -1, 0), 1);
  EXPECT_EQ(one(Opcode::SfuSelect, 0, 11, 22), 22);
}

// ---- reductions --------------------------------------------------------------------------

TEST(SfuMath, LaneReductionsPutTheResultInEveryLane) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> dist(-100.0f, 100.0f);
  for (DType dt : kFloatTypes) {
    const int n = lanesOf(dt, kStick);
    std::vector<float> v(static_cast<size_t>(n));
    for (float& x : v) x = dist(rng);
    std::vector<uint8_t> s = stickOf(dt, v);
    std::vector<uint32_t> lanes(n), out(n);
    decodeStick(dt, Fp16Format::Ieee, s.data(), lanes.data(), n);
    double sum = 0;
    float mx = -INFINITY, mn = INFINITY;
    for (int k = 0; k < n; ++k) {
      float x = floatOf(lanes[k]);
      sum += x;
      mx = std::max(mx, x);
      mn = std::min(mn, x);
    }
    applyLaneReduce(Opcode::SfuLaneAdd, dt, n, lanes.data(), out.data());
    for (int k = 0; k < n; ++k)
      ASSERT_FLOAT_EQ(floatOf(out[k]), static_cast<float>(sum)) << dtypeName(dt) << " lane " << k;
    applyLaneReduce(Opcode::SfuLaneMax, dt, n, lanes.data(), out.data());
    for (int k = 0; k < n; ++k) ASSERT_EQ(floatOf(out[k]), mx) << dtypeName(dt);
    applyLaneReduce(Opcode::SfuLaneMin, dt, n, lanes.data(), out.data());
    for (int k = 0; k < n; ++k) ASSERT_EQ(floatOf(out[k]), mn) << dtypeName(dt);
  }
  // The adder keeps full precision within a stick: 1e8 + 30 ones - 1e8 is 30 (summed in
  // fp32 one by one it would be 0).
  std::vector<uint32_t> lanes(32, bitsOf(1.0f)), out(32);
  lanes[0] = bitsOf(1e8f);
  lanes[31] = bitsOf(-1e8f);
  applyLaneReduce(Opcode::SfuLaneAdd, DType::F32, 32, lanes.data(), out.data());
  EXPECT_EQ(floatOf(out[5]), 30.0f);
  // i32 lanes wrap.
  std::vector<uint32_t> ints(32, bitsOfInt(INT_MAX));
  applyLaneReduce(Opcode::SfuLaneAdd, DType::I32, 32, ints.data(), out.data());
  EXPECT_EQ(intOf(out[0]), wrapInt(uint32_t(INT_MAX) * 32u));
  ints[7] = bitsOfInt(INT_MIN);
  ints[9] = bitsOfInt(-3);
  applyLaneReduce(Opcode::SfuLaneMin, DType::I32, 32, ints.data(), out.data());
  EXPECT_EQ(intOf(out[31]), INT_MIN);
  applyLaneReduce(Opcode::SfuLaneMax, DType::I32, 32, ints.data(), out.data());
  EXPECT_EQ(intOf(out[0]), INT_MAX);
}

TEST(SfuMath, AccumulateLaneByLane) {
  std::mt19937 rng(8);
  std::uniform_real_distribution<float> dist(-10.0f, 10.0f);
  const int n = 64;
  std::vector<uint32_t> accAdd(n, bitsOf(0.0f)), accMax(n, bitsOf(-INFINITY)),
      accMin(n, bitsOf(INFINITY));
  std::vector<float> sum(n, 0.0f), mx(n, -INFINITY), mn(n, INFINITY);
  for (int s = 0; s < 10; ++s) {
    std::vector<uint32_t> a(n);
    for (int k = 0; k < n; ++k) {
      float x = roundTo(DType::F16, dist(rng));
      a[k] = bitsOf(x);
      sum[k] += x;
      mx[k] = std::max(mx[k], x);
      mn[k] = std::min(mn[k], x);
    }
    applyAccumulate(Opcode::SfuAccAdd, DType::F16, n, a.data(), accAdd.data());
    applyAccumulate(Opcode::SfuAccMax, DType::F16, n, a.data(), accMax.data());
    applyAccumulate(Opcode::SfuAccMin, DType::F16, n, a.data(), accMin.data());
  }
  for (int k = 0; k < n; ++k) {
    EXPECT_EQ(floatOf(accAdd[k]), sum[k]) << k; // fp32 register, same order of additions
    EXPECT_EQ(floatOf(accMax[k]), mx[k]) << k;
    EXPECT_EQ(floatOf(accMin[k]), mn[k]) << k;
  }
  // i32 accumulation wraps.
  std::vector<uint32_t> acc(32, bitsOfInt(INT_MAX)), one(32, bitsOfInt(1));
  applyAccumulate(Opcode::SfuAccAdd, DType::I32, 32, one.data(), acc.data());
  EXPECT_EQ(intOf(acc[3]), INT_MIN);
  applyAccumulate(Opcode::SfuAccMax, DType::I32, 32, one.data(), acc.data());
  EXPECT_EQ(intOf(acc[3]), 1);
}

// ---- ring reductions ---------------------------------------------------------------------

TEST(SfuMath, CombineSticksAddMaxMin) {
  std::mt19937 rng(31);
  std::uniform_real_distribution<float> dist(-50.0f, 50.0f);
  const size_t sticks = 3;
  for (Fp16Format fmt : {Fp16Format::Ieee, Fp16Format::DLFloat16})
    for (DType dt : {DType::F16, DType::BF16, DType::F32, DType::I32})
      for (RingOp op : {RingOp::Add, RingOp::Max, RingOp::Min}) {
        SCOPED_TRACE(std::string(dtypeName(dt)) + " op " + std::to_string(static_cast<int>(op)) +
                     (fmt == Fp16Format::Ieee ? " ieee" : " dlfloat16"));
        const int n = lanesOf(dt, kStick);
        std::vector<uint8_t> src(sticks * kStick), dst(sticks * kStick);
        std::vector<float> fs(sticks * n), fd(sticks * n);
        std::vector<int32_t> is(sticks * n), id(sticks * n);
        for (size_t s = 0; s < sticks; ++s) {
          std::vector<float> a(n), b(n);
          for (int k = 0; k < n; ++k) {
            a[k] = dist(rng);
            b[k] = dist(rng);
          }
          if (dt == DType::I32) {
            for (int k = 0; k < n; ++k) {
              int32_t x = static_cast<int32_t>(rng()), y = static_cast<int32_t>(rng());
              is[s * n + k] = x;
              id[s * n + k] = y;
              std::memcpy(&src[s * kStick + 4 * k], &x, 4);
              std::memcpy(&dst[s * kStick + 4 * k], &y, 4);
            }
            continue;
          }
          std::vector<uint8_t> sa = stickOf(dt, a, fmt), sb = stickOf(dt, b, fmt);
          std::copy(sa.begin(), sa.end(), src.begin() + s * kStick);
          std::copy(sb.begin(), sb.end(), dst.begin() + s * kStick);
          for (int k = 0; k < n; ++k) {
            fs[s * n + k] = roundTo(dt, a[k], fmt);
            fd[s * n + k] = roundTo(dt, b[k], fmt);
          }
        }
        const std::vector<uint8_t> srcCopy = src;
        combineSticks(op, dt, fmt, src.data(), dst.data(), sticks, kStick);
        EXPECT_EQ(src, srcCopy); // the source is only read
        for (size_t s = 0; s < sticks; ++s)
          for (int k = 0; k < n; ++k) {
            size_t i = s * n + k;
            if (dt == DType::I32) {
              int32_t want = op == RingOp::Add   ? wrapInt(uint32_t(id[i]) + uint32_t(is[i]))
                             : op == RingOp::Max ? std::max(id[i], is[i])
                                                 : std::min(id[i], is[i]);
              int32_t got;
              std::memcpy(&got, &dst[s * kStick + 4 * k], 4);
              ASSERT_EQ(got, want) << "stick " << s << " lane " << k;
              continue;
            }
            float r = op == RingOp::Add   ? fd[i] + fs[i]
                      : op == RingOp::Max ? std::max(fd[i], fs[i])
                                          : std::min(fd[i], fs[i]);
            std::vector<uint8_t> want = stickOf(dt, {roundTo(dt, r, fmt)}, fmt);
            size_t es = dtypeSize(dt);
            ASSERT_EQ(std::memcmp(&dst[s * kStick + es * k], want.data(), es), 0)
                << "stick " << s << " lane " << k << ": " << fd[i] << " op " << fs[i];
          }
      }
}

// ---- DLFloat16 -----------------------------------------------------------------------------

TEST(SfuMath, DLFloat16StickRoundTrip) {
  const int n = 64;
  // Every DLFloat16 pattern but the NaN code decodes and re-encodes to itself.
  for (uint32_t base = 0; base < 65536; base += n) {
    std::vector<uint8_t> stick(kStick);
    for (int k = 0; k < n; ++k) {
      uint16_t h = static_cast<uint16_t>(base + k);
      if ((h & 0x7FFF) == 0x7FFF) h = 0x3E00; // skip the NaN/infinity code
      std::memcpy(&stick[2 * k], &h, 2);
    }
    std::vector<uint32_t> lanes(n);
    decodeStick(DType::F16, Fp16Format::DLFloat16, stick.data(), lanes.data(), n);
    for (int k = 0; k < n; ++k) {
      uint16_t h;
      std::memcpy(&h, &stick[2 * k], 2);
      ASSERT_EQ(bitsOf(dlf16ToFloat(h)), lanes[k]) << std::hex << h;
    }
    std::vector<uint8_t> again(kStick, 0xCC);
    encodeStick(DType::F16, Fp16Format::DLFloat16, lanes.data(), again.data(), n);
    ASSERT_EQ(again, stick) << "patterns from " << base;
  }
  // Encoding rounds with floatToDlf16, not IEEE binary16.
  std::vector<float> values = {1e9f, -3.0e-10f, 65520.0f, 1.0f + 1.0f / 1024, 0.1f, -0.0f};
  std::vector<uint32_t> lanes;
  for (float v : values) lanes.push_back(bitsOf(v));
  std::vector<uint8_t> stick(2 * values.size());
  encodeStick(DType::F16, Fp16Format::DLFloat16, lanes.data(), stick.data(),
              static_cast<int>(values.size()));
  std::vector<uint32_t> back(values.size());
  decodeStick(DType::F16, Fp16Format::DLFloat16, stick.data(), back.data(),
              static_cast<int>(values.size()));
  for (size_t k = 0; k < values.size(); ++k) {
    uint16_t h;
    std::memcpy(&h, &stick[2 * k], 2);
    EXPECT_EQ(h, floatToDlf16(values[k])) << values[k];
    EXPECT_EQ(floatOf(back[k]), dlf16ToFloat(floatToDlf16(values[k]))) << values[k];
  }
  // 1e9 is finite in DLFloat16 (IEEE binary16 overflows at 65504).
  EXPECT_NEAR(floatOf(back[0]), 1e9f, 1e9f / 512);
  // IEEE binary16 of the same lanes differs.
  std::vector<uint8_t> ieee(2 * values.size());
  encodeStick(DType::F16, Fp16Format::Ieee, lanes.data(), ieee.data(),
              static_cast<int>(values.size()));
  EXPECT_NE(ieee, stick);
}

TEST(SfuMath, F32AndI32SticksAreCopiedBitForBit) {
  std::vector<uint32_t> lanes(32);
  for (int k = 0; k < 32; ++k) lanes[k] = 0x9E3779B9u * static_cast<uint32_t>(k + 1);
  for (DType dt : {DType::F32, DType::I32}) {
    std::vector<uint8_t> stick(kStick);
    encodeStick(dt, Fp16Format::DLFloat16, lanes.data(), stick.data(), 32);
    EXPECT_EQ(std::memcmp(stick.data(), lanes.data(), kStick), 0);
    std::vector<uint32_t> back(32);
    decodeStick(dt, Fp16Format::DLFloat16, stick.data(), back.data(), 32);
    EXPECT_EQ(back, lanes);
  }
  // bf16 truncates to the upper half with rounding to nearest even.
  uint32_t x = bitsOf(1.0f + std::ldexp(1.0f, -8)); // halfway between two bf16 values
  uint8_t s[2];
  encodeStick(DType::BF16, Fp16Format::Ieee, &x, s, 1);
  uint32_t y = 0;
  decodeStick(DType::BF16, Fp16Format::Ieee, s, &y, 1);
  EXPECT_EQ(floatOf(y), 1.0f);
}

} // namespace
} // namespace chipless::sim::spyre
