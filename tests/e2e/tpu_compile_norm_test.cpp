// The TPU compiler on row-wise reductions: linalg.softmax (decomposed into max, exp, sum and
// divide, fused into one kernel with masked lanes past N = 300) and a layer normalisation
// written with linalg.reduce and linalg.generic (mean, variance, rsqrt, scale and shift in one
// kernel, gamma and beta broadcast down the rows).
#include "tests/e2e/tpu_compile_harness.h"

#include <cmath>
#include <gtest/gtest.h>

namespace chipless::test {
namespace {

void checkSoftmax(const TpuArch& arch, const std::vector<std::string>& flags) {
  std::string dir = compileOrFail(graphFile("softmax"), "softmax", flags);
  NpyArray x = randomF32Array({100, 300}, 51, 3.0f);
  TpuKernelRun run = runProgram(dir, {{"X", x}}, arch);
  expectClose(run.outputs.at("Y"), softmaxRows(asDoubles(x), 300), 1e-5, 1e-7, "softmax");
  // One kernel: the graph's four ops fused; the input read once and the output written once.
  // A DMA moves each row of 300 f32 (1200 bytes) rounded up to dma.alignment_bytes (32 on
  // every shipped generation: 1216 bytes), not to the 128 lanes the VPU pads to in VMEM
  // (384 elements): 100 rows x 1216 bytes = 121,600 each way.
  const double rowBytes =
      std::ceil(300.0 * 4 / arch.dma.alignment_bytes) * arch.dma.alignment_bytes;
  EXPECT_EQ(run.stats.get("chip[0].hbm.bytes_read"), 100 * rowBytes);
  EXPECT_EQ(run.stats.get("chip[0].hbm.bytes_written"), 100 * rowBytes);
}

TEST(TpuCompileNorm, Softmax) {
  checkSoftmax(tpuArchWith(), {});
  checkSoftmax(tpuArchWith({}, "v4"), {"--arch", "v4"});
}

TEST(TpuCompileNorm, LayerNorm) {
  for (const std::string gen : {"v5e", "v6e"}) {
    std::string dir = compileOrFail(graphFile("layernorm"), "layernorm_" + gen, {"--arch", gen});
    const int64_t m = 128, n = 768;
    NpyArray x = randomF32Array({m, n}, 61, 2.0f), g = randomF32Array({n}, 62),
             b = randomF32Array({n}, 63);
    TpuKernelRun run = runProgram(dir, {{"X", x}, {"gamma", g}, {"beta", b}}, tpuArchWith({}, gen));
    std::vector<double> xv = asDoubles(x), gv = asDoubles(g), bv = asDoubles(b), ref(xv.size());
    for (int64_t i = 0; i < m; ++i) {
      double mean = 0, var = 0;
      for (int64_t j = 0; j < n; ++j) mean += xv[i * n + j];
      mean /= n;
      for (int64_t j = 0; j < n; ++j) var += (xv[i * n + j] - mean) * (xv[i * n + j] - mean);
      var /= n;
      for (int64_t j = 0; j < n; ++j)
        ref[i * n + j] = (xv[i * n + j] - mean) / std::sqrt(var + 1e-5) * gv[j] + bv[j];
    }
    expectClose(run.outputs.at("Y"), ref, 1e-4, 1e-4, "layernorm on " + gen);
  }
}

} // namespace
} // namespace chipless::test
