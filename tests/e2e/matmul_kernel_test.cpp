// The bundled matmul kernel: fp16 inputs, fp32 accumulation on the PT arrays, work divided
// over the cores; timing never beats the PT peak or the DRAM bound.
#include "tests/e2e/kernel_harness.h"

#include <cmath>
#include <gtest/gtest.h>

namespace chipless::test {
namespace {

void expectMatmul(const NpyArray& a, const NpyArray& b, const NpyArray& c, int64_t m, int64_t k,
                  int64_t n) {
  std::vector<float> x = floats(a), y = floats(b), z = floats(c);
  ASSERT_EQ(z.size(), static_cast<size_t>(m * n));
  double worst = 0;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double ref = 0;
      for (int64_t p = 0; p < k; ++p) ref += static_cast<double>(x[i * k + p]) * y[p * n + j];
      // One rounding to fp16 of an fp32 accumulation: within one fp16 ulp of the value.
      double tol = std::max(std::fabs(ref) * std::ldexp(1.0, -10), std::ldexp(1.0, -14));
      double err = std::fabs(z[i * n + j] - ref);
      worst = std::max(worst, err / tol);
      if (err > tol)
        FAIL() << "C[" << i << "," << j << "] = " << z[i * n + j] << ", expected " << ref;
    }
  EXPECT_LE(worst, 1.0);
}

TEST(MatmulKernel, MatchesFp32ReferenceOn32Cores) {
  SpyreArch arch = archWith();
  NpyArray a = randomArray(DType::F16, {256, 256}, 11, 0.5f);
  NpyArray b = randomArray(DType::F16, {256, 256}, 12, 0.5f);
  KernelRun run = runKernel("matmul", {{"A", a}, {"B", b}}, arch);
  expectMatmul(a, b, run.outputs.at("C"), 256, 256, 256);
  EXPECT_DOUBLE_EQ(run.stats.get("chip.core[0].compute0.pt_macs"), 16.0 * 256 * 64);
}

TEST(MatmulKernel, NeverBeatsThePtPeakOrTheDramBound) {
  SpyreArch arch = archWith();
  KernelRun run = runKernel("matmul",
                            {{"A", randomArray(DType::F16, {256, 256}, 11)},
                             {"B", randomArray(DType::F16, {256, 256}, 12)}},
                            arch);
  const double flops = 2.0 * 256 * 256 * 256;
  EXPECT_GE(run.cycles, flops / static_cast<double>(arch.peakFp16FlopsPerCycle()));
  EXPECT_GE(run.cycles, dramBoundCycles(run, arch));
}

TEST(MatmulKernel, ComputeBoundWhenDramIsFast) {
  // With very fast DRAM the PT arrays are the limit: cycles approach FLOPs / peak.
  SpyreArch arch = archWith({"dram.bandwidth_gb_s=100000", "ring.bytes_per_cycle=65536"});
  KernelRun run = runKernel("matmul",
                            {{"A", randomArray(DType::F16, {256, 256}, 11)},
                             {"B", randomArray(DType::F16, {256, 256}, 12)}},
                            arch);
  const double bound = 2.0 * 256 * 256 * 256 / static_cast<double>(arch.peakFp16FlopsPerCycle());
  EXPECT_GE(run.cycles, bound);
  EXPECT_LE(run.cycles, 2.0 * bound) << "weights loading and pipeline fill should cost < 2x";
}

TEST(MatmulKernel, RunsOnSixteenCores) {
  SpyreArch arch = archWith({"chip.cores=16"});
  NpyArray a = randomArray(DType::F16, {256, 256}, 13, 0.5f);
  NpyArray b = randomArray(DType::F16, {256, 256}, 14, 0.5f);
  KernelRun run = runKernel("matmul", {{"A", a}, {"B", b}}, arch);
  expectMatmul(a, b, run.outputs.at("C"), 256, 256, 256);
}

} // namespace
} // namespace chipless::test
