// The TPU compiler on materialised transposes: a linalg.transpose that moves the innermost
// dimension and is read other than as a matmul's RHS (x^T @ W, x^T + y, a returned x^T) is
// computed on the MXU as the transposed-weight fold of an identity generated on the VPU, its
// infinities and NaN carried apart. Awkward shapes (not multiples of 8 or 128), bf16 and f32,
// non-finite values, a batched transpose, and the transposes that stay refused.
#include "tests/e2e/tpu_compile_harness.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <gtest/gtest.h>

namespace chipless::test {
namespace {

/// [rows, cols] row-major -> [cols, rows].
std::vector<double> transposed(const std::vector<double>& x, int64_t rows, int64_t cols) {
  std::vector<double> t(x.size());
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      t[static_cast<size_t>(j * rows + i)] = x[static_cast<size_t>(i * cols + j)];
  return t;
}

/// z = x^T @ W, s = x^T + y, t = x^T for x [r, c] of element type `et` (y and the results f32).
std::string graph(int64_t r, int64_t c, int64_t n, const std::string& et) {
  const std::string x = "tensor<" + std::to_string(r) + "x" + std::to_string(c) + "x" + et + ">",
                    w = "tensor<" + std::to_string(r) + "x" + std::to_string(n) + "x" + et + ">",
                    xt = "tensor<" + std::to_string(c) + "x" + std::to_string(r) + "x" + et + ">",
                    y = "tensor<" + std::to_string(c) + "x" + std::to_string(r) + "xf32>",
                    z = "tensor<" + std::to_string(c) + "x" + std::to_string(n) + "xf32>";
  return "#m = affine_map<(d0, d1) -> (d0, d1)>\n"
         "func.func @tp(%x: " +
         x + " {graph.name = \"x\"}, %w: " + w +
         " {graph.name = \"W\"},\n"
         "    %y: " +
         y +
         " {graph.name = \"y\"})\n"
         "    -> (" +
         z + " {graph.name = \"z\"}, " + y + " {graph.name = \"s\"}, " + xt +
         " {graph.name = \"t\"}) {\n"
         "  %zero = arith.constant 0.0 : f32\n"
         "  %et = tensor.empty() : " +
         xt +
         "\n"
         "  %xt = linalg.transpose ins(%x : " +
         x + ") outs(%et : " + xt +
         ") permutation = [1, 0]\n"
         "  %e = tensor.empty() : " +
         z +
         "\n"
         "  %f = linalg.fill ins(%zero : f32) outs(%e : " +
         z + ") -> " + z +
         "\n"
         "  %z = linalg.matmul ins(%xt, %w : " +
         xt + ", " + w + ") outs(%f : " + z + ") -> " + z +
         "\n"
         "  %es = tensor.empty() : " +
         y +
         "\n"
         "  %s = linalg.generic {indexing_maps = [#m, #m, #m], iterator_types = [\"parallel\", "
         "\"parallel\"]}\n"
         "      ins(%xt, %y : " +
         xt + ", " + y + ") outs(%es : " + y +
         ") {\n"
         "    ^bb0(%a: " +
         et + ", %b: f32, %o: f32):\n" +
         (et == "f32" ? "      %s = arith.addf %a, %b : f32\n"
                      : "      %af = arith.extf %a : bf16 to f32\n"
                        "      %s = arith.addf %af, %b : f32\n") +
         "      linalg.yield %s : f32\n"
         "  } -> " +
         y +
         "\n"
         "  return %z, %s, %xt : " +
         z + ", " + y + ", " + xt +
         "\n"
         "}\n";
}

/// Compiles and runs the graph for x [r, c], W [r, n]; checks the three results against fp64
/// (the matmul with relative tolerance `rtol`, the transposes with `ttol`); the transpose
/// takes `identityFolds` products of the identity [c, c] with the view (its finite part, or
/// each of its pieces, and the codes of its non-finite elements).
void check(int64_t r, int64_t c, int64_t n, const std::string& et, const TpuArch& arch,
           const std::vector<std::string>& flags, double rtol, double ttol, int identityFolds = 2) {
  const std::string tag = "tp_" + et + "_" + std::to_string(r) + "x" + std::to_string(c);
  std::string dir = compileOrFail(writeGraph(tag, graph(r, c, n, et)), tag, flags);
  NpyArray x = randomF32Array({r, c}, 71, 2.0f), w = randomF32Array({r, n}, 72),
           y = randomF32Array({c, r}, 73);
  TpuKernelRun run = runProgram(dir, {{"x", x}, {"W", w}, {"y", y}}, arch);
  const bool bf = et == "bf16";
  std::vector<double> xv = bf ? bf16Values(x) : asDoubles(x),
                      wv = bf ? bf16Values(w) : asDoubles(w), yv = asDoubles(y);
  std::vector<double> xt = transposed(xv, r, c), s(xt.size());
  for (size_t i = 0; i < s.size(); ++i) s[i] = xt[i] + yv[i];
  expectClose(run.outputs.at("t"), xt, ttol, 0, tag + ": x^T");
  // |x| < 8: the transposed element's error bounds the sum's.
  expectClose(run.outputs.at("s"), s, 1e-6, std::max(1e-6, 8 * ttol), tag + ": x^T + y");
  expectClose(run.outputs.at("z"), matmul(xt, wv, c, r, n), rtol, rtol, tag + ": x^T @ W");
  // The transpose is real work on the MXU: the identity [c, c] times the view [c, r] (once
  // per piece, and once for the codes), besides the [c, r] x [r, n] matmul.
  EXPECT_EQ(run.stats.get("mxu_flops"), 2.0 * c * r * n + identityFolds * 2.0 * c * c * r) << tag;
}

TEST(TpuCompileTranspose, Bf16TransposeIsExact) {
  check(100, 70, 50, "bf16", tpuArchWith(), {}, 1e-5, 0);
  check(300, 136, 130, "bf16", tpuArchWith({}, "v4"), {"--arch", "v4"}, 1e-5, 0);
}

TEST(TpuCompileTranspose, F32TransposeIsExactUnderEveryPrecision) {
  // bf16x6: one f32 fold keeps every product of the pieces, so it is exact.
  check(100, 70, 50, "f32", tpuArchWith({"numerics.fp32_matmul_precision=bf16x6"}),
        {"--set", "numerics.fp32_matmul_precision=bf16x6"}, 1e-5, 0);
  // bf16x3 (the default) and bf16: the source split into three bf16 pieces on the VPU, each
  // moved by a bf16 fold: exact all the same (an f32 fold would keep about 16 and 8 bits).
  check(77, 200, 20, "f32", tpuArchWith(), {}, 1e-3, 0, 4);
  // (bf16: the matmul x^T @ W itself multiplies bf16-rounded operands.)
  check(40, 136, 8, "f32", tpuArchWith({"numerics.fp32_matmul_precision=bf16"}),
        {"--set", "numerics.fp32_matmul_precision=bf16"}, 0.25, 0, 4);
}

TEST(TpuCompileTranspose, F32TransposeOfExtremeValuesIsExact) {
  // Values across the whole f32 range survive the split: tiny, huge, negative zero, ones with
  // all 24 bits set, and those outside the range it keeps exact, [2^-110, 2^111), which are
  // moved scaled (the largest float, a log_softmax's -3e38, subnormals down to the least).
  const std::string g = R"(func.func @ext(%x: tensor<24x40xf32> {graph.name = "x"})
    -> (tensor<40x24xf32> {graph.name = "t"}) {
  %e = tensor.empty() : tensor<40x24xf32>
  %t = linalg.transpose ins(%x : tensor<24x40xf32>) outs(%e : tensor<40x24xf32>) permutation = [1, 0]
  return %t : tensor<40x24xf32>
})";
  std::string dir = compileOrFail(writeGraph("ext", g), "ext");
  NpyArray x = randomF32Array({24, 40}, 75);
  const float special[] = {1e-30f,          -3e30f,    -0.0f,         16777215.0f,
                           1.0f + 0x1p-23f, 1e-33f,    2e33f,         -3e38f,
                           3.4028235e38f,   0x1p111f,  0x1p-111f,     -0x1.fffffep-111f,
                           1e-40f,          0x1p-149f, -0x1.234p-130f};
  const size_t specials = sizeof special / sizeof special[0];
  for (size_t i = 0; i < x.elements(); ++i) {
    float v;
    std::memcpy(&v, x.data.data() + 4 * i, 4);
    v = i % 3 == 0 ? special[(i / 3) % specials]
                   : v * std::ldexp(1.0f, static_cast<int>(i % 61) - 30);
    std::memcpy(x.data.data() + 4 * i, &v, 4);
  }
  TpuKernelRun run = runProgram(dir, {{"x", x}}, tpuArchWith());
  expectClose(run.outputs.at("t"), transposed(asDoubles(x), 24, 40), 0, 0, "x^T");
}

/// x [rows, cols] of `et` with +inf, -inf and NaN scattered over it (every seventh element,
/// and all of every fifth row), transposed by tpu-compile's program under `flags`: every element
/// arrives, the non-finite ones as they were and the finite ones exactly.
void checkNonFinite(int64_t rows, int64_t cols, const std::string& et, const TpuArch& arch,
                    const std::vector<std::string>& flags) {
  const std::string x = "tensor<" + std::to_string(rows) + "x" + std::to_string(cols) + "x" + et +
                        ">",
                    t = "tensor<" + std::to_string(cols) + "x" + std::to_string(rows) + "x" + et +
                        ">";
  const std::string g = "func.func @nf(%x: " + x + " {graph.name = \"x\"}) -> (" + t +
                        " {graph.name = \"t\"}) {\n  %e = tensor.empty() : " + t +
                        "\n  %t = linalg.transpose ins(%x : " + x + ") outs(%e : " + t +
                        ") permutation = [1, 0]\n  return %t : " + t + "\n}\n";
  const std::string tag = "nf_" + et + "_" + std::to_string(flags.size());
  std::string dir = compileOrFail(writeGraph(tag, g), tag, flags);
  NpyArray in = randomF32Array({rows, cols}, 77, 3.0f);
  const float special[] = {INFINITY, -INFINITY, NAN};
  for (size_t i = 0; i < in.elements(); ++i)
    if (i % 7 == 3 || (i / static_cast<size_t>(cols)) % 5 == 1) {
      float v = special[(i / 7) % 3];
      std::memcpy(in.data.data() + 4 * i, &v, 4);
    }
  TpuKernelRun run = runProgram(dir, {{"x", in}}, arch);
  std::vector<double> ref = transposed(et == "bf16" ? bf16Values(in) : asDoubles(in), rows, cols);
  const std::vector<double> got = asDoubles(run.outputs.at("t"));
  ASSERT_EQ(got.size(), ref.size()) << tag;
  for (size_t i = 0; i < ref.size(); ++i) {
    if (std::isnan(ref[i]))
      ASSERT_TRUE(std::isnan(got[i])) << tag << ": element " << i << " is " << got[i];
    else
      ASSERT_EQ(got[i], ref[i]) << tag << ": element " << i;
  }
}

TEST(TpuCompileTranspose, InfinitiesAndNanArriveAsTheyWere) {
  // A product with the identity would make inf x 0 = NaN in every element of a column that
  // holds one; the masks of attention (-inf) and overflowed values need them moved.
  checkNonFinite(40, 136, "bf16", tpuArchWith(), {});
  checkNonFinite(33, 20, "f32", tpuArchWith(), {}); // three bf16 pieces
  checkNonFinite(33, 20, "f32", tpuArchWith({"numerics.fp32_matmul_precision=bf16x6"}),
                 {"--set", "numerics.fp32_matmul_precision=bf16x6"}); // one f32 fold
}

TEST(TpuCompileTranspose, RowsBecomeColumns) {
  // [B, 1, K] to [B, K, 1] (a log_softmax along the middle of [2, 3, 1]) and [1, K] to
  // [K, 1]: the product's one column of K is read as the row it is, not as K rows of one
  // element (runs of 4 bytes, below the DMA's alignment).
  for (const std::string et : {"f32", "bf16"}) {
    const std::string g =
        "func.func @rc(%x: tensor<3x1x40x" + et + "> {graph.name = \"x\"}, " + "%y: tensor<1x70x" +
        et + "> {graph.name = \"y\"})\n" + "    -> (tensor<3x40x1x" + et +
        "> {graph.name = \"t\"}, tensor<70x1x" + et + "> {graph.name = \"u\"}) {\n" +
        "  %e = tensor.empty() : tensor<3x40x1x" + et + ">\n" +
        "  %t = linalg.transpose ins(%x : tensor<3x1x40x" + et + ">) outs(%e : tensor<3x40x1x" +
        et + ">) permutation = [0, 2, 1]\n" + "  %f = tensor.empty() : tensor<70x1x" + et + ">\n" +
        "  %u = linalg.transpose ins(%y : tensor<1x70x" + et + ">) outs(%f : tensor<70x1x" + et +
        ">) permutation = [1, 0]\n" + "  return %t, %u : tensor<3x40x1x" + et + ">, tensor<70x1x" +
        et + ">\n}\n";
    std::string dir = compileOrFail(writeGraph("rc_" + et, g), "rc_" + et);
    NpyArray x = randomF32Array({3, 1, 40}, 78), y = randomF32Array({1, 70}, 79);
    TpuKernelRun run = runProgram(dir, {{"x", x}, {"y", y}}, tpuArchWith());
    const bool bf = et == "bf16";
    // The elements keep their order: [B, 1, K] and [B, K, 1] hold them alike.
    expectClose(run.outputs.at("t"), bf ? bf16Values(x) : asDoubles(x), 0, 0, "t, " + et);
    expectClose(run.outputs.at("u"), bf ? bf16Values(y) : asDoubles(y), 0, 0, "u, " + et);
  }
}

TEST(TpuCompileTranspose, SumsOverDimensionsOfOneEndInOneValue) {
  // A loss over [N, C, 1, 1] (chipless.torch's nll_loss2d of a [2, 3, 1] input) sums its
  // per-row values over the dimensions of one that are left, each reduction a transpose on
  // the MXU whose 1 x 1 identity, a value of shape [2, 1, 1], was taken for a per-row value
  // of the kernel beside it: kernel formation remade it for ever (tpu-compile hung).
  const std::string sum = "(%in: f32, %acc: f32) {\n"
                          "      %r = arith.addf %in, %acc : f32\n"
                          "      linalg.yield %r : f32\n    }\n";
  const std::string g =
      R"(func.func @sums(%x: tensor<2x1x1x3xf32> {graph.name = "x"})
    -> (tensor<1xf32> {graph.name = "s"}) {
  %c = arith.constant 0.0 : f32
  %e3 = tensor.empty() : tensor<2x1x1xf32>
  %z3 = linalg.fill ins(%c : f32) outs(%e3 : tensor<2x1x1xf32>) -> tensor<2x1x1xf32>
  %r3 = linalg.reduce ins(%x : tensor<2x1x1x3xf32>) outs(%z3 : tensor<2x1x1xf32>) dimensions = [3]
    )" +
      sum + R"(  %e2 = tensor.empty() : tensor<2x1xf32>
  %z2 = linalg.fill ins(%c : f32) outs(%e2 : tensor<2x1xf32>) -> tensor<2x1xf32>
  %r2 = linalg.reduce ins(%r3 : tensor<2x1x1xf32>) outs(%z2 : tensor<2x1xf32>) dimensions = [2]
    )" +
      sum + R"(  %e1 = tensor.empty() : tensor<2xf32>
  %z1 = linalg.fill ins(%c : f32) outs(%e1 : tensor<2xf32>) -> tensor<2xf32>
  %r1 = linalg.reduce ins(%r2 : tensor<2x1xf32>) outs(%z1 : tensor<2xf32>) dimensions = [1]
    )" +
      sum +
      R"(  %row = tensor.expand_shape %r1 [[0, 1]] output_shape [1, 2] : tensor<2xf32> into tensor<1x2xf32>
  %e0 = tensor.empty() : tensor<1xf32>
  %z0 = linalg.fill ins(%c : f32) outs(%e0 : tensor<1xf32>) -> tensor<1xf32>
  %s = linalg.reduce ins(%row : tensor<1x2xf32>) outs(%z0 : tensor<1xf32>) dimensions = [1]
    )" +
      sum + R"(  return %s : tensor<1xf32>
})";
  std::string dir = compileOrFail(writeGraph("sums", g), "sums");
  NpyArray x = randomF32Array({2, 1, 1, 3}, 81);
  TpuKernelRun run = runProgram(dir, {{"x", x}}, tpuArchWith());
  double total = 0;
  for (double v : asDoubles(x)) total += v;
  expectClose(run.outputs.at("s"), {total}, 1e-6, 1e-6, "the sum");
}

TEST(TpuCompileTranspose, BatchedTransposeReturned) {
  const std::string g = R"(func.func @bt(%x: tensor<3x40x136xbf16> {graph.name = "x"})
    -> (tensor<3x136x40xbf16> {graph.name = "t"}) {
  %e = tensor.empty() : tensor<3x136x40xbf16>
  %t = linalg.transpose ins(%x : tensor<3x40x136xbf16>) outs(%e : tensor<3x136x40xbf16>) permutation = [0, 2, 1]
  return %t : tensor<3x136x40xbf16>
})";
  std::string dir = compileOrFail(writeGraph("bt", g), "bt");
  NpyArray x = randomF32Array({3, 40, 136}, 74);
  TpuKernelRun run = runProgram(dir, {{"x", x}}, tpuArchWith());
  std::vector<double> xv = bf16Values(x), ref(xv.size());
  for (int64_t b = 0; b < 3; ++b)
    for (int64_t i = 0; i < 40; ++i)
      for (int64_t j = 0; j < 136; ++j)
        ref[static_cast<size_t>((b * 136 + j) * 40 + i)] =
            xv[static_cast<size_t>((b * 40 + i) * 136 + j)];
  expectClose(run.outputs.at("t"), ref, 0, 0, "batched transpose");
}

TEST(TpuCompileTranspose, TransposesThatStayRefused) {
  auto expectError = [](const std::string& text, const std::string& needle) {
    CompileResult r = tpuCompile(writeGraph("bad_tp", text), "bad_tp");
    EXPECT_EQ(r.status, 1) << r.log;
    EXPECT_NE(r.log.find(needle), std::string::npos) << "expected '" << needle << "' in:\n"
                                                     << r.log;
  };
  // Integer elements: the MXU transposes bf16 and f32 only.
  expectError(R"(func.func @f(%x: tensor<8x16xi32>) -> tensor<16x8xi32> {
  %e = tensor.empty() : tensor<16x8xi32>
  %t = linalg.transpose ins(%x : tensor<8x16xi32>) outs(%e : tensor<16x8xi32>) permutation = [1, 0]
  return %t : tensor<16x8xi32>
})",
              "bad_tp.mlir:3:8: error: a transpose that moves the innermost dimension is read in "
              "place only as a matmul's RHS; materialising it (on the MXU) needs bf16 or f32");
  // Rank 3 with the batch dimension moved.
  expectError(R"(func.func @f(%x: tensor<2x8x16xf32>) -> tensor<16x2x8xf32> {
  %e = tensor.empty() : tensor<16x2x8xf32>
  %t = linalg.transpose ins(%x : tensor<2x8x16xf32>) outs(%e : tensor<16x2x8xf32>) permutation = [2, 0, 1]
  return %t : tensor<16x2x8xf32>
})",
              "bad_tp.mlir:3:8: error: a transpose that moves the innermost dimension is read in "
              "place only as a matmul's RHS; other readers need it materialised, which is "
              "supported when it swaps the last two dimensions only (the others are batch "
              "dimensions)");
}

TEST(TpuCompileTranspose, Bf16ArgumentMergedThenTransposed) {
  // A bf16 argument [1, 16, 16, 16] (rows of 32 bytes, padded to the lanes) merged to
  // [1, 16, 256] and transposed: the copy that merges it is written merged (tpu-alloc-hbm
  // stops the write-through chain before the transpose, which the MXU reads in place).
  const std::string g = R"(func.func @mt(%x: tensor<1x16x16x16xbf16> {graph.name = "x"})
    -> (tensor<1x256x16xbf16> {graph.name = "t"}) {
  %m = tensor.collapse_shape %x [[0], [1], [2, 3]] : tensor<1x16x16x16xbf16> into tensor<1x16x256xbf16>
  %e = tensor.empty() : tensor<1x256x16xbf16>
  %t = linalg.transpose ins(%m : tensor<1x16x256xbf16>) outs(%e : tensor<1x256x16xbf16>) permutation = [0, 2, 1]
  return %t : tensor<1x256x16xbf16>
})";
  std::string dir = compileOrFail(writeGraph("mt", g), "mt");
  NpyArray x = randomF32Array({1, 16, 16, 16}, 76);
  TpuKernelRun run = runProgram(dir, {{"x", x}}, tpuArchWith());
  std::vector<double> xv = bf16Values(x), ref(xv.size());
  for (int64_t i = 0; i < 16; ++i)
    for (int64_t j = 0; j < 256; ++j)
      ref[static_cast<size_t>(j * 16 + i)] = xv[static_cast<size_t>(i * 256 + j)];
  expectClose(run.outputs.at("t"), ref, 0, 0, "merged, then transposed");
}

TEST(TpuCompileTranspose, ImagesChangeLayoutWithTwoBatchDimensions) {
  // NCHW [2, 16, 7, 7] to NHWC and back, as PyTorch's convolutions and poolings need on the
  // TPU: rows of 7 f32 are not whole DMA runs, so H and W cannot merge; instead the image is
  // viewed as [N, H, C, W] (leading dimensions permuted, a view) and its last two dimensions
  // swapped on the MXU (a contraction with batch [N, H] and one identity for all of them).
  const std::string g = R"(func.func @nhwc(%x: tensor<2x16x7x7xf32> {graph.name = "x"})
    -> (tensor<2x7x7x16xf32> {graph.name = "nhwc"}, tensor<2x16x7x7xf32> {graph.name = "back"}) {
  %e0 = tensor.empty() : tensor<2x7x16x7xf32>
  %v = linalg.transpose ins(%x : tensor<2x16x7x7xf32>) outs(%e0 : tensor<2x7x16x7xf32>) permutation = [0, 2, 1, 3]
  %e1 = tensor.empty() : tensor<2x7x7x16xf32>
  %y = linalg.transpose ins(%v : tensor<2x7x16x7xf32>) outs(%e1 : tensor<2x7x7x16xf32>) permutation = [0, 1, 3, 2]
  %e2 = tensor.empty() : tensor<2x7x16x7xf32>
  %w = linalg.transpose ins(%y : tensor<2x7x7x16xf32>) outs(%e2 : tensor<2x7x16x7xf32>) permutation = [0, 1, 3, 2]
  %e3 = tensor.empty() : tensor<2x16x7x7xf32>
  %z = linalg.transpose ins(%w : tensor<2x7x16x7xf32>) outs(%e3 : tensor<2x16x7x7xf32>) permutation = [0, 2, 1, 3]
  return %y, %z : tensor<2x7x7x16xf32>, tensor<2x16x7x7xf32>
})";
  CompileResult c = tpuCompile(writeGraph("nhwc", g), "nhwc");
  ASSERT_EQ(c.status, 0) << c.log;
  NpyArray x = randomF32Array({2, 16, 7, 7}, 75);
  TpuKernelRun run = runProgram(c.dir, {{"x", x}}, tpuArchWith());
  std::vector<double> xv = asDoubles(x), nhwc(xv.size());
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t ch = 0; ch < 16; ++ch)
      for (int64_t i = 0; i < 7; ++i)
        for (int64_t j = 0; j < 7; ++j)
          nhwc[static_cast<size_t>(((n * 7 + i) * 7 + j) * 16 + ch)] =
              xv[static_cast<size_t>(((n * 16 + ch) * 7 + i) * 7 + j)];
  expectClose(run.outputs.at("nhwc"), nhwc, 0, 0, "NCHW to NHWC");
  expectClose(run.outputs.at("back"), xv, 0, 0, "and back");
}

} // namespace
} // namespace chipless::test
