// The bundled row-softmax kernel: five streaming SFU passes per row.
#include "tests/e2e/kernel_harness.h"

#include <cmath>
#include <gtest/gtest.h>

namespace chipless::test {
namespace {

void expectSoftmax(const NpyArray& x, const NpyArray& y, int64_t rows, int64_t cols) {
  std::vector<float> in = floats(x), out = floats(y);
  for (int64_t r = 0; r < rows; ++r) {
    double mx = -INFINITY, sum = 0;
    for (int64_t c = 0; c < cols; ++c) mx = std::max(mx, static_cast<double>(in[r * cols + c]));
    for (int64_t c = 0; c < cols; ++c) sum += std::exp(in[r * cols + c] - mx);
    double total = 0;
    for (int64_t c = 0; c < cols; ++c) {
      double ref = std::exp(in[r * cols + c] - mx) / sum;
      // x - max is rounded to fp16 (relative error |x - max| * 2^-11 in exp of it), exp
      // and the product once more each, the sum in fp32.
      double d = std::fabs(in[r * cols + c] - mx);
      double tol = (d + 4) * std::ldexp(1.0, -11) * ref + std::ldexp(1.0, -24);
      ASSERT_NEAR(out[r * cols + c], ref, tol) << "row " << r << " col " << c;
      total += out[r * cols + c];
    }
    EXPECT_NEAR(total, 1.0, 1e-2) << "row " << r;
  }
}

TEST(SoftmaxKernel, MatchesFp32Reference) {
  SpyreArch arch = archWith();
  NpyArray x = randomArray(DType::F16, {64, 1024}, 21, 2.0f);
  KernelRun run = runKernel("softmax", {{"X", x}}, arch);
  expectSoftmax(x, run.outputs.at("Y"), 64, 1024);
  EXPECT_GE(run.cycles, dramBoundCycles(run, arch));
}

TEST(SoftmaxKernel, RunsOnSixteenCoresWithTwoRowsPerCorelet) {
  SpyreArch arch = archWith({"chip.cores=16"});
  NpyArray x = randomArray(DType::F16, {64, 1024}, 22, 3.0f);
  KernelRun run = runKernel("softmax", {{"X", x}}, arch);
  expectSoftmax(x, run.outputs.at("Y"), 64, 1024);
}

} // namespace
} // namespace chipless::test
