// The same inputs give the same cycles, statistics and timeline, byte for byte.
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
