// The TPU compiler on reductions returned by the graph: row sums and row maxima (one value per
// row, held one per sublane in the VPU) are broadcast along the row, and column 0 is turned
// into a contiguous vector by a transpose materialised on the MXU. Plain and batched, checked
// against fp64; column sums and maxima (a reduction over dimension 0 reads x through a
// materialised transpose); an integer reduction returned stays refused.
#include "tests/e2e/tpu_compile_harness.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <gtest/gtest.h>

namespace chipless::test {
namespace {

/// Row sums s and row maxima m of x [B?, M, N] (f32), both returned.
std::string graph(const std::vector<int64_t>& shape, size_t dim) {
  std::string xs, rs;
  for (size_t i = 0; i < shape.size(); ++i) {
    xs += std::to_string(shape[i]) + "x";
    if (i != dim) rs += std::to_string(shape[i]) + "x";
  }
  const std::string x = "tensor<" + xs + "f32>", r = "tensor<" + rs + "f32>",
                    d = std::to_string(dim);
  return "func.func @rows(%x: " + x + " {graph.name = \"x\"}) -> (" + r +
         " {graph.name = \"s\"}, " + r +
         " {graph.name = \"m\"}) {\n"
         "  %z = arith.constant 0.0 : f32\n"
         "  %ni = arith.constant 0xFF800000 : f32\n"
         "  %e = tensor.empty() : " +
         r +
         "\n"
         "  %f = linalg.fill ins(%z : f32) outs(%e : " +
         r + ") -> " + r +
         "\n"
         "  %g = linalg.fill ins(%ni : f32) outs(%e : " +
         r + ") -> " + r +
         "\n"
         "  %s = linalg.reduce ins(%x : " +
         x + ") outs(%f : " + r + ") dimensions = [" + d +
         "]\n"
         "    (%a: f32, %b: f32) {\n"
         "      %t = arith.addf %a, %b : f32\n"
         "      linalg.yield %t : f32\n"
         "    }\n"
         "  %m = linalg.reduce ins(%x : " +
         x + ") outs(%g : " + r + ") dimensions = [" + d +
         "]\n"
         "    (%a: f32, %b: f32) {\n"
         "      %t = arith.maximumf %a, %b : f32\n"
         "      linalg.yield %t : f32\n"
         "    }\n"
         "  return %s, %m : " +
         r + ", " + r +
         "\n"
         "}\n";
}

void check(const std::vector<int64_t>& shape, const std::string& precision, double rtol) {
  std::string tag = "rows";
  for (int64_t d : shape) tag += "_" + std::to_string(d);
  tag += "_" + precision;
  const std::string set = "numerics.fp32_matmul_precision=" + precision;
  std::string dir =
      compileOrFail(writeGraph(tag, graph(shape, shape.size() - 1)), tag, {"--set", set});
  NpyArray x = randomF32Array(shape, 81, 2.0f);
  TpuKernelRun run = runProgram(dir, {{"x", x}}, tpuArchWith({set}));
  const int64_t n = shape.back();
  std::vector<double> xv = asDoubles(x), s, m;
  for (size_t row = 0; row * n < xv.size(); ++row) {
    auto first = xv.begin() + static_cast<std::ptrdiff_t>(row * n);
    double sum = 0;
    for (auto it = first; it != first + n; ++it) sum += *it;
    s.push_back(sum);
    m.push_back(*std::max_element(first, first + n));
  }
  // fp32 sums of n terms of |x| < 8: 1e-5 absolute; the MXU's bf16 pieces: rtol.
  expectClose(run.outputs.at("s"), s, rtol, 1e-4, tag + ": row sums");
  expectClose(run.outputs.at("m"), m, rtol, 0, tag + ": row maxima");
}

TEST(TpuCompileReduce, RowSumsAndMaximaReturned) {
  check({100, 300}, "bf16x6", 1e-6);
  check({100, 300}, "bf16x3", std::ldexp(1.0, -15));
}

TEST(TpuCompileReduce, BatchedRowSumsReturned) {
  check({2, 50, 200}, "bf16x6", 1e-6);
}

/// Column sums and maxima of x [M, N] (a reduction over dimension 0), returned.
TEST(TpuCompileReduce, ColumnSumsAndMaximaReturned) {
  const int64_t m = 100, n = 300;
  const std::string set = "numerics.fp32_matmul_precision=bf16x6";
  std::string dir = compileOrFail(writeGraph("cols", graph({m, n}, 0)), "cols", {"--set", set});
  NpyArray x = randomF32Array({m, n}, 82, 2.0f);
  TpuKernelRun run = runProgram(dir, {{"x", x}}, tpuArchWith({set}));
  std::vector<double> xv = asDoubles(x), s(n, 0.0), mx(n, -INFINITY);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      s[static_cast<size_t>(j)] += xv[static_cast<size_t>(i * n + j)];
      mx[static_cast<size_t>(j)] =
          std::max(mx[static_cast<size_t>(j)], xv[static_cast<size_t>(i * n + j)]);
    }
  expectClose(run.outputs.at("s"), s, 1e-6, 1e-4, "column sums");
  expectClose(run.outputs.at("m"), mx, 0, 0, "column maxima");
}

TEST(TpuCompileReduce, AnIntegerReductionReturnedStaysRefused) {
  // The MXU transposes bf16 and f32 only.
  const std::string g = R"(func.func @f(%x: tensor<8x16xi32>) -> tensor<8xi32> {
  %z = arith.constant 0 : i32
  %e = tensor.empty() : tensor<8xi32>
  %f = linalg.fill ins(%z : i32) outs(%e : tensor<8xi32>) -> tensor<8xi32>
  %s = linalg.reduce ins(%x : tensor<8x16xi32>) outs(%f : tensor<8xi32>) dimensions = [1]
    (%a: i32, %b: i32) {
      %t = arith.addi %a, %b : i32
      linalg.yield %t : i32
    }
  return %s : tensor<8xi32>
})";
  CompileResult r = tpuCompile(writeGraph("bad_red", g), "bad_red");
  EXPECT_EQ(r.status, 1) << r.log;
  EXPECT_NE(r.log.find("bad_red.mlir:5:8: error: the result of this reduction is used outside "
                       "its kernel (by 'func.return')"),
            std::string::npos)
      << r.log;
}

TEST(TpuCompileReduce, RowSumsReadWithAUnitDimensionAreReadInPlace) {
  // keepdim: s[:, None] + y reads column 0 of the sums broadcast along the rows, rows of one
  // element: exact, no transpose on the MXU, so integer sums too.
  const std::string g = R"(#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @ik(%x: tensor<8x40xi32> {graph.name = "x"}, %y: tensor<8x1xi32> {graph.name = "y"})
    -> (tensor<8x1xi32> {graph.name = "z"}) {
  %c0 = arith.constant 0 : i32
  %e = tensor.empty() : tensor<8xi32>
  %f = linalg.fill ins(%c0 : i32) outs(%e : tensor<8xi32>) -> tensor<8xi32>
  %s = linalg.reduce ins(%x : tensor<8x40xi32>) outs(%f : tensor<8xi32>) dimensions = [1]
    (%in: i32, %acc: i32) {
      %r = arith.addi %in, %acc : i32
      linalg.yield %r : i32
    }
  %k = tensor.expand_shape %s [[0, 1]] output_shape [8, 1] : tensor<8xi32> into tensor<8x1xi32>
  %ez = tensor.empty() : tensor<8x1xi32>
  %z = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%k, %y : tensor<8x1xi32>, tensor<8x1xi32>) outs(%ez : tensor<8x1xi32>) {
  ^bb0(%a: i32, %b: i32, %o: i32):
    %t = arith.addi %a, %b : i32
    linalg.yield %t : i32
  } -> tensor<8x1xi32>
  return %z : tensor<8x1xi32>
})";
  CompileResult c = tpuCompile(writeGraph("keepdim", g), "keepdim");
  ASSERT_EQ(c.status, 0) << c.log;
  EXPECT_EQ(readFile(c.dumpDir + "/program.s").find("mxu.matmul"), std::string::npos);
  NpyArray x = makeNpy(DType::I32, {8, 40}), y = makeNpy(DType::I32, {8, 1});
  std::vector<double> want(8);
  for (int32_t i = 0; i < 8; ++i) {
    int32_t sum = 0;
    for (int32_t j = 0; j < 40; ++j) {
      const int32_t v = (i * 40 + j) * (j % 2 ? -7 : 3);
      std::memcpy(x.data.data() + 4 * (i * 40 + j), &v, 4);
      sum += v;
    }
    const int32_t b = 1000 * i;
    std::memcpy(y.data.data() + 4 * i, &b, 4);
    want[static_cast<size_t>(i)] = sum + b;
  }
  TpuKernelRun run = runProgram(c.dir, {{"x", x}, {"y", y}}, tpuArchWith());
  expectClose(run.outputs.at("z"), want, 0, 0, "x.sum(1, keepdim) + y");
}

} // namespace
} // namespace chipless::test
