// The TPU model is deterministic: the same job gives byte-identical statistics and traces
// from run to run and from launch to launch of one prepared job (single chip and multi-chip).
#include "tests/e2e/tpu_kernel_harness.h"

#include <gtest/gtest.h>

namespace chipless::test {
namespace {

TEST(TpuDeterminism, GemmStatsAndTraceAreByteIdenticalAcrossRunsAndLaunches) {
  NpyArray a = randomF32Array({200, 300}, 1), b = randomF32Array({300, 260}, 2);
  TpuRunOptions o;
  o.trace = true;
  o.launches = 3;
  o.scalars = {{"MB", 200}};
  TpuKernelRun first = runTpuKernel("gemm", {{"A", a}, {"B", b}}, tpuArchWith(), o);
  TpuKernelRun second = runTpuKernel("gemm", {{"A", a}, {"B", b}}, tpuArchWith(), o);
  EXPECT_EQ(first.statsJson, second.statsJson);
  EXPECT_EQ(first.traceJson, second.traceJson);
  EXPECT_EQ(first.outputs.at("C").data, second.outputs.at("C").data);
  ASSERT_EQ(first.launchCycles.size(), 3u);
  EXPECT_EQ(first.launchCycles[0], first.launchCycles[1]);
  EXPECT_EQ(first.launchCycles[1], first.launchCycles[2]);
  // One launch only gives the same statistics as the last of three.
  o.launches = 1;
  TpuKernelRun single = runTpuKernel("gemm", {{"A", a}, {"B", b}}, tpuArchWith(), o);
  EXPECT_EQ(single.statsJson, first.statsJson);
  EXPECT_EQ(single.traceJson, first.traceJson);
}

TEST(TpuDeterminism, MultiChipCollectivesAreByteIdentical) {
  NpyArray x = randomF32Array({4, 5000}, 3);
  TpuRunOptions o;
  o.chips = 4;
  o.trace = true;
  o.launches = 2;
  TpuKernelRun first = runTpuKernel("allreduce", {{"X", x}}, tpuArchWith({}, "v4"), o);
  TpuKernelRun second = runTpuKernel("allreduce", {{"X", x}}, tpuArchWith({}, "v4"), o);
  EXPECT_EQ(first.statsJson, second.statsJson);
  EXPECT_EQ(first.traceJson, second.traceJson);
  EXPECT_EQ(first.launchCycles[0], first.launchCycles[1]);
  EXPECT_NE(first.traceJson.find("ICI links (GB/s)"), std::string::npos);
  EXPECT_NE(first.traceJson.find("\"ici.all-reduce\""), std::string::npos);
}

TEST(TpuDeterminism, TraceHasAProcessPerCoreATrackPerUnitAndCounters) {
  NpyArray a = randomF32Array({64, 256}, 4), b = randomF32Array({256, 512}, 5);
  TpuRunOptions o;
  o.trace = true;
  o.scalars = {{"MB", 64}};
  TpuKernelRun run = runTpuKernel("gemm", {{"A", a}, {"B", b}}, tpuArchWith({}, "v4"), o);
  for (const char* s :
       {"\"chip 0 core 0\"", "\"chip 0 core 1\"", "\"mxu3 stream\"", "\"mxu0 weights\"", "\"dma0\"",
        "\"scalar\"", "\"chip 0 HBM channels (GB/s)\"", "\"fold.bf16\"", "\"dma.in\"",
        "\"dma.out\""})
    EXPECT_NE(run.traceJson.find(s), std::string::npos) << s;
}

} // namespace
} // namespace chipless::test
