// The all-reduce kernel (models/tpu-kernels/allreduce.s) over N chips on the ICI: every chip
// ends with the sum; the time matches the ring formula 2(N-1)/N x bytes / link bandwidth
// within 15%, on rings and tori.
#include "tests/e2e/tpu_kernel_harness.h"

#include <cmath>
#include <gtest/gtest.h>

namespace chipless::test {
namespace {

TEST(TpuAllReduce, EveryChipGetsTheSum) {
  for (int chips : {1, 2, 3, 4, 8}) {
    const int64_t len = 1000;
    NpyArray x = randomF32Array({chips, len}, 20 + chips);
    TpuRunOptions o;
    o.chips = chips;
    TpuKernelRun run = runTpuKernel("allreduce", {{"X", x}}, tpuArchWith(), o);
    std::vector<float> in = f32Values(x), out = f32Values(run.outputs.at("Y"));
    ASSERT_EQ(out.size(), in.size());
    for (int c = 0; c < chips; ++c)
      for (int64_t i = 0; i < len; ++i) {
        double sum = 0;
        for (int q = 0; q < chips; ++q) sum += in[q * len + i];
        ASSERT_NEAR(out[c * len + i], sum, 1e-5 * (1 + std::fabs(sum))) << chips << " chips";
      }
  }
}

TEST(TpuAllReduce, MatchesTheRingFormula) {
  struct Case {
    std::string gen;
    std::vector<std::string> overrides;
    int chips;
  };
  const std::vector<Case> cases = {
      {"v5e", {}, 2}, {"v5e", {}, 4},
      {"v5e", {}, 8}, {"v5e", {"ici.topology=ring", "ici.links=2"}, 6},
      {"v4", {}, 8},  {"v6e", {}, 4},
  };
  for (const Case& c : cases) {
    TpuArch arch = tpuArchWith(c.overrides, c.gen);
    const int64_t len = 4 << 20; // 16 MiB per chip
    TpuRunOptions o;
    o.chips = c.chips;
    o.timingOnly = true;
    o.scalars = {{"L", len}};
    TpuKernelRun run = runTpuKernel("allreduce", {}, arch, o);
    const double bytes = 4.0 * len;
    const double ring = 2.0 * (c.chips - 1) / c.chips * bytes / arch.iciBytesPerCycle();
    EXPECT_GE(run.cycles, ring) << c.gen << " " << c.chips << " chips";
    EXPECT_LE(run.cycles, 1.15 * ring)
        << c.gen << " " << c.chips << " chips: " << run.cycles << " vs " << ring;
  }
}

} // namespace
} // namespace chipless::test
