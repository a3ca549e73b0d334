// The TPU compiler on per-row vectors read from HBM broadcast along the rows (`x * s[:, None]`
// with `s` an argument: PyTorch's RMSNorm scale, a mean's gradient). A packed vector
// ([batch..., M]) moves in DMA chunks of its rows' elements, a column ([batch..., M, 1], each
// element padded to a row of lanes) a chunk per row; either becomes a per-row value of the
// kernel by one broadcast load, a mask and a lane maximum, so the results are exact.
#include "tests/e2e/tpu_compile_harness.h"

#include <gtest/gtest.h>

namespace chipless::test {
namespace {

std::string tensorType(const std::vector<int64_t>& shape, const std::string& t) {
  std::string s = "tensor<";
  for (int64_t d : shape) s += std::to_string(d) + "x";
  return s + t + ">";
}

std::string loops(size_t rank) {
  std::string s = "(";
  for (size_t i = 0; i < rank; ++i) s += (i ? ", d" : "d") + std::to_string(i);
  return s + ")";
}

/// y = op(x, s broadcast along the rows) for x [batch..., M, N]; s is [batch..., M]
/// (`column`: [batch..., M, 1], collapsed to that first). `sBatch` false: s has no batch
/// dimensions (broadcast along them too).
std::string rowBroadcastGraph(const std::vector<int64_t>& xShape, bool column, bool sBatch,
                              const std::string& op, const std::string& t) {
  const size_t rank = xShape.size();
  std::vector<int64_t> sShape;
  std::string sMap = "(";
  for (size_t i = 0; i + 1 < rank; ++i) {
    if (!sBatch && i + 2 < rank) continue;
    sShape.push_back(xShape[i]);
    sMap += std::string(sMap.size() > 1 ? ", " : "") + "d" + std::to_string(i);
  }
  sMap += ")";
  std::vector<int64_t> argShape = sShape;
  if (column) argShape.push_back(1);
  const std::string x = tensorType(xShape, t), s = tensorType(sShape, t),
                    arg = tensorType(argShape, t), l = loops(rank);
  // A column argument %a is collapsed to the vector %s; a packed one is %s itself.
  std::string iters, g = "func.func @f(%x: " + x + " {graph.name = \"x\"}, " +
                         (column ? "%a: " : "%s: ") + arg + " {graph.name = \"s\"}) -> (" + x +
                         " {graph.name = \"y\"}) {\n";
  for (size_t i = 0; i < rank; ++i) iters += std::string(i ? ", " : "") + "\"parallel\"";
  if (column) {
    std::string groups = "[";
    for (size_t i = 0; i + 1 < sShape.size(); ++i) groups += "[" + std::to_string(i) + "], ";
    groups += "[" + std::to_string(sShape.size() - 1) + ", " + std::to_string(sShape.size()) + "]]";
    g += "  %s = tensor.collapse_shape %a " + groups + " : " + arg + " into " + s + "\n";
  }
  g += "  %e = tensor.empty() : " + x + "\n  %y = linalg.generic {indexing_maps = [affine_map<" +
       l + " -> " + l + ">, affine_map<" + l + " -> " + sMap + ">, affine_map<" + l + " -> " + l +
       ">], iterator_types = [" + iters + "]} ins(%x, %s : " + x + ", " + s + ") outs(%e : " + x +
       ") {\n  ^bb0(%p: " + t + ", %q: " + t + ", %o: " + t + "):\n    %r = arith." + op +
       " %p, %q : " + t + "\n    linalg.yield %r : " + t + "\n  } -> " + x +
       "\n  return %y : " + x + "\n}\n";
  return g;
}

struct Case {
  std::vector<int64_t> x;
  bool column = false, sBatch = true;
  std::string op = "mulf", type = "f32", gen = "v5e";
};

void checkCase(const Case& c, const std::string& tag) {
  const std::string text = rowBroadcastGraph(c.x, c.column, c.sBatch, c.op, c.type);
  std::vector<std::string> flags{"--arch", c.gen};
  std::string dir = compileOrFail(writeGraph(tag, text), tag, flags);
  const DType dt = c.type == "bf16" ? DType::BF16 : DType::F32;
  const int64_t n = c.x.back(), m = c.x[c.x.size() - 2];
  int64_t batch = 1;
  for (size_t i = 0; i + 2 < c.x.size(); ++i) batch *= c.x[i];
  std::vector<int64_t> sShape;
  for (size_t i = 0; i + 1 < c.x.size(); ++i)
    if (c.sBatch || i + 2 >= c.x.size()) sShape.push_back(c.x[i]);
  if (c.column) sShape.push_back(1);
  // bf16 tensors are given as f32 arrays: the runtime rounds them when it copies them in.
  NpyArray x = randomF32Array(c.x, 71, 2.0f), s = randomF32Array(sShape, 72, 1.0f);
  TpuKernelRun run = runProgram(dir, {{"x", x}, {"s", s}}, tpuArchWith({}, c.gen));
  std::vector<double> xv = dt == DType::BF16 ? bf16Values(x) : asDoubles(x),
                      sv = dt == DType::BF16 ? bf16Values(s) : asDoubles(s), want;
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        const float a = static_cast<float>(xv[static_cast<size_t>((b * m + i) * n + j)]);
        const float v = static_cast<float>(sv[static_cast<size_t>((c.sBatch ? b * m : 0) + i)]);
        const float r = c.op == "mulf" ? a * v : c.op == "subf" ? a - v : a / v;
        want.push_back(static_cast<double>(r));
      }
  if (dt == DType::BF16) want = roundBf16(want);
  // fp32 on the VPU as on the host, rounded to bf16 on the store for bf16: bit for bit.
  expectClose(run.outputs.at("y"), want, 0, 0, tag);
}

TEST(TpuCompileRowBroadcast, APackedVectorScalesTheRows) {
  checkCase({{5, 7}}, "packed_5x7");
  checkCase({{300, 200}}, "packed_300x200"); // several units, the last one partial
  checkCase({{1, 64}}, "packed_1x64");       // one row
  checkCase({{1000, 256}, false, true, "subf"}, "packed_sub_1000x256");
  checkCase({{2, 50, 130}, false, true, "divf"}, "packed_div_2x50x130");
}

TEST(TpuCompileRowBroadcast, AColumnInItsPaddedLayoutScalesTheRows) {
  checkCase({{32, 1024}, true}, "column_32x1024");
  checkCase({{37, 200}, true}, "column_37x200");
  checkCase({{2, 50, 130}, true}, "column_2x50x130");
}

TEST(TpuCompileRowBroadcast, AVectorSharedByEveryBatchAndTwoTensorCores) {
  checkCase({{3, 40, 64}, false, false}, "shared_3x40x64");
  checkCase({{3, 40, 64}, true, false}, "shared_column_3x40x64");
  Case v4{{300, 200}};
  v4.gen = "v4";
  checkCase(v4, "packed_v4_300x200");
  v4.column = true;
  checkCase(v4, "column_v4_300x200");
}

TEST(TpuCompileRowBroadcast, Bf16VectorsAreWidenedExactly) {
  Case c{{64, 256}};
  c.type = "bf16";
  checkCase(c, "packed_bf16_64x256");
  c.column = true;
  checkCase(c, "column_bf16_64x256");
  c.x = {1000, 512}; // several units (of 256 rows), each starting at a whole DMA chunk
  c.column = false;
  checkCase(c, "packed_bf16_1000x512");
}

TEST(TpuCompileRowBroadcast, AnIntegerVectorStaysRefused) {
  const std::string g =
      "func.func @f(%x: tensor<8x128xi32> {graph.name = \"x\"}, %s: tensor<8xi32> "
      "{graph.name = \"s\"}) -> (tensor<8x128xi32> {graph.name = \"y\"}) {\n"
      "  %e = tensor.empty() : tensor<8x128xi32>\n"
      "  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
      "affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = "
      "[\"parallel\", \"parallel\"]} ins(%x, %s : tensor<8x128xi32>, tensor<8xi32>) outs(%e : "
      "tensor<8x128xi32>) {\n"
      "  ^bb0(%p: i32, %q: i32, %o: i32):\n"
      "    %r = arith.addi %p, %q : i32\n"
      "    linalg.yield %r : i32\n"
      "  } -> tensor<8x128xi32>\n"
      "  return %y : tensor<8x128xi32>\n}\n";
  CompileResult r = tpuCompile(writeGraph("int_rows", g), "int_rows");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.log.find("int_rows.mlir:3:"), std::string::npos) << r.log;
  EXPECT_NE(r.log.find("operand 1 is read from HBM broadcast along (or not contiguous in) the "
                       "innermost dimension"),
            std::string::npos)
      << r.log;
}

} // namespace
} // namespace chipless::test
