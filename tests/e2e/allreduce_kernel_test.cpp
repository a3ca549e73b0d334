// The bundled ring all-reduce: reduce-scatter with add-on-arrival, then all-gather.
#include "tests/e2e/kernel_harness.h"

#include <cmath>
#include <gtest/gtest.h>

namespace chipless::test {
namespace {

TEST(AllReduceKernel, EveryCoreGetsTheSumOfAllPartials) {
  SpyreArch arch = archWith();
  NpyArray p = randomArray(DType::F32, {32, 4096}, 31);
  KernelRun run = runKernel("allreduce", {{"P", p}}, arch);
  std::vector<float> in = floats(p), out = floats(run.outputs.at("Y"));
  for (int64_t j = 0; j < 4096; ++j) {
    double sum = 0, mag = 0;
    for (int64_t r = 0; r < 32; ++r) sum += in[r * 4096 + j], mag += std::fabs(in[r * 4096 + j]);
    for (int64_t r = 0; r < 32; ++r)
      ASSERT_NEAR(out[r * 4096 + j], sum, 32 * std::ldexp(1.0, -24) * mag)
          << "core " << r << " element " << j;
  }
}

TEST(AllReduceKernel, NeverBeatsTheRingOrDramBound) {
  SpyreArch arch = archWith();
  KernelRun run = runKernel("allreduce", {{"P", randomArray(DType::F32, {32, 4096}, 31)}}, arch);
  const double n = 32, vectorBytes = 4096 * 4;
  // Each core sends 2(n-1) chunks of vector/n bytes over its outgoing link.
  const double ringBound =
      2 * (n - 1) / n * vectorBytes / static_cast<double>(arch.ring.bytes_per_cycle);
  EXPECT_GE(run.cycles, ringBound);
  EXPECT_GE(run.cycles, dramBoundCycles(run, arch));
  EXPECT_DOUBLE_EQ(run.stats.get("chip.core[0].ring.bytes"), 2 * (n - 1) * vectorBytes / n);
}

} // namespace
} // namespace chipless::test
