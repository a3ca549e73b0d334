// The TPU compiler on tensor.concat: no kernel of its own, each part is written in place into
// its slice of the result (tpu-alloc-hbm), and a part that is not a kernel's value used only
// there (an argument, a view) is concatenated as a copy. LLaMA's rotate-half along the lanes,
// arguments along the rows, a concatenation read by a matmul, nested and returned ones, and
// the widths the DMA cannot place, refused at the kernel that would write them.
#include "tests/e2e/tpu_compile_harness.h"

#include <gtest/gtest.h>

namespace chipless::test {
namespace {

const std::string kExact = "numerics.fp32_matmul_precision=bf16x6";

/// The elements of `x` ([rows, cols] row-major) in columns [c0, c0 + n).
std::vector<double> columns(const std::vector<double>& x, int64_t rows, int64_t cols, int64_t c0,
                            int64_t n) {
  std::vector<double> r;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = c0; j < c0 + n; ++j) r.push_back(x[static_cast<size_t>(i * cols + j)]);
  return r;
}

/// [rows, a] and [rows, b] side by side: [rows, a + b].
std::vector<double> sideBySide(const std::vector<double>& x, int64_t a,
                               const std::vector<double>& y, int64_t b) {
  std::vector<double> r;
  const int64_t rows = static_cast<int64_t>(x.size()) / a;
  for (int64_t i = 0; i < rows; ++i) {
    r.insert(r.end(), x.begin() + i * a, x.begin() + (i + 1) * a);
    r.insert(r.end(), y.begin() + i * b, y.begin() + (i + 1) * b);
  }
  return r;
}

TEST(TpuCompileConcat, RotateHalfAlongTheLanes) {
  // y = x * cos + cat(-x[:, 64:], x[:, :64]) * sin over [4 * 33, 128]: the negation is a
  // kernel written into the first half, the view x[:, :64] is copied into the second.
  const char* g = R"(#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row = affine_map<(d0, d1, d2) -> (d1, d2)>
func.func @rope(%x: tensor<4x33x128xf32> {graph.name = "x"}, %cos: tensor<33x128xf32> {graph.name = "cos"},
                %sin: tensor<33x128xf32> {graph.name = "sin"}) -> (tensor<4x33x128xf32> {graph.name = "y"}) {
  %hi = tensor.extract_slice %x[0, 0, 64] [4, 33, 64] [1, 1, 1] : tensor<4x33x128xf32> to tensor<4x33x64xf32>
  %lo = tensor.extract_slice %x[0, 0, 0] [4, 33, 64] [1, 1, 1] : tensor<4x33x128xf32> to tensor<4x33x64xf32>
  %en = tensor.empty() : tensor<4x33x64xf32>
  %neg = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%hi : tensor<4x33x64xf32>) outs(%en : tensor<4x33x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    linalg.yield %n : f32
  } -> tensor<4x33x64xf32>
  %rot = tensor.concat dim(2) %neg, %lo : (tensor<4x33x64xf32>, tensor<4x33x64xf32>) -> tensor<4x33x128xf32>
  %ey = tensor.empty() : tensor<4x33x128xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id, #row, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %cos, %rot, %sin : tensor<4x33x128xf32>, tensor<33x128xf32>, tensor<4x33x128xf32>, tensor<33x128xf32>)
      outs(%ey : tensor<4x33x128xf32>) {
  ^bb0(%a: f32, %c: f32, %r: f32, %s: f32, %o: f32):
    %ac = arith.mulf %a, %c : f32
    %rs = arith.mulf %r, %s : f32
    %sum = arith.addf %ac, %rs : f32
    linalg.yield %sum : f32
  } -> tensor<4x33x128xf32>
  return %y : tensor<4x33x128xf32>
}
)";
  CompileResult c = tpuCompile(writeGraph("rope", g), "rope");
  ASSERT_EQ(c.status, 0) << c.log;
  NpyArray x = randomF32Array({4, 33, 128}, 11, 1.0f), cs = randomF32Array({33, 128}, 12, 1.0f),
           sn = randomF32Array({33, 128}, 13, 1.0f);
  TpuKernelRun run = runProgram(c.dir, {{"x", x}, {"cos", cs}, {"sin", sn}}, tpuArchWith({}));
  const std::vector<double> xv = asDoubles(x), cv = asDoubles(cs), sv = asDoubles(sn);
  std::vector<double> want(xv.size());
  for (size_t i = 0; i < xv.size(); ++i) {
    const size_t row = i / 128, col = i % 128, pos = i % (33 * 128);
    const double rot = col < 64 ? -xv[row * 128 + col + 64] : xv[row * 128 + col - 64];
    want[i] = static_cast<double>(static_cast<float>(static_cast<float>(xv[i] * cv[pos]) +
                                                     static_cast<float>(rot * sv[pos])));
  }
  expectClose(run.outputs.at("y"), want, 1e-6, 1e-6, "x * cos + rotate_half(x) * sin");
  // The concatenation is no kernel: two parts, the rotation's readers and nothing else.
  const std::string s = readFile(c.dumpDir + "/program.s");
  EXPECT_EQ(s.find("; kernel k3"), std::string::npos) << s.substr(0, 2000);
}

TEST(TpuCompileConcat, ArgumentsAlongTheRowsReturnedAndReadByAMatmul) {
  // c = cat(a, b) along the rows is returned and multiplied: z = c @ w. The arguments are
  // copied into the output argument c itself; the matmul reads c from there.
  const char* g =
      R"(func.func @rows(%a: tensor<5x96xf32> {graph.name = "a"}, %b: tensor<19x96xf32> {graph.name = "b"},
                %w: tensor<96x40xf32> {graph.name = "w"})
    -> (tensor<24x96xf32> {graph.name = "c"}, tensor<24x40xf32> {graph.name = "z"}) {
  %c = tensor.concat dim(0) %a, %b : (tensor<5x96xf32>, tensor<19x96xf32>) -> tensor<24x96xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<24x40xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<24x40xf32>) -> tensor<24x40xf32>
  %z = linalg.matmul ins(%c, %w : tensor<24x96xf32>, tensor<96x40xf32>) outs(%f : tensor<24x40xf32>) -> tensor<24x40xf32>
  return %c, %z : tensor<24x96xf32>, tensor<24x40xf32>
}
)";
  std::string dir = compileOrFail(writeGraph("rows", g), "rows", {"--set", kExact});
  NpyArray a = randomF32Array({5, 96}, 21, 1.0f), b = randomF32Array({19, 96}, 22, 1.0f),
           w = randomF32Array({96, 40}, 23, 1.0f);
  TpuKernelRun run = runProgram(dir, {{"a", a}, {"b", b}, {"w", w}}, tpuArchWith({kExact}));
  std::vector<double> cat = asDoubles(a), bv = asDoubles(b);
  cat.insert(cat.end(), bv.begin(), bv.end());
  expectClose(run.outputs.at("c"), cat, 0, 0, "cat(a, b)");
  expectClose(run.outputs.at("z"), matmul(cat, asDoubles(w), 24, 96, 40), 1e-5, 1e-4,
              "cat(a, b) @ w");
}

TEST(TpuCompileConcat, NestedAndFromMatmulsAlongTheLanes) {
  // y = cat(cat(x @ w1, x @ w2), x + 1) along the lanes, then y * 2: a concatenation that is
  // a part of another is written in place too; bf16 parts of 64 and 128 lanes.
  const char* g = R"(#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @nested(%x: tensor<40x64xbf16> {graph.name = "x"}, %w1: tensor<64x64xbf16> {graph.name = "w1"},
                  %w2: tensor<64x128xbf16> {graph.name = "w2"}) -> (tensor<40x256xf32> {graph.name = "y"}) {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<40x64xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<40x64xf32>) -> tensor<40x64xf32>
  %p1 = linalg.matmul ins(%x, %w1 : tensor<40x64xbf16>, tensor<64x64xbf16>) outs(%f1 : tensor<40x64xf32>) -> tensor<40x64xf32>
  %e2 = tensor.empty() : tensor<40x128xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<40x128xf32>) -> tensor<40x128xf32>
  %p2 = linalg.matmul ins(%x, %w2 : tensor<40x64xbf16>, tensor<64x128xbf16>) outs(%f2 : tensor<40x128xf32>) -> tensor<40x128xf32>
  %inner = tensor.concat dim(1) %p1, %p2 : (tensor<40x64xf32>, tensor<40x128xf32>) -> tensor<40x192xf32>
  %one = arith.constant 1.0 : f32
  %e3 = tensor.empty() : tensor<40x64xf32>
  %p3 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<40x64xbf16>) outs(%e3 : tensor<40x64xf32>) {
  ^bb0(%a: bf16, %o: f32):
    %w = arith.extf %a : bf16 to f32
    %s = arith.addf %w, %one : f32
    linalg.yield %s : f32
  } -> tensor<40x64xf32>
  %cat = tensor.concat dim(1) %inner, %p3 : (tensor<40x192xf32>, tensor<40x64xf32>) -> tensor<40x256xf32>
  %two = arith.constant 2.0 : f32
  %ey = tensor.empty() : tensor<40x256xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%cat : tensor<40x256xf32>) outs(%ey : tensor<40x256xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %two : f32
    linalg.yield %m : f32
  } -> tensor<40x256xf32>
  return %y : tensor<40x256xf32>
}
)";
  std::string dir = compileOrFail(writeGraph("nested", g), "nested");
  NpyArray x = randomF32Array({40, 64}, 31, 1.0f), w1 = randomF32Array({64, 64}, 32, 1.0f),
           w2 = randomF32Array({64, 128}, 33, 1.0f);
  TpuKernelRun run = runProgram(dir, {{"x", x}, {"w1", w1}, {"w2", w2}}, tpuArchWith({}));
  const std::vector<double> xv = bf16Values(x);
  std::vector<double> p3 = xv;
  for (double& v : p3) v += 1;
  std::vector<double> want = sideBySide(sideBySide(matmul(xv, bf16Values(w1), 40, 64, 64), 64,
                                                   matmul(xv, bf16Values(w2), 40, 64, 128), 128),
                                        192, p3, 64);
  for (double& v : want) v *= 2;
  expectClose(run.outputs.at("y"), want, 1e-5, 1e-4, "cat(cat(x @ w1, x @ w2), x + 1) * 2");
}

TEST(TpuCompileConcat, APartTheDmaCannotPlaceIsRefusedAtItsKernel) {
  // Rows of 3 f32 (12 bytes) are written as 32-byte DMA runs, over the next part.
  const char* g =
      R"(func.func @odd(%a: tensor<8x3xf32> {graph.name = "a"}, %b: tensor<8x5xf32> {graph.name = "b"})
    -> (tensor<8x8xf32> {graph.name = "c"}) {
  %c = tensor.concat dim(1) %a, %b : (tensor<8x3xf32>, tensor<8x5xf32>) -> tensor<8x8xf32>
  return %c : tensor<8x8xf32>
}
)";
  CompileResult c = tpuCompile(writeGraph("odd", g), "odd");
  EXPECT_EQ(c.status, 1);
  EXPECT_NE(c.log.find("odd.mlir:3:"), std::string::npos) << c.log;
  EXPECT_NE(c.log.find("rows of 12 bytes would be written as 32-byte DMA runs"), std::string::npos)
      << c.log;
}

TEST(TpuCompileConcat, ColumnsOfTheSameValueSideBySide) {
  // cat(x, x) of one argument: each part a copy of its own.
  const char* g =
      R"(func.func @twice(%x: tensor<6x32xf32> {graph.name = "x"}) -> (tensor<6x64xf32> {graph.name = "c"}) {
  %c = tensor.concat dim(1) %x, %x : (tensor<6x32xf32>, tensor<6x32xf32>) -> tensor<6x64xf32>
  return %c : tensor<6x64xf32>
}
)";
  std::string dir = compileOrFail(writeGraph("twice", g), "twice");
  NpyArray x = randomF32Array({6, 32}, 41, 1.0f);
  TpuKernelRun run = runProgram(dir, {{"x", x}}, tpuArchWith({}));
  const std::vector<double> xv = asDoubles(x);
  expectClose(run.outputs.at("c"), sideBySide(xv, 32, xv, 32), 0, 0, "cat(x, x)");
  EXPECT_EQ(columns(sideBySide(xv, 32, xv, 32), 6, 64, 32, 32), xv);
}

} // namespace
} // namespace chipless::test
