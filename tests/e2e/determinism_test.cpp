// The same inputs give the same cycles, statistics and timeline, byte for byte.
#include "runtime/spyre/spyre_device.h"
#include "runtime/spyre/spyre_job.h"
#include "support/trace.h"
#include "tests/e2e/kernel_harness.h"

#include <gtest/gtest.h>

namespace chipless::test {
namespace {

void expectIdenticalRuns(const std::string& kernel, const std::map<std::string, NpyArray>& in) {
  SpyreArch arch = archWith();
  KernelRun first = runKernel(kernel, in, arch, true);
  KernelRun second = runKernel(kernel, in, arch, true);
  EXPECT_EQ(first.cycles, second.cycles);
  EXPECT_EQ(first.statsJson, second.statsJson);
  EXPECT_EQ(first.traceJson, second.traceJson);
  EXPECT_GT(first.traceJson.size(), 1000u);
  for (const auto& [name, array] : first.outputs)
    EXPECT_EQ(array.data, second.outputs.at(name).data);
}

TEST(Determinism, AddKernelStatsAndTraceAreByteIdentical) {
  expectIdenticalRuns("add", {{"A", randomArray(DType::F16, {32, 4096}, 1)},
                              {"B", randomArray(DType::F16, {32, 4096}, 2)}});
}

TEST(Determinism, MatmulKernelStatsAndTraceAreByteIdentical) {
  expectIdenticalRuns("matmul", {{"A", randomArray(DType::F16, {256, 256}, 3)},
                                 {"B", randomArray(DType::F16, {256, 256}, 4)}});
}

TEST(Determinism, AllReduceStatsAndTraceAreByteIdentical) {
  expectIdenticalRuns("allreduce", {{"P", randomArray(DType::F32, {32, 4096}, 5)}});
}

} // namespace
} // namespace chipless::test

namespace chipless::test {
namespace {

// Prepare once, launch many: every launch of the same job on the same device is identical,
// although SystemC time has moved on and the engines were woken in a different order.
TEST(Determinism, RepeatedLaunchesOfOnePreparedJobAreIdentical) {
  SpyreArch arch = archWith();
  auto device = runtime::SpyreDevice::open(arch, {});
  runtime::SpyreJob job(*device, assembleKernel("matmul", arch), "matmul");
  runtime::LaunchArgs args;
  args.inputs = {{"A", randomArray(DType::F16, {256, 256}, 3)},
                 {"B", randomArray(DType::F16, {256, 256}, 4)}};
  std::string firstStats, firstTrace;
  NpyArray firstC;
  for (int i = 0; i < 3; ++i) {
    TraceWriter trace;
    args.trace = &trace;
    runtime::LaunchReport out = job.launch(args);
    Stats stats = device->stats(out);
    if (i == 0) {
      firstStats = stats.toJson().dump();
      firstTrace = trace.toString();
      firstC = out.outputs.at("C");
      continue;
    }
    EXPECT_EQ(stats.toJson().dump(), firstStats) << "launch " << i + 1;
    EXPECT_EQ(trace.toString(), firstTrace) << "launch " << i + 1;
    EXPECT_EQ(out.outputs.at("C").data, firstC.data) << "launch " << i + 1;
  }
}

} // namespace
} // namespace chipless::test
