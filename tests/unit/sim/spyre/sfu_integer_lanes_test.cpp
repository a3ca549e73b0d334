/// SFU programs on i32 lanes and integer launch values: integer streams that wrap around,
/// conversions between lane types (sfu.cvt), an integer scalar as a float, an integer
/// expression splat into every lane (sfu.splat.int) and integer division (sfu.div.i32).
#include "tests/unit/util/runtime_test_util.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>

namespace chipless::runtime {
namespace {

using namespace test;

TEST(Compute, SfuIntegerStreamWrapsAround) {
  const char* text = R"(
.kernel iadd
.input  X i32 [2, 32]
.output Y i32 [2, 32]
.program dma_in cores=1
    dma.load sp=0, mem=@X, bytes=256, done=0
.end
.program load cores=1 corelet=0
    twait 0
    ld.stream n0=1, fifo=in0, addr=0, fifo_b=in1, addr_b=128
.end
.program compute cores=1 corelet=0
    sfu.splat.i32 v2, 3
    sfu.add.i32 1, v0, in0, in1
    sfu.mul.i32 1, out0, v0, v2     ; (a + b) * 3
    sfu.lane.max.i32 1, out0, v0    ; max over the lanes of a + b
.end
.program store cores=1 corelet=0
    st.stream n0=2, fifo=out0, addr=1024
    tsend 1
.end
.program dma_out cores=1
    twait 1
    dma.store sp=1024, mem=@Y, bytes=256
.end
)";
  auto device = openDevice(smallArch());
  NpyArray x = hostArray(DType::I32, {2, 32}, [](size_t i) -> int64_t {
    if (i == 0) return 2147483647; // a = INT_MAX, b = 1: wraps to INT_MIN
    if (i == 32) return 1;
    return static_cast<int64_t>(i * 7919 % 1000) - 500;
  });
  const NpyArray y = runText(*device, text, {{{"X", x}}, {}, nullptr}).outputs.at("Y");
  int32_t laneMax = INT32_MIN;
  for (size_t i = 0; i < 32; ++i) {
    uint32_t sum = static_cast<uint32_t>(static_cast<int32_t>(at(x, i))) +
                   static_cast<uint32_t>(static_cast<int32_t>(at(x, 32 + i)));
    laneMax = std::max(laneMax, static_cast<int32_t>(sum));
    ASSERT_EQ(at(y, i), static_cast<int32_t>(sum * 3u)) << i;
  }
  EXPECT_EQ(at(y, 0), static_cast<int32_t>(0x80000000u * 3u));
  for (size_t i = 0; i < 32; ++i) ASSERT_EQ(at(y, 32 + i), laneMax) << i;
}

/// sfu.cvt: one f16 stick widened into two f32 sticks (parts 0 and 1) and narrowed back
/// (a and b side by side); f32 to i32 truncating, saturating and NaN to 0; i32 to f16.
TEST(Compute, SfuConvertsWidensAndNarrows) {
  const char* text = R"(
.kernel cvt
.input  X f16 [64]
.input  F f32 [32]
.output W f32 [64]
.output N f16 [64]
.output I i32 [32]
.output H f16 [64]
.program dma_in cores=0
    dma.load sp=0, mem=@X, bytes=128, done=0
    dma.load sp=128, mem=@F, bytes=128, done=1
.end
.program load cores=0 corelet=0
    twait 0
    twait 1
    ld.stream n0=1, fifo=in0, addr=0
    ld.stream n0=1, fifo=in0, addr=0
    twait 2
    ld.stream n0=1, fifo=in0, addr=256, fifo_b=in1, addr_b=384
    ld.stream n0=1, fifo=in0, addr=128
    twait 3
    ld.stream n0=1, fifo=in0, addr=768
.end
.program compute cores=0 corelet=0
    sfu.cvt.f32 1, out0, in0, from=f16, part=0
    sfu.cvt.f32 1, out0, in0, from=f16, part=1
    sfu.cvt.f16 1, out0, in0, in1, from=f32
    sfu.cvt.i32 1, out0, in0, from=f32
    sfu.cvt.f16 1, out0, in0, from=i32
.end
.program store cores=0 corelet=0
    st.stream n0=2, fifo=out0, addr=256
    tsend 2
    st.stream n0=1, fifo=out0, addr=512
    st.stream n0=1, fifo=out0, addr=768
    tsend 3
    st.stream n0=1, fifo=out0, addr=1024
    tsend 4
.end
.program dma_out cores=0
    twait 4
    dma.store sp=256, mem=@W, bytes=256
    dma.store sp=512, mem=@N, bytes=128
    dma.store sp=768, mem=@I, bytes=128
    dma.store sp=1024, mem=@H, bytes=128
.end
)";
  auto device = openDevice(smallArch());
  NpyArray x =
      hostArray(DType::F16, {64}, [](size_t i) { return (static_cast<double>(i) - 20) / 8; });
  const double f[8] = {NAN, INFINITY, -3e9, 2.9, -2.9, 70000.5, -0.5, 123456.7};
  NpyArray fx = hostArray(DType::F32, {32}, [&](size_t i) { return i < 8 ? f[i] : i * 1.5 - 7; });
  LaunchReport r = runText(*device, text, {{{"X", x}, {"F", fx}}, {}, nullptr});
  for (size_t i = 0; i < 64; ++i) {
    ASSERT_EQ(at(r.outputs.at("W"), i), at(x, i)) << i; // exact widening
    ASSERT_EQ(at(r.outputs.at("N"), i), at(x, i)) << i; // and back
  }
  const int64_t want[8] = {0, INT32_MAX, INT32_MIN, 2, -2, 70000, 0, 123456};
  for (size_t i = 0; i < 32; ++i)
    ASSERT_EQ(at(r.outputs.at("I"), i), i < 8 ? want[i] : std::trunc(i * 1.5 - 7)) << i;
  // i32 to f16: the first 32 lanes (70000 past the f16 range: inf), the rest 0.
  EXPECT_EQ(at(r.outputs.at("H"), 0), 0.0);
  EXPECT_EQ(at(r.outputs.at("H"), 5), INFINITY);
  EXPECT_EQ(at(r.outputs.at("H"), 7), 123456.0 > 65504 ? INFINITY : 123456.0);
  EXPECT_EQ(at(r.outputs.at("H"), 40), 0.0);
}

TEST(Compute, SfuConvertRefusesWhatItCannotDo) {
  auto device = openDevice(smallArch());
  auto program = [](const std::string& ins) {
    return ".kernel k\n.program compute cores=0 corelet=0\n    " + ins + "\n.end\n";
  };
  EXPECT_CONTAINS(
      errorOf([&] { runText(*device, program("sfu.cvt.f32 1, out0, in0, from=f16, part=2"), {}); }),
      "part = 2: a widening takes half 0 or 1 of each stick");
  EXPECT_CONTAINS(
      errorOf([&] { runText(*device, program("sfu.cvt.f32 1, out0, in0, in1, from=i32"), {}); }),
      "only a narrowing (32 to 16 bits) reads b");
  EXPECT_CONTAINS(
      errorOf([&] { runText(*device, program("sfu.cvt.f16 1, v0, in0, from=f32"), {}); }),
      "sfu.cvt writes an output FIFO, not 'v0'");
}

TEST(Compute, AnIntegerScalarAsAFloat) {
  // @N.f16 is the integer scalar N rounded to f16 (4097 -> 4096), as a kernel's sitofp.
  const char* text = R"(
.kernel k
.scalar N
.output Y f32 [1, 32]
.program compute cores=0 corelet=0
    sfu.splat.f32 v0, @N.f16
    sfu.splat.f32 v1, @N.f32
    sfu.sub.f32 1, out0, v1, v0
.end
.program store cores=0 corelet=0
    st.stream n0=1, fifo=out0, addr=0
    tsend 1
.end
.program dma_out cores=0
    twait 1
    dma.store sp=0, mem=@Y, bytes=128
.end
)";
  auto device = openDevice(smallArch());
  LaunchArgs args;
  args.scalars = {{"N", 4097}};
  LaunchReport out = runText(*device, text, args);
  EXPECT_EQ(at(out.outputs.at("Y"), 0), 1.0);
}

/// sfu.splat.int: an expression of an integer scalar and a register (N + r1 - 3) in every
/// lane, as i32 and as f32 (rounded: 16777217 -> 16777216); sfu.div.i32 truncates toward
/// zero, gives -1 for a division by 0 and INT_MIN for INT_MIN / -1.
TEST(Compute, SplatOfAnIntegerExpressionAndIntegerDivision) {
  const char* text = R"(
.kernel k
.scalar N
.input  X i32 [2, 32]
.output Y i32 [1, 32]
.output Z f32 [1, 32]
.output Q i32 [1, 32]
.program dma_in cores=0
    dma.load sp=0, mem=@X, bytes=256, done=0
.end
.program load cores=0 corelet=0
    twait 0
    ld.stream n0=1, fifo=in0, addr=0, fifo_b=in1, addr_b=128
.end
.program compute cores=0 corelet=0
    li r1, 10
    sfu.splat.int.i32 v0, @N+r1-3
    sfu.mov.i32 1, out0, v0
    sfu.splat.int.f32 v1, @N
    sfu.mov.f32 1, out0, v1
    sfu.div.i32 1, out0, in0, in1
.end
.program store cores=0 corelet=0
    st.stream n0=3, fifo=out0, addr=1024
    tsend 1
.end
.program dma_out cores=0
    twait 1
    dma.store sp=1024, mem=@Y, bytes=128
    dma.store sp=1152, mem=@Z, bytes=128
    dma.store sp=1280, mem=@Q, bytes=128
.end
)";
  auto device = openDevice(smallArch());
  const int32_t a[] = {7, -7, 7, -7, 5, INT32_MIN, 0, 100};
  const int32_t b[] = {2, 2, -2, -2, 0, -1, 3, 7};
  NpyArray x = hostArray(DType::I32, {2, 32}, [&](size_t i) -> int64_t {
    const size_t lane = i % 32 % 8;
    return i < 32 ? a[lane] : b[lane];
  });
  LaunchArgs args;
  args.inputs = {{"X", x}};
  args.scalars = {{"N", 16777217}};
  LaunchReport out = runText(*device, text, args);
  const int32_t quotient[] = {3, -3, -3, 3, -1, INT32_MIN, 0, 14};
  for (size_t i = 0; i < 32; ++i) {
    ASSERT_EQ(at(out.outputs.at("Y"), i), 16777224) << i;
    ASSERT_EQ(at(out.outputs.at("Z"), i), 16777216.0) << i;
    ASSERT_EQ(at(out.outputs.at("Q"), i), quotient[i % 8]) << i;
  }
}

TEST(Compute, ASplatOfAnIntegerPastTheLanesRangeFaults) {
  const char* text = ".kernel k\n.scalar N\n.program compute cores=0 corelet=0\n"
                     "    sfu.splat.int.i32 v0, @N\n.end\n";
  auto device = openDevice(smallArch());
  LaunchArgs args;
  args.scalars = {{"N", int64_t(1) << 31}};
  EXPECT_CONTAINS(errorOf([&] { runText(*device, text, args); }),
                  "value = 2147483648 outside the i32 range of a lane");
}

TEST(Compute, ARealValueForAnIntegerScalarIsRefused) {
  auto device = openDevice(smallArch());
  const char* text = ".kernel k\n.scalar N\n.program dma_in cores=0\n li r1, @N\n.end\n";
  LaunchArgs args;
  args.reals = {{"N", 2.5}};
  EXPECT_CONTAINS(errorOf([&] { runText(*device, text, args); }),
                  "scalar 'N' of k is an integer, but --scalar N is 2.5");
}

} // namespace
} // namespace chipless::runtime
