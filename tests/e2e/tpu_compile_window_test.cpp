// The TPU compiler on padding and pooling (tpu-decompose, Windows.cpp): tensor.pad by a
// constant becomes concatenations with constant fills, linalg.pooling_nhwc_max / _sum a chain
// of element-wise maxima / sums over the window's strided slices of the input. Strides,
// dilations, padding with -inf, and what stays refused, against references computed here.
#include "tests/e2e/tpu_compile_harness.h"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <limits>

namespace chipless::test {
namespace {

/// x [n, h, w, c] NHWC, padded by `p` on both sides of H and W with `fill`, pooled by a k x k
/// window of stride s and dilation d: maxima or sums.
std::vector<double> pool(const std::vector<double>& x, int64_t n, int64_t h, int64_t w, int64_t c,
                         int64_t k, int64_t s, int64_t d, int64_t p, bool max) {
  const int64_t oh = (h + 2 * p - d * (k - 1) - 1) / s + 1,
                ow = (w + 2 * p - d * (k - 1) - 1) / s + 1;
  const double fill = max ? -std::numeric_limits<double>::infinity() : 0.0;
  std::vector<double> out;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j)
        for (int64_t ch = 0; ch < c; ++ch) {
          double acc = fill;
          for (int64_t u = 0; u < k; ++u)
            for (int64_t v = 0; v < k; ++v) {
              const int64_t y = i * s + u * d - p, z = j * s + v * d - p;
              const double e = y < 0 || y >= h || z < 0 || z >= w
                                   ? fill
                                   : x[static_cast<size_t>(((b * h + y) * w + z) * c + ch)];
              acc = max ? std::max(acc, e) : acc + e;
            }
          out.push_back(acc);
        }
  return out;
}

TEST(TpuCompileWindow, PaddedMaxPoolingAndDilatedSumPooling) {
  const char* g = R"(func.func @pool(%x: tensor<2x9x10x24xf32> {graph.name = "x"})
    -> (tensor<2x5x5x24xf32> {graph.name = "y"}, tensor<2x4x4x24xf32> {graph.name = "z"}) {
  %ninf = arith.constant 0xFF800000 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %ninf : f32
  } : tensor<2x9x10x24xf32> to tensor<2x11x12x24xf32>
  %w = tensor.empty() : tensor<3x3xf32>
  %e = tensor.empty() : tensor<2x5x5x24xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<2x5x5x24xf32>) -> tensor<2x5x5x24xf32>
  %y = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%p, %w : tensor<2x11x12x24xf32>, tensor<3x3xf32>) outs(%f : tensor<2x5x5x24xf32>) -> tensor<2x5x5x24xf32>
  %zero = arith.constant 0.0 : f32
  %w2 = tensor.empty() : tensor<2x2xf32>
  %e2 = tensor.empty() : tensor<2x4x4x24xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x4x4x24xf32>) -> tensor<2x4x4x24xf32>
  %z = linalg.pooling_nhwc_sum {dilations = dense<2> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %w2 : tensor<2x9x10x24xf32>, tensor<2x2xf32>) outs(%f2 : tensor<2x4x4x24xf32>) -> tensor<2x4x4x24xf32>
  return %y, %z : tensor<2x5x5x24xf32>, tensor<2x4x4x24xf32>
}
)";
  std::string dir = compileOrFail(writeGraph("pool", g), "pool");
  NpyArray x = randomF32Array({2, 9, 10, 24}, 91, 3.0f);
  TpuKernelRun run = runProgram(dir, {{"x", x}}, tpuArchWith());
  const std::vector<double> xv = asDoubles(x);
  expectClose(run.outputs.at("y"), pool(xv, 2, 9, 10, 24, 3, 2, 1, 1, true), 0, 0,
              "max pool 3x3, stride 2, padding 1 (-inf)");
  // Sums of four f32 in f32, in window order: within a few ulp.
  expectClose(run.outputs.at("z"), pool(xv, 2, 9, 10, 24, 2, 2, 2, 0, false), 1e-6, 1e-6,
              "sum pool 2x2, stride 2, dilation 2");
}

TEST(TpuCompileWindow, PaddingOnEveryDimensionWithAConstant) {
  // bf16 [3, 5, 64] padded by 1 before on the first dimension, 1 before and 2 after on the
  // second, 64 lanes after on the last (the source a whole number of 32-byte runs): 4 x 8 x 128.
  const char* g =
      R"(func.func @padded(%x: tensor<3x5x64xbf16> {graph.name = "x"}) -> (tensor<4x8x128xbf16> {graph.name = "y"}) {
  %c = arith.constant 2.5 : bf16
  %p = tensor.pad %x low[1, 1, 0] high[0, 2, 64] {
  ^bb0(%a: index, %b: index, %d: index):
    tensor.yield %c : bf16
  } : tensor<3x5x64xbf16> to tensor<4x8x128xbf16>
  return %p : tensor<4x8x128xbf16>
}
)";
  std::string dir = compileOrFail(writeGraph("padded", g), "padded");
  NpyArray x = randomF32Array({3, 5, 64}, 92);
  TpuKernelRun run = runProgram(dir, {{"x", x}}, tpuArchWith());
  const std::vector<double> xv = bf16Values(x);
  std::vector<double> want;
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 8; ++j)
      for (int64_t k = 0; k < 128; ++k) {
        const bool inside = i >= 1 && j >= 1 && j < 6 && k < 64;
        want.push_back(inside ? xv[static_cast<size_t>(((i - 1) * 5 + (j - 1)) * 64 + k)] : 2.5);
      }
  expectClose(run.outputs.at("y"), want, 0, 0, "pad");
}

TEST(TpuCompileWindow, PaddingWithAComputedValueIsRefusedAtThePad) {
  const char* g =
      R"(func.func @bad(%x: tensor<4x8xf32> {graph.name = "x"}, %v: tensor<1xf32> {graph.name = "v"})
    -> (tensor<6x8xf32> {graph.name = "y"}) {
  %p = tensor.pad %x low[1, 0] high[1, 0] {
  ^bb0(%a: index, %b: index):
    %c0 = arith.constant 0 : index
    %e = tensor.extract %v[%c0] : tensor<1xf32>
    tensor.yield %e : f32
  } : tensor<4x8xf32> to tensor<6x8xf32>
  return %p : tensor<6x8xf32>
}
)";
  CompileResult c = tpuCompile(writeGraph("bad_pad", g), "bad_pad");
  EXPECT_EQ(c.status, 1);
  EXPECT_NE(c.log.find("bad_pad.mlir:3:8: error: tpu-compile pads with a constant value only"),
            std::string::npos)
      << c.log;
}

TEST(TpuCompileWindow, AWindowOfMoreThan1024PositionsIsRefusedAtThePooling) {
  const char* g =
      R"(func.func @big(%x: tensor<1x40x40x8xf32> {graph.name = "x"}) -> (tensor<1x1x1x8xf32> {graph.name = "y"}) {
  %zero = arith.constant 0.0 : f32
  %w = tensor.empty() : tensor<40x40xf32>
  %e = tensor.empty() : tensor<1x1x1x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x1x1x8xf32>) -> tensor<1x1x1x8xf32>
  %y = linalg.pooling_nhwc_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x40x40x8xf32>, tensor<40x40xf32>) outs(%f : tensor<1x1x1x8xf32>) -> tensor<1x1x1x8xf32>
  return %y : tensor<1x1x1x8xf32>
}
)";
  CompileResult c = tpuCompile(writeGraph("big_pool", g), "big_pool");
  EXPECT_EQ(c.status, 1);
  EXPECT_NE(c.log.find("big_pool.mlir:6:8: error: tpu-compile pools windows of at most 1024 "
                       "positions (got 40 x 40)"),
            std::string::npos)
      << c.log;
}

} // namespace
} // namespace chipless::test
