// The TPU compiler on per-row values that leave their kernel, and on kernels with many
// operands. A reduction's result lives one value per row (one per sublane) in the kernel that
// computes it; used by a matmul, a view or an op of another kernel it is made a contiguous
// vector first (broadcast along the row, column 0 transposed on the MXU), as a returned one is.
// A fused element-wise chain reading more tensors than the core's scalar registers can address
// at once is cut into kernels that fit. Each checked against fp64 (bf16x6: the MXU's moves are
// exact), down to a single row.
#include "tests/e2e/tpu_compile_harness.h"

#include <cmath>
#include <gtest/gtest.h>

namespace chipless::test {
namespace {

std::string f32(std::initializer_list<int64_t> shape) {
  std::string s = "tensor<";
  for (int64_t d : shape) s += std::to_string(d) + "x";
  return s + "f32>";
}

const char* kSumBody = "    (%a: f32, %b: f32) {\n"
                       "      %t = arith.addf %a, %b : f32\n"
                       "      linalg.yield %t : f32\n"
                       "    }\n";

/// `%name` = the sum of `in` (of type inType) over dimension `dim`, with its zero-filled init
/// `%f<name>` of empty `%e<name>` (uses the zero `%z`).
std::string sumOver(const std::string& name, const std::string& in, const std::string& inType,
                    const std::string& outType, int64_t dim) {
  return "  %e" + name + " = tensor.empty() : " + outType + "\n  %f" + name +
         " = linalg.fill ins(%z : f32) outs(%e" + name + " : " + outType + ") -> " + outType +
         "\n  %" + name + " = linalg.reduce ins(" + in + " : " + inType + ") outs(%f" + name +
         " : " + outType + ") dimensions = [" + std::to_string(dim) + "]\n" + kSumBody;
}

/// s = row sums of x [M, N]; y = [1, M] view of s times w [M, P]; t = the sum of s.
std::string meansGraph(int64_t m, int64_t n, int64_t p) {
  const std::string x = f32({m, n}), s = f32({m}), row = f32({1, m}), w = f32({m, p}),
                    y = f32({1, p}), t = f32({1}), ms = std::to_string(m);
  return "func.func @rows(%x: " + x + " {graph.name = \"x\"}, %w: " + w +
         " {graph.name = \"w\"}) -> (" + y + " {graph.name = \"y\"}, " + t +
         " {graph.name = \"t\"}) {\n"
         "  %z = arith.constant 0.0 : f32\n" +
         sumOver("s", "%x", x, s, 1) + "  %r = tensor.expand_shape %s [[0, 1]] output_shape [1, " +
         ms + "] : " + s + " into " + row + "\n  %ey = tensor.empty() : " + y +
         "\n  %fy = linalg.fill ins(%z : f32) outs(%ey : " + y + ") -> " + y +
         "\n  %y = linalg.matmul ins(%r, %w : " + row + ", " + w + ") outs(%fy : " + y + ") -> " +
         y + "\n" + sumOver("t", "%r", row, t, 1) + "  return %y, %t : " + y + ", " + t + "\n}\n";
}

const std::string kExact = "numerics.fp32_matmul_precision=bf16x6";

void checkMeans(int64_t m, int64_t n, int64_t p) {
  const std::string tag = "means_" + std::to_string(m) + "x" + std::to_string(n);
  std::string dir = compileOrFail(writeGraph(tag, meansGraph(m, n, p)), tag, {"--set", kExact});
  NpyArray x = randomF32Array({m, n}, 91, 2.0f), w = randomF32Array({m, p}, 92, 1.0f);
  TpuKernelRun run = runProgram(dir, {{"x", x}, {"w", w}}, tpuArchWith({kExact}));
  std::vector<double> xv = asDoubles(x), s(static_cast<size_t>(m), 0.0);
  double total = 0;
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) s[static_cast<size_t>(i)] += xv[static_cast<size_t>(i * n + j)];
    total += s[static_cast<size_t>(i)];
  }
  expectClose(run.outputs.at("y"), matmul(s, asDoubles(w), 1, m, p), 1e-5, 1e-3, tag + ": y");
  expectClose(run.outputs.at("t"), {total}, 1e-5, 1e-3, tag + ": t");
}

TEST(TpuCompileRowValues, RowSumsFeedAMatmulAndAnotherReduction) {
  checkMeans(100, 300, 70);
  checkMeans(1, 32, 16);
}

/// s = row sums of x [M, N], then a matmul starts a kernel, then an op on s alone.
TEST(TpuCompileRowValues, ARowSumIsReadByAnOpAfterAMatmul) {
  const int64_t m = 48, n = 200, p = 130;
  const std::string x = f32({m, n}), s = f32({m}), w = f32({n, p}), y = f32({m, p});
  const std::string g = "func.func @f(%x: " + x + " {graph.name = \"x\"}, %w: " + w +
                        " {graph.name = \"w\"}) -> (" + y + " {graph.name = \"y\"}, " + s +
                        " {graph.name = \"d\"}) {\n"
                        "  %z = arith.constant 0.0 : f32\n" +
                        sumOver("s", "%x", x, s, 1) + "  %ey = tensor.empty() : " + y +
                        "\n  %fy = linalg.fill ins(%z : f32) outs(%ey : " + y + ") -> " + y +
                        "\n  %y = linalg.matmul ins(%x, %w : " + x + ", " + w +
                        ") outs(%fy : " + y + ") -> " + y + "\n  %ed = tensor.empty() : " + s +
                        "\n  %d = linalg.add ins(%s, %s : " + s + ", " + s + ") outs(%ed : " + s +
                        ") -> " + s + "\n  return %y, %d : " + y + ", " + s + "\n}\n";
  std::string dir = compileOrFail(writeGraph("after_matmul", g), "after_matmul", {"--set", kExact});
  NpyArray xa = randomF32Array({m, n}, 93, 2.0f), wa = randomF32Array({n, p}, 94, 1.0f);
  TpuKernelRun run = runProgram(dir, {{"x", xa}, {"w", wa}}, tpuArchWith({kExact}));
  std::vector<double> xv = asDoubles(xa), d(static_cast<size_t>(m), 0.0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      d[static_cast<size_t>(i)] += 2 * xv[static_cast<size_t>(i * n + j)];
  expectClose(run.outputs.at("d"), d, 1e-5, 1e-3, "twice the row sums");
  expectClose(run.outputs.at("y"), matmul(xv, asDoubles(wa), m, n, p), 1e-5, 1e-3, "x @ w");
}

/// r = rsqrt(s * s + eps) of the row sums s: an op on per-row values (not a reduction itself)
/// returned.
TEST(TpuCompileRowValues, AnOpOnRowSumsIsReturned) {
  const int64_t m = 50, n = 300;
  const std::string x = f32({m, n}), s = f32({m});
  const std::string g =
      "func.func @f(%x: " + x + " {graph.name = \"x\"}) -> (" + s +
      " {graph.name = \"r\"}) {\n"
      "  %z = arith.constant 0.0 : f32\n" +
      sumOver("s", "%x", x, s, 1) +
      "  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, " +
      "affine_map<(d0) -> (d0)>], iterator_types = [\"parallel\"]} ins(%s : " + s +
      ") outs(%es : " + s +
      ") {\n"
      "  ^bb0(%a: f32, %o: f32):\n"
      "    %eps = arith.constant 1.0e-05 : f32\n"
      "    %t = arith.mulf %a, %a : f32\n"
      "    %u = arith.addf %t, %eps : f32\n"
      "    %q = math.rsqrt %u : f32\n"
      "    linalg.yield %q : f32\n"
      "  } -> " +
      s + "\n  return %r : " + s + "\n}\n";
  std::string dir = compileOrFail(writeGraph("rsqrt_rows", g), "rsqrt_rows", {"--set", kExact});
  NpyArray xa = randomF32Array({m, n}, 95, 1.0f);
  TpuKernelRun run = runProgram(dir, {{"x", xa}}, tpuArchWith({kExact}));
  std::vector<double> xv = asDoubles(xa), r;
  for (int64_t i = 0; i < m; ++i) {
    double sum = 0;
    for (int64_t j = 0; j < n; ++j) sum += xv[static_cast<size_t>(i * n + j)];
    r.push_back(1.0 / std::sqrt(sum * sum + 1e-5));
  }
  // s is an fp32 sum of 300 terms: near 0 its relative error grows, and r with it
  expectClose(run.outputs.at("r"), r, 1e-4, 0, "rsqrt of the squared row sums");
}

/// The layer-norm pattern: the row means m of x [M, N] are returned and also read by their own
/// kernel (c = x - m, y = c * c): m stays a per-row value there and a vector for the return.
TEST(TpuCompileRowValues, ARowMeanIsReturnedAndUsedInItsKernel) {
  const int64_t m = 40, n = 130;
  const std::string x = f32({m, n}), s = f32({m});
  const std::string g =
      "func.func @f(%x: " + x + " {graph.name = \"x\"}) -> (" + x + " {graph.name = \"y\"}, " + s +
      " {graph.name = \"mean\"}) {\n"
      "  %z = arith.constant 0.0 : f32\n" +
      sumOver("s", "%x", x, s, 1) +
      "  %mean = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, "
      "affine_map<(d0) -> (d0)>], iterator_types = [\"parallel\"]} ins(%s : " +
      s + ") outs(%es : " + s +
      ") {\n"
      "  ^bb0(%a: f32, %o: f32):\n"
      "    %k = arith.constant " +
      std::to_string(1.0 / static_cast<double>(n)) +
      " : f32\n"
      "    %q = arith.mulf %a, %k : f32\n"
      "    linalg.yield %q : f32\n"
      "  } -> " +
      s + "\n  %ex = tensor.empty() : " + x +
      "\n  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
      "affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = "
      "[\"parallel\", \"parallel\"]} ins(%x, %mean : " +
      x + ", " + s + ") outs(%ex : " + x +
      ") {\n"
      "  ^bb0(%a: f32, %b: f32, %o: f32):\n"
      "    %c = arith.subf %a, %b : f32\n"
      "    %q = arith.mulf %c, %c : f32\n"
      "    linalg.yield %q : f32\n"
      "  } -> " +
      x + "\n  return %y, %mean : " + x + ", " + s + "\n}\n";
  std::string dir = compileOrFail(writeGraph("mean_kept", g), "mean_kept", {"--set", kExact});
  NpyArray xa = randomF32Array({m, n}, 96, 1.0f);
  TpuKernelRun run = runProgram(dir, {{"x", xa}}, tpuArchWith({kExact}));
  std::vector<double> xv = asDoubles(xa), mean, y;
  for (int64_t i = 0; i < m; ++i) {
    double sum = 0;
    for (int64_t j = 0; j < n; ++j) sum += xv[static_cast<size_t>(i * n + j)];
    mean.push_back(sum / static_cast<double>(n));
    for (int64_t j = 0; j < n; ++j) {
      const double c = xv[static_cast<size_t>(i * n + j)] - mean.back();
      y.push_back(c * c);
    }
  }
  expectClose(run.outputs.at("mean"), mean, 1e-4, 1e-6, "row means");
  expectClose(run.outputs.at("y"), y, 1e-4, 1e-4, "squared distances to the means");
}

/// Reductions chained over the trailing dimensions of a rank-4 tensor: r1 = x [2, 8, 8, 16]
/// summed over its last (a rank-3 per-row value, returned), r2 = r1 summed over its last, then
/// seen through a reshape ([2, 8] -> [1, 16]) and summed to one value.
TEST(TpuCompileRowValues, ReductionsChainOverTheTrailingDimensionsOfARank4Tensor) {
  const std::string x = f32({2, 8, 8, 16}), r1 = f32({2, 8, 8}), r2 = f32({2, 8}), flat = f32({16}),
                    row = f32({1, 16}), r3 = f32({1});
  const std::string g =
      "func.func @f(%x: " + x + " {graph.name = \"x\"}) -> (" + r1 + " {graph.name = \"r1\"}, " +
      r3 + " {graph.name = \"r3\"}) {\n  %z = arith.constant 0.0 : f32\n" +
      sumOver("r1", "%x", x, r1, 3) + sumOver("r2", "%r1", r1, r2, 2) +
      "  %flat = tensor.collapse_shape %r2 [[0, 1]] : " + r2 + " into " + flat +
      "\n  %row = tensor.expand_shape %flat [[0, 1]] output_shape [1, 16] : " + flat + " into " +
      row + "\n" + sumOver("r3", "%row", row, r3, 1) + "  return %r1, %r3 : " + r1 + ", " + r3 +
      "\n}\n";
  std::string dir = compileOrFail(writeGraph("rank4_sums", g), "rank4_sums", {"--set", kExact});
  NpyArray xa = randomF32Array({2, 8, 8, 16}, 97, 1.0f);
  TpuKernelRun run = runProgram(dir, {{"x", xa}}, tpuArchWith({kExact}));
  std::vector<double> xv = asDoubles(xa), sums(128, 0.0);
  double total = 0;
  for (size_t k = 0; k < xv.size(); ++k) {
    sums[k / 16] += xv[k];
    total += xv[k];
  }
  expectClose(run.outputs.at("r1"), sums, 1e-5, 1e-5, "sums over the last dimension");
  expectClose(run.outputs.at("r3"), {total}, 1e-5, 1e-4, "the sum of everything");
}

/// out = a0 + a1 + ... + a19 (and the partial sum after a9): one fused chain reading twenty
/// tensors needs more scalar registers than the core has, so it runs as several kernels.
TEST(TpuCompileRowValues, AChainOfTwentyOperandsIsCutIntoKernelsThatFit) {
  const int64_t m = 64, n = 256, count = 20;
  const std::string t = f32({m, n});
  std::string args, body = "  %e = tensor.empty() : " + t + "\n", prev = "%a0";
  for (int64_t i = 0; i < count; ++i)
    args += std::string(i ? ", " : "") + "%a" + std::to_string(i) + ": " + t +
            " {graph.name = \"a" + std::to_string(i) + "\"}";
  for (int64_t i = 1; i < count; ++i) {
    const std::string cur = "%p" + std::to_string(i);
    body += "  " + cur + " = linalg.add ins(" + prev + ", %a" + std::to_string(i) + " : " + t +
            ", " + t + ") outs(%e : " + t + ") -> " + t + "\n";
    prev = cur;
  }
  const std::string g = "func.func @chain(" + args + ") -> (" + t + " {graph.name = \"out\"}, " +
                        t + " {graph.name = \"half\"}) {\n" + body + "  return " + prev +
                        ", %p9 : " + t + ", " + t + "\n}\n";
  std::string dir = compileOrFail(writeGraph("chain", g), "chain");
  std::map<std::string, NpyArray> inputs;
  std::vector<float> sum(static_cast<size_t>(m * n), 0.0f), half;
  for (int64_t i = 0; i < count; ++i) {
    NpyArray a = randomF32Array({m, n}, 100 + static_cast<uint64_t>(i), 1.0f);
    std::vector<double> av = asDoubles(a);
    // The VPU adds in fp32 in the graph's order: the reference does the same.
    for (size_t k = 0; k < sum.size(); ++k) sum[k] += static_cast<float>(av[k]);
    if (i == 9) half = sum;
    inputs["a" + std::to_string(i)] = a;
  }
  TpuKernelRun run = runProgram(dir, inputs, tpuArchWith());
  expectClose(run.outputs.at("out"), std::vector<double>(sum.begin(), sum.end()), 0, 0, "out");
  expectClose(run.outputs.at("half"), std::vector<double>(half.begin(), half.end()), 0, 0,
              "partial sum");
}

} // namespace
} // namespace chipless::test
