// The TPU compiler on reshapes that merge a padded innermost dimension: [B, S, H, 64] ->
// [B * S, H * 64] (attention heads merged for the output projection) cannot be read in place
// when the rows of 64 are padded to the vector lanes in HBM. When the value is an argument, or
// a result also used elsewhere (returned), either possibly through views, tpu-form-kernels
// reads a copy whose only use is the reshape, written in the merged layout. Checked against fp64
// (bf16x6: the MXU is exact).
#include "tests/e2e/tpu_compile_harness.h"

#include <gtest/gtest.h>

namespace chipless::test {
namespace {

const std::string kExact = "numerics.fp32_matmul_precision=bf16x6";
const char* kHeads = "tensor<2x8x12x64xf32>";
const char* kRows = "tensor<16x768xf32>";

/// `heads` merged to [16, 768] times w [768, 32]; the graph's text around it.
std::string mergedMatmul(const std::string& heads) {
  return std::string("  %m = tensor.collapse_shape ") + heads + " [[0, 1], [2, 3]] : " + kHeads +
         " into " + kRows +
         "\n  %z = arith.constant 0.0 : f32\n  %ey = tensor.empty() : tensor<16x32xf32>\n"
         "  %fy = linalg.fill ins(%z : f32) outs(%ey : tensor<16x32xf32>) -> "
         "tensor<16x32xf32>\n  %y = linalg.matmul ins(%m, %w : " +
         kRows + ", tensor<768x32xf32>) outs(%fy : tensor<16x32xf32>) -> tensor<16x32xf32>\n";
}

std::vector<double> reference(const std::vector<double>& heads, const NpyArray& w) {
  return matmul(heads, asDoubles(w), 16, 768, 32);
}

TEST(TpuCompileReshape, AnArgumentsHeadsAreMergedThroughACopy) {
  const std::string g = std::string("func.func @f(%x: ") + kHeads +
                        " {graph.name = \"x\"}, %w: tensor<768x32xf32> {graph.name = \"w\"}) -> "
                        "(tensor<16x32xf32> {graph.name = \"y\"}) {\n" +
                        mergedMatmul("%x") + "  return %y : tensor<16x32xf32>\n}\n";
  std::string dir = compileOrFail(writeGraph("arg_heads", g), "arg_heads", {"--set", kExact});
  NpyArray x = randomF32Array({2, 8, 12, 64}, 81, 1.0f), w = randomF32Array({768, 32}, 82, 1.0f);
  TpuKernelRun run = runProgram(dir, {{"x", x}, {"w", w}}, tpuArchWith({kExact}));
  expectClose(run.outputs.at("y"), reference(asDoubles(x), w), 1e-5, 1e-4, "merged heads @ w");
}

TEST(TpuCompileReshape, ReturnedHeadsAreMergedThroughACopy) {
  // h = x * 2 is returned and merged: the returned h keeps its own (padded) layout.
  const std::string g = std::string("func.func @f(%x: ") + kHeads +
                        " {graph.name = \"x\"}, %w: tensor<768x32xf32> {graph.name = \"w\"}) -> (" +
                        kHeads +
                        " {graph.name = \"h\"}, tensor<16x32xf32> {graph.name = \"y\"}) {\n"
                        "  %eh = tensor.empty() : " +
                        kHeads + "\n  %h = linalg.add ins(%x, %x : " + kHeads + ", " + kHeads +
                        ") outs(%eh : " + kHeads + ") -> " + kHeads + "\n" + mergedMatmul("%h") +
                        "  return %h, %y : " + kHeads + ", tensor<16x32xf32>\n}\n";
  std::string dir = compileOrFail(writeGraph("ret_heads", g), "ret_heads", {"--set", kExact});
  NpyArray x = randomF32Array({2, 8, 12, 64}, 83, 1.0f), w = randomF32Array({768, 32}, 84, 1.0f);
  TpuKernelRun run = runProgram(dir, {{"x", x}, {"w", w}}, tpuArchWith({kExact}));
  std::vector<double> h = asDoubles(x);
  for (double& v : h) v *= 2;
  expectClose(run.outputs.at("h"), h, 0, 0, "h = x + x");
  expectClose(run.outputs.at("y"), reference(h, w), 1e-5, 1e-4, "merged h @ w");
}

TEST(TpuCompileReshape, AReturnedViewOfAResultIsMergedThroughACopy) {
  // h = x * 2 computed as [2, 12, 8, 64], returned as its transposed view [2, 8, 12, 64] (the
  // innermost dimension kept: a view) and merged for the matmul: a CNN's pooled NCHW image
  // returned and flattened for its classifier.
  const std::string t = "tensor<2x12x8x64xf32>";
  const std::string g =
      std::string("func.func @f(%x: ") + t +
      " {graph.name = \"x\"}, %w: tensor<768x32xf32> {graph.name = \"w\"}) -> (" + kHeads +
      " {graph.name = \"h\"}, tensor<16x32xf32> {graph.name = \"y\"}) {\n"
      "  %eh = tensor.empty() : " +
      t + "\n  %d = linalg.add ins(%x, %x : " + t + ", " + t + ") outs(%eh : " + t + ") -> " + t +
      "\n  %et = tensor.empty() : " + kHeads + "\n  %h = linalg.transpose ins(%d : " + t +
      ") outs(%et : " + kHeads + ") permutation = [0, 2, 1, 3]\n" + mergedMatmul("%h") +
      "  return %h, %y : " + kHeads + ", tensor<16x32xf32>\n}\n";
  std::string dir = compileOrFail(writeGraph("view_heads", g), "view_heads", {"--set", kExact});
  NpyArray x = randomF32Array({2, 12, 8, 64}, 85, 1.0f), w = randomF32Array({768, 32}, 86, 1.0f);
  TpuKernelRun run = runProgram(dir, {{"x", x}, {"w", w}}, tpuArchWith({kExact}));
  const std::vector<double> xv = asDoubles(x);
  std::vector<double> h(xv.size());
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t i = 0; i < 8; ++i)
      for (int64_t j = 0; j < 12; ++j)
        for (int64_t d = 0; d < 64; ++d)
          h[static_cast<size_t>(((b * 8 + i) * 12 + j) * 64 + d)] =
              2 * xv[static_cast<size_t>(((b * 12 + j) * 8 + i) * 64 + d)];
  expectClose(run.outputs.at("h"), h, 0, 0, "h = (x + x) transposed");
  expectClose(run.outputs.at("y"), reference(h, w), 1e-5, 1e-4, "merged h @ w");
}

} // namespace
} // namespace chipless::test
