/// Numerics and timing of whole programs: a PT-array matmul tile accumulated over two
/// k-tiles, an SFU softmax sequence, ring reductions between two cores, the bundled add
/// kernel in functional and timing-only mode, and repeatability of launches.
#include "tests/unit/util/runtime_test_util.h"

#include <cmath>
#include <fstream>
#include <random>
#include <sstream>

namespace chipless::runtime {
namespace {

using namespace test;

/// Random f16-representable values in [lo, hi].
NpyArray randomArray(DType dt, std::vector<int64_t> shape, unsigned seed, double lo, double hi) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  return hostArray(dt, std::move(shape), [&](size_t) { return dist(rng); });
}

// ---- PT array -------------------------------------------------------------------------------

/// C (16 x 64, f32) = A (16 x 128) x B (128 x 64), f16 inputs, as two 16x64x64 tiles: the
/// first starts the accumulators (acc=0, emit=0), the second adds to them (acc=1) and
/// emits fp32 results.
const char* kMatmul = R"(
.kernel mm
.input  A f16 [16, 128]
.input  B f16 [128, 64]
.output C f32 [16, 64]
.program dma_in cores=0
    dma.load sp=0, mem=@A, bytes=4096, done=0       ; 2 k-chunks x 16 rows
    dma.load sp=4096, mem=@B, bytes=16384, done=1   ; 128 rows of one stick
.end
.program load cores=0 corelet=0
    twait 0
    twait 1
    ld.stream n0=16, fifo=in0, addr=0               ; A, k 0..63
    ld.stream n0=64, fifo=in1, addr=4096            ; B rows 0..63
    ld.stream n0=16, fifo=in0, addr=2048            ; A, k 64..127
    ld.stream n0=64, fifo=in1, addr=12288           ; B rows 64..127
.end
.program compute cores=0 corelet=0
    pt.mm.f16 m=16, k=64, n=64, a=in0, b=in1, emit=0
    pt.mm.f16 m=16, k=64, n=64, a=in0, b=in1, dst=out0, acc=1, out=f32
.end
.program store cores=0 corelet=0
    ; row r, half h of the f32 result goes to the device layout's stick h * 16 + r
    st.stream n0=2, fifo=out0, addr=65536, s0=2048, n1=16, s1=128
    tsend 2
.end
.program dma_out cores=0
    twait 2
    dma.store sp=65536, mem=@C, bytes=4096
.end
)";

TEST(Compute, MatmulTileAccumulatedOverTwoKTiles) {
  auto device = openDevice(smallArch());
  NpyArray a = randomArray(DType::F16, {16, 128}, 1, -1, 1);
  NpyArray b = randomArray(DType::F16, {128, 64}, 2, -1, 1);
  LaunchReport out = runText(*device, kMatmul, {{{"A", a}, {"B", b}}, {}, nullptr});
  const NpyArray& c = out.outputs.at("C");
  ASSERT_EQ(c.dtype, DType::F32);
  ASSERT_EQ(c.shape, (std::vector<int64_t>{16, 64}));
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 64; ++j) {
      double ref = 0;
      for (int k = 0; k < 128; ++k) ref += at(a, i * 128 + k) * at(b, k * 64 + j);
      double got = at(c, static_cast<size_t>(i * 64 + j));
      ASSERT_NEAR(got, ref, 1e-4 * (1 + std::fabs(ref))) << i << "," << j;
    }
  EXPECT_GT(out.cycles, 0);
}

TEST(Compute, MatmulWithoutAccumulationStartsFromZero) {
  // The same kernel with acc=0 on the second tile: only k 64..127 contribute.
  std::string text = kMatmul;
  text.replace(text.find("acc=1"), 5, "acc=0");
  auto device = openDevice(smallArch());
  NpyArray a = randomArray(DType::F16, {16, 128}, 3, -2, 2);
  NpyArray b = randomArray(DType::F16, {128, 64}, 4, -2, 2);
  const NpyArray c = runText(*device, text, {{{"A", a}, {"B", b}}, {}, nullptr}).outputs.at("C");
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 64; ++j) {
      double ref = 0;
      for (int k = 64; k < 128; ++k) ref += at(a, i * 128 + k) * at(b, k * 64 + j);
      ASSERT_NEAR(at(c, static_cast<size_t>(i * 64 + j)), ref, 1e-4 * (1 + std::fabs(ref)));
    }
}

// ---- SFU ------------------------------------------------------------------------------------

/// Softmax over one row of 256 f16 values (4 sticks): acc.max and lane.max find the
/// maximum, sub/exp/acc.add and lane.add the sum of exponentials, recip and mul scale.
const char* kSoftmax = R"(
.kernel softmax
.input  X f16 [1, 256]
.output Y f16 [1, 256]
.program dma_in cores=0
    dma.load sp=0, mem=@X, bytes=512, done=0
.end
.program load cores=0 corelet=0
    twait 0
    ld.stream n0=4, fifo=in0, addr=0
    ld.stream n0=4, fifo=in0, addr=0
    ld.stream n0=4, fifo=in0, addr=0
.end
.program compute cores=0 corelet=0
    sfu.splat.f16 v0, -inf
    sfu.acc.max.f16 4, v0, in0          ; lane-wise max over the sticks
    sfu.lane.max.f16 1, v1, v0          ; the row max, in every lane
    sfu.splat.f16 v4, 0
    loop 4
      sfu.sub.f16 1, v2, in0, v1
      sfu.exp.f16 1, v3, v2
      sfu.acc.add.f16 1, v4, v3
    endloop
    sfu.lane.add.f16 1, v5, v4          ; sum of exponentials
    sfu.recip.f16 1, v6, v5
    loop 4
      sfu.sub.f16 1, v2, in0, v1
      sfu.exp.f16 1, v3, v2
      sfu.mul.f16 1, out0, v3, v6
    endloop
.end
.program store cores=0 corelet=0
    st.stream n0=4, fifo=out0, addr=4096
    tsend 1
.end
.program dma_out cores=0
    twait 1
    dma.store sp=4096, mem=@Y, bytes=512
.end
)";

TEST(Compute, SoftmaxSequenceOnTheSfu) {
  auto device = openDevice(smallArch());
  NpyArray x = randomArray(DType::F16, {1, 256}, 5, -6, 9);
  LaunchReport out = runText(*device, kSoftmax, {{{"X", x}}, {}, nullptr});
  const NpyArray& y = out.outputs.at("Y");
  // Reference in fp32, as the SFU computes: registers keep fp32, the FIFO result rounds.
  float m = -INFINITY;
  for (int i = 0; i < 256; ++i) m = std::max(m, static_cast<float>(at(x, i)));
  std::vector<float> lane(64, 0.0f);
  for (int s = 0; s < 4; ++s)
    for (int l = 0; l < 64; ++l) lane[l] += std::exp(static_cast<float>(at(x, s * 64 + l)) - m);
  double sum = 0;
  for (float v : lane) sum += v;
  const float r = 1.0f / static_cast<float>(sum);
  double total = 0;
  for (int i = 0; i < 256; ++i) {
    float want = halfToFloat(floatToHalf(std::exp(static_cast<float>(at(x, i)) - m) * r));
    double got = at(y, i);
    ASSERT_NEAR(got, want, std::fabs(want) / 1024 + 1e-7) << i << " x=" << at(x, i);
    total += got;
  }
  EXPECT_NEAR(total, 1.0, 0.01);
}

TEST(Compute, SfuStreamsFromThreeFifos) {
  // fma reads three input FIFOs (a and b pushed in lockstep by a two-lane ld.stream) and
  // writes an output FIFO.
  const char* text = R"(
.kernel fma
.input  X f32 [3, 32]
.output Y f32 [1, 32]
.program dma_in cores=0
    dma.load sp=0, mem=@X, bytes=384, done=0
.end
.program load cores=0 corelet=1
    twait 0
    ld.stream n0=1, fifo=in0, addr=0, fifo_b=in1, addr_b=128
    ld.stream n0=1, fifo=in2, addr=256
.end
.program compute cores=0 corelet=1
    sfu.fma.f32 1, out0, in0, in1, in2
.end
.program store cores=0 corelet=1
    st.stream n0=1, fifo=out0, addr=1024
    tsend 1
.end
.program dma_out cores=0
    twait 1
    dma.store sp=1024, mem=@Y, bytes=128
.end
)";
  auto device = openDevice(smallArch());
  NpyArray x = randomArray(DType::F32, {3, 32}, 15, -3, 3);
  const NpyArray y = runText(*device, text, {{{"X", x}}, {}, nullptr}).outputs.at("Y");
  for (size_t i = 0; i < 32; ++i) {
    float want = std::fma(static_cast<float>(at(x, i)), static_cast<float>(at(x, 32 + i)),
                          static_cast<float>(at(x, 64 + i)));
    ASSERT_EQ(at(y, i), want) << i;
  }
}

TEST(Compute, StridedDmaAndStreams) {
  // dma.load gathers rows with strides over two dimensions, ld.stream reads sticks in
  // reverse order (negative stride), dma.store writes two pieces.
  const char* text = R"(
.kernel strided
.input  X f32 [8, 32]
.output Y f32 [8, 32]
.program dma_in cores=0
    dma.load sp=0, mem=@X, bytes=128, n1=4, ms1=256, ss1=128, done=0            ; rows 0 2 4 6
    dma.load sp=4096, mem=@X+128, bytes=128, n1=2, ms1=512, ss1=128, n2=2, ms2=256, ss2=256, done=1
.end
.program load cores=0 corelet=0
    twait 0
    ld.stream n0=4, fifo=in0, addr=384, s0=-128                                 ; rows 6 4 2 0
.end
.program compute cores=0 corelet=0
    sfu.mov.f32 4, out0, in0
.end
.program store cores=0 corelet=0
    st.stream n0=4, fifo=out0, addr=8192
    tsend 2
.end
.program dma_out cores=0
    twait 2
    twait 1
    dma.store sp=8192, mem=@Y, bytes=512
    dma.store sp=4096, mem=@Y+512, bytes=128, n1=4, ms1=128, ss1=128
.end
)";
  auto device = openDevice(smallArch());
  NpyArray x = hostArray(DType::F32, {8, 32}, [](size_t i) { return (i / 32) * 100 + i % 32; });
  const NpyArray y = runText(*device, text, {{{"X", x}}, {}, nullptr}).outputs.at("Y");
  const int rows[8] = {6, 4, 2, 0, 1, 5, 3, 7};
  for (int r = 0; r < 8; ++r)
    for (int j = 0; j < 32; ++j)
      ASSERT_EQ(at(y, static_cast<size_t>(r * 32 + j)), rows[r] * 100 + j) << r << "," << j;
}

// ---- ring ---------------------------------------------------------------------------------

/// Core 1 sends its part of X into core 0's part with `op`; core 0 stores the result.
std::string ringKernel(const char* dt, const char* op, const char* dir) {
  std::ostringstream s;
  int64_t perStick = std::string(dt) == "f32" ? 32 : 64;
  s << ".kernel ringreduce\n"
    << ".input  X " << dt << " [2, 4, " << perStick << "]\n"
    << ".output Y " << dt << " [4, " << perStick << "]\n"
    << R"(
.program dma_in cores=0-1
    mul r1, core, 512
    dma.load sp=1024, mem=@X+r1, bytes=512, done=0
.end
.program ring cores=0
    twait 0
    tsend 1, core=1             ; core 0's part has landed
.end
.program ring cores=1
    twait 0
    twait 1
    ring.send.)"
    << dt << " core=0, src=1024, dst=1024, bytes=512, op=" << op << ", dir=" << dir << R"(, token=2
.end
.program dma_out cores=0
    twait 2
    dma.store sp=1024, mem=@Y, bytes=512
.end
)";
  return s.str();
}

TEST(Compute, RingSendCombinesBetweenTwoCores) {
  auto device = openDevice(smallArch());
  for (const char* dt : {"f32", "f16"})
    for (const char* op : {"add", "max", "min", "none"}) {
      SCOPED_TRACE(std::string(dt) + " " + op);
      DType type = std::string(dt) == "f32" ? DType::F32 : DType::F16;
      int64_t per = type == DType::F32 ? 32 : 64;
      NpyArray x = randomArray(type, {2, 4, per}, 6, -100, 100);
      LaunchReport out = runText(*device, ringKernel(dt, op, "short"), {{{"X", x}}, {}, nullptr});
      const NpyArray& y = out.outputs.at("Y");
      const size_t n = static_cast<size_t>(4 * per);
      for (size_t i = 0; i < n; ++i) {
        float dst = static_cast<float>(at(x, i)), src = static_cast<float>(at(x, n + i));
        float want = std::string(op) == "add"   ? dst + src
                     : std::string(op) == "max" ? std::max(dst, src)
                     : std::string(op) == "min" ? std::min(dst, src)
                                                : src;
        if (type == DType::F16) want = halfToFloat(floatToHalf(want));
        ASSERT_EQ(at(y, i), want) << i;
      }
    }
}

TEST(Compute, RingSendTakesLongerTheLongWayRound) {
  // Two cores and three channel ports: core 0, dram 0, core 1, dram 1, dram 2. Core 1 ->
  // core 0 is 2 hops counter-clockwise and 3 clockwise.
  auto device = openDevice(smallArch({"dram.channels=3"}));
  NpyArray x = randomArray(DType::F32, {2, 4, 32}, 7, -1, 1);
  double cw = runText(*device, ringKernel("f32", "add", "cw"), {{{"X", x}}, {}, nullptr}).cycles;
  double ccw = runText(*device, ringKernel("f32", "add", "ccw"), {{{"X", x}}, {}, nullptr}).cycles;
  double shortest =
      runText(*device, ringKernel("f32", "add", "short"), {{{"X", x}}, {}, nullptr}).cycles;
  EXPECT_GT(cw, ccw);
  EXPECT_EQ(shortest, ccw);
}

// ---- the add kernel ---------------------------------------------------------------------------

std::string addKernel() {
  std::ifstream in(std::string(CHIPLESS_SOURCE_DIR) + "/models/kernels/add.s");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Runs the add kernel on a fresh device and returns its output and cycles.
LaunchReport runAdd(const SpyreArch& arch, bool timingOnly, int64_t n) {
  auto device = openDevice(arch, timingOnly);
  SpyreJob job(*device, assembleText(addKernel()), "add.s");
  LaunchArgs args;
  if (!timingOnly) {
    args.inputs["A"] = randomArray(DType::F16, {32, n}, 8, -10, 10);
    args.inputs["B"] = randomArray(DType::F16, {32, n}, 9, -10, 10);
  } else {
    args.scalars["N"] = n;
  }
  LaunchReport out = job.launch(args);
  if (!timingOnly) {
    const NpyArray& c = out.outputs.at("C");
    const NpyArray &a = args.inputs["A"], &b = args.inputs["B"];
    for (size_t i = 0; i < a.elements(); ++i) {
      float want = halfToFloat(floatToHalf(static_cast<float>(at(a, i) + at(b, i))));
      if (at(c, i) != want) {
        ADD_FAILURE() << "C[" << i << "] = " << at(c, i) << ", want " << want;
        break;
      }
    }
  }
  return out;
}

TEST(Compute, AddKernelTimingOnlyGivesTheSameCycles) {
  // Two cores, two double-buffered chunks of 1024 sticks per core.
  SpyreArch small = smallArch();
  LaunchReport functional = runAdd(small, false, 8192);
  LaunchReport timing = runAdd(small, true, 8192);
  EXPECT_GT(functional.cycles, 0);
  EXPECT_EQ(functional.cycles, timing.cycles);
  EXPECT_EQ(functional.issued, timing.issued);
  EXPECT_TRUE(timing.outputs.empty());
  // The shipped 32-core chip, one chunk per core.
  SpyreArch full = archWith();
  LaunchReport f32 = runAdd(full, false, 4096);
  LaunchReport t32 = runAdd(full, true, 4096);
  EXPECT_EQ(f32.cycles, t32.cycles);
  EXPECT_EQ(f32.issued, t32.issued);
}

TEST(Compute, MatmulAndSoftmaxTimingOnlyGiveTheSameCycles) {
  for (const char* text : {kMatmul, kSoftmax}) {
    auto functional = openDevice(smallArch());
    SpyreJob job(*functional, assembleText(text), "k.s");
    LaunchArgs args;
    for (const auto& a : job.plan().args) {
      if (a.role == spyrecode::ArgRole::Output) continue;
      std::vector<int64_t> shape;
      for (const auto& d : a.shape) shape.push_back(std::get<int64_t>(d));
      args.inputs[a.name] = randomArray(DType::F16, shape, 16, -1, 1);
    }
    LaunchReport f = job.launch(args);
    auto timing = openDevice(smallArch(), true);
    SpyreJob tjob(*timing, assembleText(text), "k.s");
    LaunchReport t = tjob.launch({});
    EXPECT_EQ(f.cycles, t.cycles) << job.plan().kernel;
    EXPECT_EQ(f.issued, t.issued) << job.plan().kernel;
  }
}

TEST(Compute, SplatOfARealScalarBoundAtLaunch) {
  // Y = X * scale + shift with `scale` (f32) and `shift` (f16) real scalars of the job:
  // sfu.splat takes them as @scale and @shift; the runtime rounds each to its type.
  const char* text = R"(
.kernel affine
.scalar scale type=f32
.scalar shift type=f16
.input  X f32 [1, 32]
.output Y f32 [1, 32]
.program dma_in cores=0
    dma.load sp=0, mem=@X, bytes=128, done=0
.end
.program load cores=0 corelet=0
    twait 0
    ld.stream n0=1, fifo=in0, addr=0
.end
.program compute cores=0 corelet=0
    sfu.splat.f32 v0, @scale
    sfu.splat.f32 v1, @shift
    sfu.fma.f32 1, out0, in0, v0, v1
.end
.program store cores=0 corelet=0
    st.stream n0=1, fifo=out0, addr=4096
    tsend 1
.end
.program dma_out cores=0
    twait 1
    dma.store sp=4096, mem=@Y, bytes=128
.end
)";
  auto device = openDevice(smallArch());
  NpyArray x = randomArray(DType::F32, {1, 32}, 3, -4, 4);
  LaunchArgs args{{{"X", x}}, {}, nullptr};
  args.reals = {{"scale", 0.1}, {"shift", 0.1}};
  LaunchReport out = runText(*device, text, args);
  const float scale = 0.1f;                           // rounded to f32
  const float shift = halfToFloat(floatToHalf(0.1f)); // rounded to f16: 0.0999755859375
  for (int i = 0; i < 32; ++i)
    EXPECT_EQ(at(out.outputs.at("Y"), i), std::fma(static_cast<float>(at(x, i)), scale, shift))
        << i;
  // An integer value is accepted for a real scalar; a real value for an integer is not.
  args.reals = {{"scale", 2.0}};
  args.scalars = {{"shift", 1}};
  out = runText(*device, text, args);
  EXPECT_EQ(at(out.outputs.at("Y"), 0), std::fma(static_cast<float>(at(x, 0)), 2.0f, 1.0f));
  args.scalars.clear();
  EXPECT_CONTAINS(errorOf([&] { runText(*device, text, args); }),
                  "scalar 'shift' (f16) of affine is not bound");
}

TEST(Compute, RepeatedLaunchesAreIdentical) {
  auto device = openDevice(smallArch());
  SpyreJob add(*device, assembleText(addKernel()), "add.s");
  LaunchArgs args;
  args.inputs["A"] = randomArray(DType::F16, {32, 4096}, 10, -5, 5);
  args.inputs["B"] = randomArray(DType::F16, {32, 4096}, 11, -5, 5);
  LaunchReport first = add.launch(args);
  LaunchReport second = add.launch(args);
  EXPECT_EQ(first.cycles, second.cycles);
  EXPECT_EQ(first.issued, second.issued);
  EXPECT_EQ(first.outputs.at("C").data, second.outputs.at("C").data);

  // Another job on the same device in between (its program elsewhere in segment 7) does
  // not change the result either.
  {
    auto elsewhere = spyrecode::AssembleOptions::forArch(smallArch());
    elsewhere.programPtr = 0x1C00100000ull;
    SpyreJob other(*device, spyrecode::assemble(kSoftmax, "softmax.s", elsewhere), "softmax.s");
    other.launch({{{"X", randomArray(DType::F16, {1, 256}, 14, -1, 1)}}, {}, nullptr});
  }
  LaunchReport third = add.launch(args);
  EXPECT_EQ(first.cycles, third.cycles);
  EXPECT_EQ(first.issued, third.issued);
  EXPECT_EQ(first.outputs.at("C").data, third.outputs.at("C").data);
}

TEST(Compute, RepeatedMatmulLaunchesAreIdentical) {
  auto device = openDevice(smallArch());
  SpyreJob mm(*device, assembleText(kMatmul), "mm.s");
  LaunchArgs args;
  args.inputs["A"] = randomArray(DType::F16, {16, 128}, 12, -1, 1);
  args.inputs["B"] = randomArray(DType::F16, {128, 64}, 13, -1, 1);
  LaunchReport first = mm.launch(args);
  for (int i = 0; i < 3; ++i) {
    LaunchReport again = mm.launch(args);
    EXPECT_EQ(first.cycles, again.cycles) << "launch " << i + 2;
    EXPECT_EQ(first.outputs.at("C").data, again.outputs.at("C").data) << "launch " << i + 2;
  }
}

TEST(Compute, FreshDevicesAgreeOnCycles) {
  LaunchReport a = runAdd(smallArch(), false, 4096);
  LaunchReport b = runAdd(smallArch(), false, 4096);
  EXPECT_EQ(a.cycles, b.cycles);
  EXPECT_EQ(a.outputs.at("C").data, b.outputs.at("C").data);
}

} // namespace
} // namespace chipless::runtime
