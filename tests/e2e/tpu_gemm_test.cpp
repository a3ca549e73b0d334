// The TPU GEMM kernel (models/tpu-kernels/gemm.s): numerics against an fp32 reference for
// awkward (padded) and larger shapes, on one and two TensorCores, in blocks of rows; and
// timing against the weight-stationary formulas: without overlapped weight loading one MXU's
// cycles are exactly ceil(K/R) ceil(N/C) (2R + C + M - 2); with it they lie between the ideal
// M N K / (R C MXUs) and that figure; no run beats the ideal or the HBM bound.
#include "support/error.h"
#include "tests/e2e/tpu_kernel_harness.h"

#include <cmath>
#include <gtest/gtest.h>

namespace chipless::test {
namespace {

struct Shape {
  int64_t m, k, n, mb;
};

/// Runs the GEMM on random inputs and checks every element against the fp32 reference.
TpuKernelRun checkGemm(const Shape& s, const TpuArch& arch, uint64_t seed) {
  NpyArray a = randomF32Array({s.m, s.k}, seed), b = randomF32Array({s.k, s.n}, seed + 1);
  TpuRunOptions o;
  o.scalars = {{"MB", s.mb}};
  TpuKernelRun run = runTpuKernel("gemm", {{"A", a}, {"B", b}}, arch, o);
  const NpyArray& c = run.outputs.at("C");
  EXPECT_EQ(c.shape, (std::vector<int64_t>{s.m, s.n}));
  std::vector<double> ref = bf16MatmulReference(a, b, s.m, s.k, s.n);
  std::vector<float> got = f32Values(c);
  double worst = 0;
  for (size_t i = 0; i < got.size(); ++i)
    worst = std::max(worst, std::fabs(got[i] - ref[i]) / (1.0 + std::fabs(ref[i])));
  // fp32 accumulation of bf16 products: a few ulps of the sums.
  EXPECT_LT(worst, 1e-5 * std::sqrt(static_cast<double>(s.k))) << s.m << "x" << s.k << "x" << s.n;
  return run;
}

TEST(TpuGemm, AwkwardShapeIsPaddedAndExact) {
  TpuKernelRun run = checkGemm({200, 300, 260, 200}, tpuArchWith(), 1);
  // K and N padded to 384, M to 200: 3 x 3 folds of 200 rows.
  EXPECT_EQ(run.stats.get("chip[0].core[0].mxu_flops"), 2.0 * 200 * 384 * 384);
}

TEST(TpuGemm, OddShapesAndBlocksOfRows) {
  checkGemm({8, 128, 128, 8}, tpuArchWith(), 2);
  checkGemm({1, 1, 1, 8}, tpuArchWith(), 3);
  checkGemm({130, 129, 500, 8 * 17}, tpuArchWith(), 4); // M padded to 136: one block
  checkGemm({256, 384, 640, 64}, tpuArchWith(), 5);     // four blocks of 64 rows, 5 tiles
}

TEST(TpuGemm, LargerShape) {
  checkGemm({512, 512, 512, 512}, tpuArchWith(), 6);
}

TEST(TpuGemm, TwoTensorCoresShareTheColumnTiles) {
  TpuKernelRun run = checkGemm({96, 256, 1280, 96}, tpuArchWith({}, "v4"), 7);
  // 10 column tiles in groups of 4: core 0 takes groups 0 and 2, core 1 group 1.
  EXPECT_EQ(run.stats.get("chip[0].core[0].mxu_flops"), 2.0 * 96 * 256 * 128 * 6);
  EXPECT_EQ(run.stats.get("chip[0].core[1].mxu_flops"), 2.0 * 96 * 256 * 128 * 4);
}

TEST(TpuGemm, V6eRunsTheKernelOnItsLargerArrays) {
  checkGemm({64, 200, 300, 64}, tpuArchWith({}, "v6e"), 8);
}

TEST(TpuGemm, ABlockSizeThatDoesNotDivideMStopsTheKernel) {
  TpuRunOptions o;
  o.timingOnly = true;
  o.scalars = {{"M", 512}, {"K", 128}, {"N", 128}, {"MB", 200}};
  try {
    runTpuKernel("gemm", {}, tpuArchWith(), o);
    FAIL() << "MB=200 for M=512 accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("chip 0 core 0 scalar pc"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("(trap): trap 1"), std::string::npos) << e.what();
  }
}

/// MXU busy cycles of one MXU over the whole GEMM (timing only).
double mxuBusy(const Shape& s, const std::vector<std::string>& overrides) {
  TpuRunOptions o;
  o.timingOnly = true;
  o.scalars = {{"M", s.m}, {"K", s.k}, {"N", s.n}, {"MB", s.mb}};
  TpuKernelRun run = runTpuKernel("gemm", {}, tpuArchWith(overrides), o);
  return run.stats.get("chip[0].core[0].mxu[0].busy_cycles");
}

int64_t ceilDiv(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

TEST(TpuGemm, WithoutOverlapOneMxuTakesExactlyTheFoldFormula) {
  const int64_t R = 128, C = 128;
  for (const Shape& s : {Shape{200, 300, 260, 200}, Shape{512, 512, 512, 512},
                         Shape{1024, 256, 384, 1024}, Shape{8, 1000, 129, 8}}) {
    const double formula =
        static_cast<double>(ceilDiv(s.k, R) * ceilDiv(s.n, C) * (2 * R + C + s.m - 2));
    EXPECT_EQ(mxuBusy(s, {"mxu.overlap_weight_load=false", "mxu.count=1"}), formula)
        << s.m << "x" << s.k << "x" << s.n;
  }
}

TEST(TpuGemm, WithOverlapCyclesLieBetweenTheIdealAndTheFormula) {
  const int64_t R = 128, C = 128;
  for (int mxus : {1, 4})
    for (const Shape& s :
         {Shape{200, 300, 260, 200}, Shape{512, 512, 512, 512}, Shape{2048, 1024, 1024, 2048}}) {
      TpuRunOptions o;
      o.timingOnly = true;
      o.scalars = {{"M", s.m}, {"K", s.k}, {"N", s.n}, {"MB", s.mb}};
      TpuArch arch = tpuArchWith({"mxu.count=" + std::to_string(mxus)});
      TpuKernelRun run = runTpuKernel("gemm", {}, arch, o);
      const double ideal = static_cast<double>(s.m * s.n * s.k) / (R * C * mxus);
      const double formula =
          static_cast<double>(ceilDiv(s.k, R) * ceilDiv(s.n, C) * (2 * R + C + s.m - 2));
      // The MXU cycles: the busiest MXU, from each fold's first weight in to its last result
      // out, overlapping folds counted once.
      double busy = 0;
      for (int m = 0; m < mxus; ++m)
        busy = std::max(
            busy, run.stats.get("chip[0].core[0].mxu[" + std::to_string(m) + "].busy_cycles"));
      EXPECT_GE(busy, ideal) << mxus << " MXUs, M=" << s.m;
      EXPECT_LE(busy, formula) << mxus << " MXUs, M=" << s.m;
      // When every fold streams long enough to hide the DMAs, folds follow each other with
      // the weight loads hidden (only the first is exposed), and the whole span fits too.
      if (s.m >= 2048) {
        EXPECT_LT(busy, formula) << "overlap hides the weight loads after the first";
        EXPECT_LE(run.stats.get("chip[0].core[0].mxu_span_cycles"), formula);
      }
      // Nothing beats the physical limits.
      EXPECT_GE(run.cycles, ideal);
      const double bytes =
          run.stats.get("chip[0].hbm.bytes_read") + run.stats.get("chip[0].hbm.bytes_written");
      EXPECT_GE(run.cycles, bytes / arch.hbmBytesPerCycle());
    }
}

TEST(TpuGemm, ComputeBoundGemmReachesNinetyPercentOfPeakOnV5e) {
  TpuRunOptions o;
  o.timingOnly = true;
  o.scalars = {{"M", 4096}, {"K", 4096}, {"N", 4096}, {"MB", 4096}};
  TpuKernelRun run = runTpuKernel("gemm", {}, tpuArchWith(), o);
  EXPECT_GE(run.stats.get("utilization.mxu"), 0.90);
  EXPECT_LE(run.stats.get("utilization.mxu"), 1.0);
}

} // namespace
} // namespace chipless::test
