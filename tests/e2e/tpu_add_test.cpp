// The HBM-bound element-wise kernel (models/tpu-kernels/add.s): exact numerics, and a run
// time within 15% of bytes / HBM bandwidth (never below it), on one and two TensorCores.
#include "tests/e2e/tpu_kernel_harness.h"

#include <gtest/gtest.h>

namespace chipless::test {
namespace {

TpuKernelRun runAdd(int64_t rows, int64_t cols, const TpuArch& arch, bool timingOnly,
                    NpyArray* a = nullptr, NpyArray* b = nullptr) {
  TpuRunOptions o;
  o.timingOnly = timingOnly;
  o.scalars = {{"R", rows}, {"N", cols}};
  std::map<std::string, NpyArray> in;
  if (a) in = {{"A", *a}, {"B", *b}};
  return runTpuKernel("add", in, arch, o);
}

TEST(TpuAdd, IsExact) {
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{100, 300}, {1024, 1024}, {1, 128}}) {
    NpyArray a = randomF32Array({rows, cols}, 1), b = randomF32Array({rows, cols}, 2);
    TpuKernelRun run = runAdd(rows, cols, tpuArchWith(), false, &a, &b);
    std::vector<float> x = f32Values(a), y = f32Values(b), z = f32Values(run.outputs.at("C"));
    ASSERT_EQ(z.size(), x.size());
    for (size_t i = 0; i < z.size(); ++i) ASSERT_EQ(z[i], x[i] + y[i]) << rows << "x" << cols;
  }
}

TEST(TpuAdd, TwoTensorCoresSplitTheRows) {
  NpyArray a = randomF32Array({333, 256}, 3), b = randomF32Array({333, 256}, 4);
  TpuKernelRun run = runAdd(333, 256, tpuArchWith({}, "v4"), false, &a, &b);
  std::vector<float> x = f32Values(a), y = f32Values(b), z = f32Values(run.outputs.at("C"));
  for (size_t i = 0; i < z.size(); ++i) ASSERT_EQ(z[i], x[i] + y[i]);
  EXPECT_GT(run.stats.get("chip[0].core[1].dma_bytes_in"), 0);
}

TEST(TpuAdd, RunsWithinFifteenPercentOfTheHbmBound) {
  for (const char* gen : {"v5e", "v4", "v5p", "v6e"}) {
    TpuArch arch = tpuArchWith({}, gen);
    TpuKernelRun run = runAdd(4096, 2048, arch, true);
    const double bytes = 3.0 * 4096 * 2048 * 4; // read A and B, write C
    const double bound = bytes / arch.hbmBytesPerCycle();
    EXPECT_GE(run.cycles, bound) << gen;
    EXPECT_LE(run.cycles, 1.15 * bound) << gen << ": " << run.cycles << " vs " << bound;
    EXPECT_EQ(run.stats.get("chip[0].hbm.bytes_read") + run.stats.get("chip[0].hbm.bytes_written"),
              bytes);
  }
}

} // namespace
} // namespace chipless::test
