/// Tests of the SFU's bulk runs (sim/spyre/sfu_math: applyElementwiseRun, multi-stick
/// decodeStick/encodeStick, combineSticks in runs) against the per-element path
/// (sfuFloatOp / sfuIntOp one lane at a time, the scalar encoders of support/numerics.h),
/// bit for bit, for every elementwise opcode, register and stream operands, in place.
#include "sim/spyre/sfu_math.h"
#include "support/float_bits.h"
#include "support/numerics.h"
#include "support/spyrecode/isa.h"

#include <cmath>
#include <cstring>
#include <gtest/gtest.h>
#include <random>
#include <vector>

namespace chipless::sim::spyre {
namespace {

using spyrecode::Opcode;

constexpr int kStick = 128;

/// Every opcode with an elementwise meaning (the ones sfu_math_test checks formula by
/// formula), plus sfu.mov.
std::vector<Opcode> elementwiseOps() {
  return {Opcode::SfuMov,   Opcode::SfuNeg,   Opcode::SfuAbs,  Opcode::SfuExp,     Opcode::SfuLog,
          Opcode::SfuRecip, Opcode::SfuRsqrt, Opcode::SfuSqrt, Opcode::SfuSigmoid, Opcode::SfuTanh,
          Opcode::SfuGelu,  Opcode::SfuSilu,  Opcode::SfuRelu, Opcode::SfuAdd,     Opcode::SfuSub,
          Opcode::SfuMul,   Opcode::SfuDiv,   Opcode::SfuMax,  Opcode::SfuMin,     Opcode::SfuEq,
          Opcode::SfuNe,    Opcode::SfuLt,    Opcode::SfuLe,   Opcode::SfuGt,      Opcode::SfuGe,
          Opcode::SfuFma,   Opcode::SfuSelect};
}

/// Lanes with special values mixed in: zeros of both signs, infinities, NaN, negatives,
/// equal neighbours (so compares and select see both outcomes).
std::vector<uint32_t> floatLanes(size_t n, std::mt19937& rng) {
  std::vector<uint32_t> v(n);
  std::normal_distribution<float> normal(0.0f, 3.0f);
  const float specials[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1.0f, -1.0f, 65504.0f};
  for (size_t k = 0; k < n; ++k) v[k] = bitsOf(k % 7 == 3 ? specials[rng() % 8] : normal(rng));
  return v;
}

std::vector<uint32_t> intLanes(size_t n, std::mt19937& rng) {
  std::vector<uint32_t> v(n);
  const uint32_t specials[] = {0u, 1u, 0xFFFFFFFFu, 0x80000000u, 0x7FFFFFFFu};
  for (size_t k = 0; k < n; ++k) v[k] = k % 5 == 2 ? specials[rng() % 5] : rng() % 2001 - 1000;
  return v;
}

TEST(SfuBulk, RunsMatchThePerElementOpOnEveryOpcode) {
  std::mt19937 rng(99);
  const int64_t items = 37; // not a multiple of any vector width
  for (DType dt : {DType::F32, DType::I32}) {
    const int n = lanesOf(dt, kStick);
    const size_t total = static_cast<size_t>(items * n);
    for (Opcode op : elementwiseOps()) {
      SCOPED_TRACE(std::string(spyrecode::opcodeInfo(op).mnemonic) + "." + dtypeName(dt));
      // Every combination of register (stride 0) and stream (stride n) operands.
      for (int mask = 0; mask < 8; ++mask) {
        std::vector<uint32_t> src[3];
        int64_t stride[3];
        for (int j = 0; j < 3; ++j) {
          stride[j] = (mask >> j) & 1 ? n : 0;
          const size_t size = stride[j] ? total : static_cast<size_t>(n);
          src[j] = dt == DType::I32 ? intLanes(size, rng) : floatLanes(size, rng);
        }
        std::vector<uint32_t> got(total);
        applyElementwiseRun(op, dt, n, items, src[0].data(), stride[0], src[1].data(), stride[1],
                            src[2].data(), stride[2], got.data());
        for (int64_t it = 0; it < items; ++it)
          for (int k = 0; k < n; ++k) {
            uint32_t x = src[0][it * stride[0] + k], y = src[1][it * stride[1] + k],
                     z = src[2][it * stride[2] + k];
            uint32_t want = dt == DType::I32
                                ? static_cast<uint32_t>(sfuIntOp(op, static_cast<int32_t>(x),
                                                                 static_cast<int32_t>(y),
                                                                 static_cast<int32_t>(z)))
                                : bitsOf(sfuFloatOp(op, floatOf(x), floatOf(y), floatOf(z)));
            ASSERT_EQ(got[it * n + k], want) << "item " << it << " lane " << k << " mask " << mask;
          }
      }
    }
  }
}

TEST(SfuBulk, InPlaceRunAndMissingOperands) {
  std::mt19937 rng(5);
  const int n = lanesOf(DType::F32, kStick);
  const int64_t items = 9;
  std::vector<uint32_t> a = floatLanes(static_cast<size_t>(items * n), rng);
  std::vector<uint32_t> b = floatLanes(static_cast<size_t>(n), rng);
  std::vector<uint32_t> want(a.size());
  for (size_t k = 0; k < a.size(); ++k)
    want[k] = bitsOf(sfuFloatOp(Opcode::SfuMul, floatOf(a[k]), floatOf(b[k % n]), 0.0f));
  applyElementwiseRun(Opcode::SfuMul, DType::F32, n, items, a.data(), n, b.data(), 0, nullptr, 0,
                      a.data());
  EXPECT_EQ(a, want);
  // A one-operand op without b and c; an fma without c reads zeros.
  std::vector<uint32_t> r(static_cast<size_t>(n));
  applyElementwiseRun(Opcode::SfuFma, DType::F32, n, 1, b.data(), 0, b.data(), 0, nullptr, 0,
                      r.data());
  for (int k = 0; k < n; ++k)
    EXPECT_EQ(r[k], bitsOf(sfuFloatOp(Opcode::SfuFma, floatOf(b[k]), floatOf(b[k]), 0.0f)));
}

TEST(SfuBulk, MultiStickDecodeEncodeMatchesScalarConverters) {
  std::mt19937 rng(8);
  const size_t sticks = 11;
  for (Fp16Format fmt : {Fp16Format::Ieee, Fp16Format::DLFloat16})
    for (DType dt : {DType::F16, DType::BF16}) {
      const size_t n = sticks * static_cast<size_t>(lanesOf(dt, kStick));
      std::vector<uint32_t> lanes = floatLanes(n, rng);
      std::vector<uint8_t> bytes(2 * n);
      encodeStick(dt, fmt, lanes.data(), bytes.data(), n);
      std::vector<uint32_t> back(n);
      decodeStick(dt, fmt, bytes.data(), back.data(), n);
      for (size_t k = 0; k < n; ++k) {
        const float v = floatOf(lanes[k]);
        const uint16_t h = dt == DType::F16 ? encodeF16(v, fmt) : floatToBf16(v);
        ASSERT_EQ(bytes[2 * k] | (bytes[2 * k + 1] << 8), h) << k;
        const float d = dt == DType::F16 ? decodeF16(h, fmt) : bf16ToFloat(h);
        ASSERT_EQ(back[k], bitsOf(d)) << k;
      }
    }
}

/// combineSticks one stick at a time with the per-element op: the reference.
void combineReference(RingOp op, DType dt, Fp16Format fmt, const uint8_t* src, uint8_t* dst,
                      size_t sticks) {
  const int n = lanesOf(dt, kStick);
  const Opcode base = op == RingOp::Add   ? Opcode::SfuAdd
                      : op == RingOp::Max ? Opcode::SfuMax
                                          : Opcode::SfuMin;
  std::vector<float> a(static_cast<size_t>(n)), b(static_cast<size_t>(n));
  for (size_t s = 0; s < sticks; ++s) {
    decodeToFloat(dt, src + s * kStick, a.data(), static_cast<size_t>(n), fmt);
    decodeToFloat(dt, dst + s * kStick, b.data(), static_cast<size_t>(n), fmt);
    for (int k = 0; k < n; ++k) b[k] = sfuFloatOp(base, b[k], a[k], 0.0f);
    encodeFromFloat(dt, b.data(), dst + s * kStick, static_cast<size_t>(n), fmt);
  }
}

TEST(SfuBulk, CombineSticksInRunsMatchesStickByStick) {
  std::mt19937 rng(11);
  const size_t sticks = 150; // more than one run of 64
  for (Fp16Format fmt : {Fp16Format::Ieee, Fp16Format::DLFloat16})
    for (RingOp op : {RingOp::Add, RingOp::Max, RingOp::Min})
      for (DType dt : {DType::F16, DType::F32}) {
        std::vector<uint8_t> buffer(kStick * (sticks + 3));
        for (size_t k = 0; k < buffer.size(); k += 2) {
          const uint16_t h = encodeF16(std::normal_distribution<float>(0, 2)(rng), fmt);
          buffer[k] = static_cast<uint8_t>(h), buffer[k + 1] = static_cast<uint8_t>(h >> 8);
        }
        // Separate buffers, then source and destination overlapping by one stick either way.
        for (int shift : {1000, 1, -1}) {
          std::vector<uint8_t> got = buffer, want = buffer;
          const size_t srcAt = shift < 0 ? kStick : 0;
          const size_t dstAt = shift == 1000 ? 0 : shift > 0 ? kStick : 0;
          std::vector<uint8_t> separate(kStick * sticks);
          for (size_t k = 0; k < separate.size(); ++k) separate[k] = buffer[k] ^ 0x11;
          const uint8_t* srcGot = shift == 1000 ? separate.data() : got.data() + srcAt;
          const uint8_t* srcWant = shift == 1000 ? separate.data() : want.data() + srcAt;
          combineSticks(op, dt, fmt, srcGot, got.data() + dstAt, sticks, kStick);
          combineReference(op, dt, fmt, srcWant, want.data() + dstAt, sticks);
          ASSERT_EQ(got, want) << "op " << static_cast<int>(op) << " shift " << shift;
        }
      }
}

} // namespace
} // namespace chipless::sim::spyre
