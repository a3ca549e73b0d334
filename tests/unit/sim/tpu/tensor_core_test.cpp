/// The TensorCore model on small inline programs: vector unit and MXU numerics (bf16, fp32
/// passes, int8), the fold timing of the weight-stationary MXU with and without overlapped
/// weight loading, faults naming core, unit, pc and address, VMEM race detection, deadlock
/// detection, and the collectives over several chips.
#include "tests/unit/util/tpu_test_util.h"

#include <cmath>
#include <gtest/gtest.h>

namespace chipless::test {
namespace {

const char* kAdd = R"(
.kernel add
.input  X f32 [16, 256] tile=8x128
.input  Y f32 [16, 256] tile=8x128
.output Z f32 [16, 256] tile=8x128
.program cores=0
    dma.in dst=0, src=@X, bytes=16384, sem=0 | li s1, 16384
    dma.in dst=s1, src=@Y, bytes=16384, sem=0
    sem.wait 0, count=2
    vld.f32 v0, 0, n=4
    vld.f32 v4, 16384, n=4
    vadd.f32 v8, v0, v4, n=4
    vst.f32 v8, 32768, n=4
    dma.out dst=@Z, src=32768, bytes=16384, sem=1
    sem.wait 1
.end
)";

TEST(TensorCore, VectorAddIsExact) {
  NpyArray x = randomF32({16, 256}, 1), y = randomF32({16, 256}, 2);
  TpuRun r = runTpu(kAdd, {{"X", x}, {"Y", y}}, tpuArch());
  std::vector<float> a = values(x), b = values(y), z = values(r.outputs.at("Z"));
  for (size_t i = 0; i < z.size(); ++i) ASSERT_EQ(z[i], a[i] + b[i]) << i;
  EXPECT_GT(r.cycles, 0);
  EXPECT_EQ(r.stats.get("chip[0].core[0].vpu.register_ops"), 4);
  EXPECT_EQ(r.stats.get("chip[0].hbm.bytes_read"), 32768);
  EXPECT_EQ(r.stats.get("chip[0].hbm.bytes_written"), 16384);
}

TEST(TensorCore, VectorOpsAndReductions) {
  const char* text = R"(
.kernel vops
.input  X f32 [8, 128]
.output Y f32 [6, 8, 128]
.program cores=0
    dma.in dst=0, src=@X, bytes=4096, sem=0
    sem.wait 0
    vld.f32 v0, 0 | vsplat.f32 v1, 2.0
    vmul.f32 v2, v0, v1
    vbcast.f32 v3, 3
    vexp.f32 v4, v0
    vsum.lanes.f32 v5, v0
    vmax.sublanes.f32 v6, v0
    vcmp.lt.f32 v7, v0, v3
    vsel.f32 v8, v7, v0, v3
    vst.f32 v2, 8192
    vst.f32 v4, 12288
    vst.f32 v5, 16384
    vst.f32 v6, 20480
    vst.f32 v7, 24576
    vst.f32 v8, 28672
    dma.out dst=@Y, src=8192, bytes=24576, sem=1
    sem.wait 1
.end
)";
  NpyArray x = randomF32({8, 128}, 3);
  TpuRun r = runTpu(text, {{"X", x}}, tpuArch());
  std::vector<float> in = values(x), y = values(r.outputs.at("Y"));
  for (int s = 0; s < 8; ++s) {
    float rowSum = 0, colMax;
    for (int l = 0; l < 128; ++l) rowSum += in[s * 128 + l];
    for (int l = 0; l < 128; ++l) {
      int i = s * 128 + l;
      colMax = in[l];
      for (int q = 1; q < 8; ++q) colMax = std::max(colMax, in[q * 128 + l]);
      EXPECT_EQ(y[i], in[i] * 2.0f);
      EXPECT_NEAR(y[1024 + i], std::exp(in[i]), 1e-6f * std::exp(in[i]));
      EXPECT_NEAR(y[2048 + i], rowSum, 1e-4f);
      EXPECT_EQ(y[3072 + i], colMax);
      EXPECT_EQ(y[4096 + i], in[i] < 3.0f ? 1.0f : 0.0f);
      EXPECT_EQ(y[5120 + i], in[i] < 3.0f ? in[i] : 3.0f);
    }
  }
}

const char* kFold = R"(
.kernel fold
.input  A bf16 [16, 128]
.input  B bf16 [128, 128]
.output C f32 [16, 128]
.program cores=0
    dma.in dst=0, src=@A, bytes=4096, sem=0
    dma.in dst=4096, src=@B, bytes=32768, sem=0
    sem.wait 0, count=2
    mxu.matmul.bf16 mxu=0, lhs=0, rows=16, k=128, rhs=4096, n=128, out=65536, sem=1
    sem.wait 1
    dma.out dst=@C, src=65536, bytes=8192, sem=2
    sem.wait 2
.end
)";

TEST(TensorCore, Bf16FoldMatchesFp32Reference) {
  NpyArray a = randomF32({16, 128}, 4), b = randomF32({128, 128}, 5);
  TpuRun r = runTpu(kFold, {{"A", a}, {"B", b}}, tpuArch());
  std::vector<double> ref = matmulRef(roundedToBf16(a), roundedToBf16(b), 16, 128, 128);
  std::vector<float> c = values(r.outputs.at("C"));
  for (size_t i = 0; i < c.size(); ++i) ASSERT_NEAR(c[i], ref[i], 1e-4 * (1 + std::fabs(ref[i])));
  EXPECT_EQ(r.stats.get("chip[0].core[0].mxu[0].folds"), 1);
  EXPECT_EQ(r.stats.get("chip[0].core[0].mxu[0].flops"), 2.0 * 16 * 128 * 128);
  // One fold: R cycles of weights, then 16 rows, skew and drain: 2R + C + T - 2.
  EXPECT_EQ(r.stats.get("chip[0].core[0].mxu[0].busy_cycles"), 2 * 128 + 128 + 16 - 2);
}

/// Two folds on the same MXU, issued back to back.
std::string twoFolds(int rows) {
  std::string t = R"(
.kernel folds
.program cores=0
    mxu.matmul.bf16 mxu=0, lhs=0, rows=ROWS, k=128, rhs=65536, n=128, out=131072, sem=1
    mxu.matmul.bf16 mxu=0, lhs=0, rows=ROWS, k=128, rhs=98304, n=128, out=131072, acc=1, sem=1
    sem.wait 1, count=2
.end
)";
  for (size_t p; (p = t.find("ROWS")) != std::string::npos;) t.replace(p, 4, std::to_string(rows));
  return t;
}

TEST(TensorCore, FoldTimingWithoutOverlapIsTheFormula) {
  for (int rows : {16, 200, 1000}) {
    TpuRun r = runTpu(twoFolds(rows), {}, tpuArch({"mxu.overlap_weight_load=false"}));
    EXPECT_EQ(r.stats.get("chip[0].core[0].mxu[0].busy_cycles"), 2.0 * (256 + 128 + rows - 2))
        << rows;
  }
}

TEST(TensorCore, OverlappedWeightLoadingHidesTheSecondLoad) {
  // rows >= R: the second fold's weights load while the first streams; no bubble.
  TpuRun big = runTpu(twoFolds(300), {}, tpuArch());
  EXPECT_EQ(big.stats.get("chip[0].core[0].mxu[0].busy_cycles"), 128 + 2 * 300 + 128 + 128 - 2);
  // rows < R: loading the next weights takes longer than streaming; R - rows bubble.
  TpuRun small = runTpu(twoFolds(16), {}, tpuArch());
  EXPECT_EQ(small.stats.get("chip[0].core[0].mxu[0].busy_cycles"), 128 + 128 + 16 + 128 + 128 - 2);
}

TEST(TensorCore, Int8FoldAccumulatesInInt32) {
  const char* text = R"(
.kernel i8
.input  A i8 [8, 64]
.input  B i8 [64, 32]
.output C i32 [8, 32]
.program cores=0
    dma.in dst=0, src=@A, bytes=512, sem=0
    dma.in dst=1024, src=@B, bytes=2048, sem=0
    sem.wait 0, count=2
    mxu.matmul.i8 mxu=1, lhs=0, rows=8, k=64, rhs=1024, n=32, out=4096, sem=1
    mxu.matmul.i8 mxu=1, lhs=0, rows=8, k=64, rhs=1024, n=32, out=4096, acc=1, sem=1
    sem.wait 1, count=2
    dma.out dst=@C, src=4096, bytes=1024, sem=2
    sem.wait 2
.end
)";
  NpyArray a = makeNpy(DType::I32, {8, 64}), b = makeNpy(DType::I8, {64, 32});
  auto* pa = reinterpret_cast<int32_t*>(a.data.data());
  auto* pb = reinterpret_cast<int8_t*>(b.data.data());
  for (int i = 0; i < 8 * 64; ++i) pa[i] = (i * 37) % 255 - 127;
  for (int i = 0; i < 64 * 32; ++i) pb[i] = static_cast<int8_t>((i * 11) % 256 - 128);
  TpuRun r = runTpu(text, {{"A", a}, {"B", b}}, tpuArch());
  const NpyArray& c = r.outputs.at("C");
  ASSERT_EQ(c.dtype, DType::I32);
  auto* pc = reinterpret_cast<const int32_t*>(c.data.data());
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 32; ++j) {
      int32_t want = 0;
      for (int k = 0; k < 64; ++k) want += pa[i * 64 + k] * pb[k * 32 + j];
      ASSERT_EQ(pc[i * 32 + j], 2 * want) << i << "," << j;
    }
  // int8 streams mxu.int8_speedup (2) rows per cycle on v5e.
  EXPECT_EQ(r.stats.get("chip[0].core[0].mxu[1].folds"), 2);
}

TEST(TensorCore, Fp32FoldPrecisionFollowsThePasses) {
  const char* text = R"(
.kernel f32
.input  A f32 [8, 128]
.input  B f32 [128, 128]
.output C f32 [8, 128]
.program cores=0
    dma.in dst=0, src=@A, bytes=4096, sem=0
    dma.in dst=4096, src=@B, bytes=65536, sem=0
    sem.wait 0, count=2
    mxu.matmul.f32 mxu=0, lhs=0, rows=8, k=128, rhs=4096, n=128, out=131072, sem=1
    sem.wait 1
    dma.out dst=@C, src=131072, bytes=4096, sem=2
    sem.wait 2
.end
)";
  NpyArray a = randomF32({8, 128}, 6), b = randomF32({128, 128}, 7);
  std::vector<double> ref = matmulRef(a, b, 8, 128, 128);
  double err[3];
  const char* precision[3] = {"bf16", "bf16x3", "bf16x6"};
  for (int p = 0; p < 3; ++p) {
    TpuRun r = runTpu(text, {{"A", a}, {"B", b}},
                      tpuArch({std::string("numerics.fp32_matmul_precision=") + precision[p]}));
    std::vector<float> c = values(r.outputs.at("C"));
    err[p] = 0;
    for (size_t i = 0; i < c.size(); ++i) err[p] = std::max(err[p], std::fabs(c[i] - ref[i]));
  }
  // Sums of 128 products of N(0, 1) values are about 11 in size.
  EXPECT_GT(err[0], 5e-3);        // one bf16 pass keeps about 3 decimal digits
  EXPECT_LT(err[1], err[0] / 20); // three passes are close to fp32
  EXPECT_LT(err[2], 2e-4);        // six passes: fp32 accumulation error only
  EXPECT_LE(err[2], err[1]);
}

TEST(TensorCore, FaultsNameCoreUnitPcAndAddress) {
  const std::string head = ".kernel k\n.input X f32 [8, 128]\n.program cores=0\n";
  auto err = [&](const std::string& body) {
    return tpuError(head + body + ".end\n", {{"X", randomF32({8, 128}, 8)}}, tpuArch());
  };
  std::string m = err("    nop\n    vld.f32 v0, 134217728\n");
  EXPECT_NE(m.find("chip 0 core 0 vld pc 1 (vld.f32): vld: VMEM bytes 0x8000000"),
            std::string::npos)
      << m;
  m = err("    dma.in dst=0, src=@X, bytes=100, sem=0\n");
  EXPECT_NE(m.find("chip 0 core 0 dma pc 0 (dma.in): misaligned DMA"), std::string::npos) << m;
  m = err("    dma.in dst=0, src=@X+4096, bytes=4096, sem=0\n");
  EXPECT_NE(m.find("HBM address 0x"), std::string::npos) << m;
  EXPECT_NE(m.find("is outside every allocation"), std::string::npos) << m;
  m = err("    vld.f32 v0, 2\n");
  EXPECT_NE(m.find("misaligned VMEM access: address 0x2"), std::string::npos) << m;
  m = err("    li s1, 0\n    div s2, 5, s1\n");
  EXPECT_NE(m.find("chip 0 core 0 scalar pc 1 (div): division by zero"), std::string::npos) << m;
  m = err("    mxu.matmul.bf16 mxu=4, lhs=0, rows=8, k=128, rhs=0, n=128, out=0\n");
  EXPECT_NE(m.find("MXU 4 out of range"), std::string::npos) << m;
  m = err("    vadd.f32 v30, v0, v1, n=4\n");
  EXPECT_NE(m.find("v30..v33 beyond v31 (vpu.registers)"), std::string::npos) << m;
  m = err("    sem.wait 40\n");
  EXPECT_NE(m.find("semaphore 40 out of range"), std::string::npos) << m;
}

TEST(TensorCore, RacesOnVmemAreReported) {
  const std::string head = ".kernel k\n.input X f32 [8, 128]\n.program cores=0\n";
  // Reading the DMA's destination without waiting for its semaphore.
  std::string m = tpuError(head + "    dma.in dst=0, src=@X, bytes=4096, sem=0\n"
                                  "    vld.f32 v0, 0\n"
                                  "    sem.wait 0\n.end\n",
                           {{"X", randomF32({8, 128}, 9)}}, tpuArch());
  EXPECT_NE(m.find("race on VMEM"), std::string::npos) << m;
  EXPECT_NE(m.find("vld reads it while dma.in (pc 0) still writes it"), std::string::npos) << m;
  // Waiting first is fine, and so is touching other columns of the same rows.
  std::string ok = tpuError(head + "    dma.in dst=0, src=@X, bytes=256, rows=16, src_stride=256,"
                                   " dst_stride=512, sem=0\n"
                                   "    dma.in dst=256, src=@X, bytes=256, rows=16, src_stride=256,"
                                   " dst_stride=512, sem=0\n"
                                   "    sem.wait 0, count=2\n"
                                   "    vld.f32 v0, 0\n.end\n",
                            {{"X", randomF32({8, 128}, 9)}}, tpuArch());
  EXPECT_EQ(ok, "");
}

TEST(TensorCore, DeadlockNamesEveryBlockedUnit) {
  std::string m =
      tpuError(".kernel k\n.program cores=0\n    li s1, 1\n    sem.wait 5\n.end\n", {}, tpuArch());
  EXPECT_NE(m.find("deadlock: the program can never finish; 1 engine(s) are blocked"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("chip 0 core 0 pc 1: waiting for semaphore 5"), std::string::npos) << m;
}

TEST(TensorCore, CoresOfAChipSignalEachOther) {
  // v4: two TensorCores; core 1 waits for core 0.
  const char* text = R"(
.kernel handoff
.program cores=0
    nop cycles=1000
    sem.signal 3, core=1
.end
.program cores=1
    sem.wait 3
.end
)";
  TpuRun r = runTpu(text, {}, tpuArch({}, "v4"));
  EXPECT_GE(r.cycles, 1000);
  std::string m =
      tpuError(".kernel k\n.program cores=1\n    sem.wait 3\n.end\n", {}, tpuArch({}, "v4"));
  EXPECT_NE(m.find("chip 0 core 1 pc 0: waiting for semaphore 3"), std::string::npos) << m;
}

const char* kCollectives = R"(
.kernel coll
.input  P f32 [1, 1024] placement=split
.input  G f32 [1, 256] placement=split
.output Y f32 [1, 1024] placement=split
.output A f32 [4, 256] placement=split
.output S f32 [1, 256] placement=split
.program cores=0
    ici.allreduce.f32 src=@P, dst=@Y, bytes=4096, sem=0
    ici.allgather src=@G, dst=@A, bytes=1024, sem=0
    ici.reducescatter.f32 src=@P, dst=@S, bytes=1024, sem=0
    sem.wait 0, count=3
.end
)";

TEST(TensorCore, CollectivesMoveRealDataAroundTheRing) {
  const int chips = 4;
  NpyArray p = randomF32({chips, 1024}, 10), g = randomF32({chips, 256}, 11);
  TpuRun r = runTpu(kCollectives, {{"P", p}, {"G", g}}, tpuArch(), chips);
  std::vector<float> pv = values(p), gv = values(g);
  std::vector<float> y = values(r.outputs.at("Y")), a = values(r.outputs.at("A")),
                     s = values(r.outputs.at("S"));
  for (int c = 0; c < chips; ++c)
    for (int i = 0; i < 1024; ++i) {
      double sum = 0;
      for (int q = 0; q < chips; ++q) sum += pv[q * 1024 + i];
      ASSERT_NEAR(y[c * 1024 + i], sum, 1e-5) << c << "," << i;
    }
  // all-gather: chip c's A is [G of chip 0; G of chip 1; ...].
  for (int c = 0; c < chips; ++c)
    for (int q = 0; q < chips; ++q)
      for (int i = 0; i < 256; ++i) ASSERT_EQ(a[(c * chips + q) * 256 + i], gv[q * 256 + i]);
  // reduce-scatter: chip c gets block c of the sum.
  for (int c = 0; c < chips; ++c)
    for (int i = 0; i < 256; ++i) {
      double sum = 0;
      for (int q = 0; q < chips; ++q) sum += pv[q * 1024 + c * 256 + i];
      ASSERT_NEAR(s[c * 256 + i], sum, 1e-5);
    }
  EXPECT_GT(r.stats.get("ici.bytes"), 0);
  EXPECT_EQ(r.stats.get("chip[2].ici.collectives"), 3);
}

TEST(TensorCore, ACollectiveOneChipNeverIssuesIsADeadlock) {
  const char* text = R"(
.kernel half
.input  P f32 [1, 1024] placement=split
.output Y f32 [1, 1024] placement=split
.program cores=0 chips=0
    ici.allreduce.f32 src=@P, dst=@Y, bytes=4096, sem=0
    sem.wait 0
.end
)";
  std::string m = tpuError(text, {{"P", randomF32({2, 1024}, 12)}}, tpuArch(), 2);
  EXPECT_NE(m.find("deadlock"), std::string::npos) << m;
  EXPECT_NE(m.find("chip 0 ici: waiting for all-reduce #0"), std::string::npos) << m;
  EXPECT_NE(m.find("data from chip 1"), std::string::npos) << m;
  EXPECT_NE(m.find("chip 0 core 0 pc 1: waiting for semaphore 0"), std::string::npos) << m;
}

TEST(TensorCore, IciSendWritesAnotherChipsHbmAndSignalsIt) {
  // Chip 0 sends its X to chip 1's Y; chip 1 waits for the arrival and copies Y into Z.
  const char* text = R"(
.kernel send
.input  X f32 [1, 1024] placement=split
.output Y f32 [1, 1024] placement=split
.output Z f32 [1, 1024] placement=split
.program cores=0 chips=0
    ici.send chip=1, dst=@Y, src=@X, bytes=4096, sem=2, done=3
    sem.wait 3
    fence
.end
.program cores=0 chips=1
    sem.wait 2
    dma.in dst=0, src=@Y, bytes=4096, sem=0
    sem.wait 0
    dma.out dst=@Z, src=0, bytes=4096, sem=0
    sem.wait 0
.end
)";
  NpyArray x = randomF32({2, 1024}, 13);
  TpuRun r = runTpu(text, {{"X", x}}, tpuArch(), 2);
  std::vector<float> in = values(x), z = values(r.outputs.at("Z"));
  for (int i = 0; i < 1024; ++i) ASSERT_EQ(z[1024 + i], in[i]); // chip 1's Z = chip 0's X
  // 4 KiB over one 50 GB/s link (33.3 B/cycle) plus a hop of latency, at least.
  TpuArch a = tpuArch();
  EXPECT_GE(r.cycles, 4096 / a.iciBytesPerCycle() + a.iciLatencyCycles());
  EXPECT_EQ(r.stats.get("chip[0].core[0].ici_bytes_sent"), 4096);
  EXPECT_EQ(r.stats.get("ici.bytes"), 4096);
}

TEST(TensorCore, SmemLoadsDriveControlFlow) {
  // N from HBM through SMEM: the loop runs N times.
  const char* text = R"(
.kernel smem
.input  N i32 [8]
.output Y i32 [8, 128]
.program cores=0
    dma.in dst=64, src=@N, bytes=32, sem=0, mem=smem
    sem.wait 0
    sld   s1, 68                          ; N[1]
    li    s2, 0
    loop  s1
      add s2, s2, 3
    endloop
    vbcast.i32 v0, s2
    vst.i32 v0, 0
    dma.out dst=@Y, src=0, bytes=4096, sem=1
    sem.wait 1
.end
)";
  NpyArray n = makeNpy(DType::I32, {8});
  reinterpret_cast<int32_t*>(n.data.data())[1] = 7;
  TpuRun r = runTpu(text, {{"N", n}}, tpuArch());
  const auto* y = reinterpret_cast<const int32_t*>(r.outputs.at("Y").data.data());
  for (int i = 0; i < 1024; ++i) ASSERT_EQ(y[i], 21);
  std::string m = tpuError(".kernel k\n.program cores=0\n    sld s1, 6\n.end\n", {}, tpuArch());
  EXPECT_NE(m.find("misaligned SMEM address 0x6"), std::string::npos) << m;
}

TEST(TensorCore, FenceWaitsForEverythingInFlight) {
  const char* text = R"(
.kernel fence
.input  X f32 [256, 1024]
.program cores=0
    dma.in dst=0, src=@X, bytes=1048576, sem=0
    fence
    vld.f32 v0, 0
.end
)";
  // Without the fence the load would race with the DMA; with it the core waits for the DMA.
  TpuRun r = runTpu(text, {{"X", randomF32({256, 1024}, 14)}}, tpuArch());
  TpuArch a = tpuArch();
  EXPECT_GE(r.cycles, 1048576 / a.hbmBytesPerCycle());
  EXPECT_GT(r.stats.get("chip[0].core[0].scalar.issue_stall_cycles"), 1000);
}

TEST(TensorCore, TimingOnlyGivesTheSameCycles) {
  NpyArray x = randomF32({16, 256}, 1), y = randomF32({16, 256}, 2);
  TpuRun fn = runTpu(kAdd, {{"X", x}, {"Y", y}}, tpuArch());
  TpuRun to = runTpu(kAdd, {}, tpuArch(), 1, true);
  EXPECT_EQ(fn.cycles, to.cycles);
  EXPECT_TRUE(to.outputs.empty());
}

// ---- operations added for the graph compiler (compiler/tpu) ----------------------------------

TEST(TensorCore, TransposedWeightFoldComputesABTransposed) {
  // C [16, 96] = A [16, 64] x B^T with B [96, 64] stored row-major: the weights are B's rows.
  const char* text = R"(
.kernel foldnt
.input  A bf16 [16, 64]
.input  B bf16 [96, 64]
.output C f32 [16, 96]
.program cores=0
    dma.in dst=0, src=@A, bytes=2048, sem=0
    dma.in dst=4096, src=@B, bytes=12288, sem=0
    sem.wait 0, count=2
    mxu.matmul.nt.bf16 mxu=1, lhs=0, rows=16, k=64, rhs=4096, n=96, out=65536, sem=1
    sem.wait 1
    dma.out dst=@C, src=65536, bytes=6144, sem=2
    sem.wait 2
.end
)";
  NpyArray a = randomF32({16, 64}, 40), b = randomF32({96, 64}, 41);
  TpuRun r = runTpu(text, {{"A", a}, {"B", b}}, tpuArch());
  std::vector<float> x = values(roundedToBf16(a)), y = values(roundedToBf16(b));
  std::vector<float> c = values(r.outputs.at("C"));
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 96; ++j) {
      double ref = 0;
      for (int p = 0; p < 64; ++p) ref += double(x[i * 64 + p]) * y[j * 64 + p];
      ASSERT_NEAR(c[i * 96 + j], ref, 1e-4 * (1 + std::fabs(ref))) << i << "," << j;
    }
  // The same timing as an untransposed fold: 2R + C + T - 2.
  EXPECT_EQ(r.stats.get("chip[0].core[0].mxu[1].busy_cycles"), 2 * 128 + 128 + 16 - 2);
  EXPECT_EQ(r.stats.get("chip[0].core[0].mxu[1].flops"), 2.0 * 16 * 64 * 96);
}

TEST(TensorCore, IotaAndConversions) {
  const char* text = R"(
.kernel iota
.output Y i32 [5, 16, 128]
.program cores=0
    viota.i32 v0, lanes, n=2
    viota.i32 v2, sublanes, n=2
    viota.f32 v4, sublanes, n=2
    vsplat.f32 v6, 2.75, n=2
    vmul.f32 v6, v6, v4, n=2
    vneg.f32 v8, v6, n=2
    vcvt.i32 v6, v6, n=2
    vcvt.i32 v8, v8, n=2
    vcvt.f32 v10, v2, n=2
    vcvt.i32 v10, v10, n=2
    vst.i32 v0, 0, n=4
    vst.i32 v6, 16384, n=4
    vst.i32 v10, 32768, n=2
    dma.out dst=@Y, src=0, bytes=40960, sem=0
    sem.wait 0
.end
)";
  TpuRun r = runTpu(text, {}, tpuArch());
  const NpyArray& y = r.outputs.at("Y");
  ASSERT_EQ(y.dtype, DType::I32);
  const int32_t* v = reinterpret_cast<const int32_t*>(y.data.data());
  for (int row = 0; row < 16; ++row)
    for (int l = 0; l < 128; ++l) {
      const int i = row * 128 + l;
      EXPECT_EQ(v[i], l);                                         // lane index
      EXPECT_EQ(v[2048 + i], row);                                // row index over 2 registers
      EXPECT_EQ(v[4096 + i], static_cast<int32_t>(row * 2.75f));  // f32 -> i32 truncates
      EXPECT_EQ(v[6144 + i], -static_cast<int32_t>(row * 2.75f)); // toward zero
      EXPECT_EQ(v[8192 + i], row);                                // i32 -> f32 -> i32
    }
}

TEST(TensorCore, ConversionsSaturateAndMapNanToZero) {
  const char* text = R"(
.kernel cvt
.output Y i32 [8, 128]
.program cores=0
    vsplat.f32 v0, 1e20
    vsplat.f32 v1, -1e20
    vsplat.f32 v2, nan
    vcvt.i32 v0, v0, n=3
    vadd.i32 v3, v0, v1
    vadd.i32 v3, v3, v2
    vst.i32 v3, 0
    dma.out dst=@Y, src=0, bytes=4096, sem=0
    sem.wait 0
.end
)";
  TpuRun r = runTpu(text, {}, tpuArch());
  const int32_t* v = reinterpret_cast<const int32_t*>(r.outputs.at("Y").data.data());
  // INT32_MAX + INT32_MIN + 0 = -1 (wrapping i32 adds).
  for (int i = 0; i < 1024; ++i) ASSERT_EQ(v[i], -1) << i;
}

} // namespace
} // namespace chipless::test
