// The bundled elementwise add kernel: exact fp16 numerics and DRAM-bound timing.
#include "support/numerics.h"
#include "tests/e2e/kernel_harness.h"

#include <gtest/gtest.h>

namespace chipless::test {
namespace {

void expectExactSum(const NpyArray& a, const NpyArray& b, const NpyArray& c) {
  std::vector<float> x = floats(a), y = floats(b), z = floats(c);
  ASSERT_EQ(z.size(), x.size());
  size_t bad = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    // fp32 add, one rounding to fp16: the reference rounds the same way.
    float ref = halfToFloat(floatToHalf(x[i] + y[i]));
    if (z[i] != ref && ++bad <= 5)
      ADD_FAILURE() << "element " << i << ": " << z[i] << " != " << ref;
  }
  EXPECT_EQ(bad, 0u);
}

TEST(AddKernel, MatchesFp32ReferenceOn32Cores) {
  SpyreArch arch = archWith();
  NpyArray a = randomArray(DType::F16, {32, 4096}, 1), b = randomArray(DType::F16, {32, 4096}, 2);
  KernelRun run = runKernel("add", {{"A", a}, {"B", b}}, arch);
  expectExactSum(a, b, run.outputs.at("C"));
}

TEST(AddKernel, LandsWithinFifteenPercentOfTheDramBound) {
  SpyreArch arch = archWith();
  KernelRun run = runKernel("add",
                            {{"A", randomArray(DType::F16, {32, 4096}, 1)},
                             {"B", randomArray(DType::F16, {32, 4096}, 2)}},
                            arch);
  const double bytes = 3.0 * 32 * 4096 * 2;
  EXPECT_DOUBLE_EQ(run.stats.get("chip.dram.bytes"), bytes);
  const double bound = bytes / arch.dramBytesPerCycle();
  EXPECT_GE(run.cycles, bound) << "faster than DRAM allows";
  EXPECT_LE(run.cycles, 1.15 * bound) << "more than 15% above the DRAM bound";
}

TEST(AddKernel, RunsOnAChipWithSixteenCoresAndAnotherDramBandwidth) {
  SpyreArch arch = archWith({"chip.cores=16", "dram.bandwidth_gb_s=400"});
  NpyArray a = randomArray(DType::F16, {32, 8192}, 3), b = randomArray(DType::F16, {32, 8192}, 4);
  KernelRun run = runKernel("add", {{"A", a}, {"B", b}}, arch);
  expectExactSum(a, b, run.outputs.at("C"));
  EXPECT_GE(run.cycles, dramBoundCycles(run, arch));
}

TEST(AddKernel, TimingOnlyGivesTheSameCyclesAsFunctional) {
  SpyreArch arch = archWith();
  std::map<std::string, NpyArray> in = {{"A", randomArray(DType::F16, {32, 4096}, 1)},
                                        {"B", randomArray(DType::F16, {32, 4096}, 2)}};
  KernelRun functional = runKernel("add", in, arch);
  KernelRun timing = runKernel("add", {}, arch, false, true, {{"N", 4096}});
  EXPECT_EQ(functional.cycles, timing.cycles);
  EXPECT_TRUE(timing.outputs.empty());
}

TEST(AddKernel, DlFloat16DeviceFormatRoundsToDlFloat) {
  SpyreArch arch = archWith({"numerics.fp16_format=dlfloat16"});
  NpyArray a = randomArray(DType::F16, {32, 4096}, 5), b = randomArray(DType::F16, {32, 4096}, 6);
  KernelRun run = runKernel("add", {{"A", a}, {"B", b}}, arch);
  std::vector<float> x = floats(a), y = floats(b), z = floats(run.outputs.at("C"));
  for (size_t i = 0; i < x.size(); ++i) {
    // Inputs go IEEE fp16 → DLFloat16 on the way in, the sum is rounded to DLFloat16 and
    // read back into IEEE fp16.
    float xd = dlf16ToFloat(floatToDlf16(x[i])), yd = dlf16ToFloat(floatToDlf16(y[i]));
    float ref = halfToFloat(floatToHalf(dlf16ToFloat(floatToDlf16(xd + yd))));
    ASSERT_EQ(z[i], ref) << "element " << i;
  }
}

} // namespace
} // namespace chipless::test
