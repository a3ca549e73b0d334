// The TPU compiler on attention: a single head (models/graphs/attention.mlir: Q K^T with K^T
// read in place by transposed-weight folds, the scale and softmax fused after the first
// matmul) and four heads (models/graphs/mha.mlir: projections, heads as views read with
// strides by batched matmuls, the concatenated heads written straight into the layout of the
// output projection), compared with fp64 references that round what the graphs round.
#include "tests/e2e/tpu_compile_harness.h"

#include <cmath>
#include <gtest/gtest.h>

namespace chipless::test {
namespace {

/// Columns [c0, c0+w) of a row-major [rows, cols] matrix.
std::vector<double> columns(const std::vector<double>& a, int64_t rows, int64_t cols, int64_t c0,
                            int64_t w) {
  std::vector<double> r;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < w; ++j) r.push_back(a[i * cols + c0 + j]);
  return r;
}

std::vector<double> scaledBy(std::vector<double> v, double s) {
  for (double& x : v) x *= s;
  return v;
}

TEST(TpuCompileAttention, SingleHead) {
  const int64_t s = 100, d = 64;
  std::string dir = compileOrFail(graphFile("attention"), "attention");
  NpyArray q = randomF32Array({s, d}, 71), k = randomF32Array({s, d}, 72),
           v = randomF32Array({s, d}, 73);
  TpuKernelRun run = runProgram(dir, {{"Q", q}, {"K", k}, {"V", v}}, tpuArchWith());
  std::vector<double> p = roundBf16(
      softmaxRows(scaledBy(matmul(bf16Values(q), bf16Values(k), s, d, s, true), 0.125), s));
  expectClose(run.outputs.at("O"), matmul(p, bf16Values(v), s, s, d), 2e-3, 2e-3, "attention");
  std::string program = readFile(compileWorkDir() + "/attention-dump/program.s");
  EXPECT_NE(program.find("mxu.matmul.nt.bf16"), std::string::npos) << "K^T is read in place";
}

void checkMha(const TpuArch& arch, const std::vector<std::string>& flags, const std::string& tag) {
  const int64_t s = 100, e = 256, h = 4, d = 64;
  std::string dir = compileOrFail(graphFile("mha"), tag, flags);
  NpyArray x = randomF32Array({s, e}, 81);
  std::map<std::string, NpyArray> in = {{"x", x}};
  std::vector<std::vector<double>> w;
  const char* names[] = {"Wq", "Wk", "Wv", "Wo"};
  for (int i = 0; i < 4; ++i) {
    NpyArray wi = randomF32Array({e, e}, 82 + i, 1.0f / 16);
    in[names[i]] = wi;
    w.push_back(bf16Values(wi));
  }
  TpuKernelRun run = runProgram(dir, in, arch);
  std::vector<double> xv = bf16Values(x);
  std::vector<double> q = roundBf16(matmul(xv, w[0], s, e, e)),
                      k = roundBf16(matmul(xv, w[1], s, e, e)),
                      v = roundBf16(matmul(xv, w[2], s, e, e)), concat(static_cast<size_t>(s * e));
  for (int64_t hi = 0; hi < h; ++hi) {
    std::vector<double> qh = columns(q, s, e, hi * d, d), kh = columns(k, s, e, hi * d, d),
                        vh = columns(v, s, e, hi * d, d);
    std::vector<double> p =
        roundBf16(softmaxRows(scaledBy(matmul(qh, kh, s, d, s, true), 0.125), s));
    std::vector<double> o = roundBf16(matmul(p, vh, s, s, d));
    for (int64_t i = 0; i < s; ++i)
      for (int64_t j = 0; j < d; ++j) concat[i * e + hi * d + j] = o[i * d + j];
  }
  // Several bf16 roundings on the way: values at a rounding boundary may round the other way.
  expectClose(run.outputs.at("out"), matmul(concat, w[3], s, e, e), 5e-3, 5e-3, "mha " + tag);
}

TEST(TpuCompileAttention, MultiHead) {
  checkMha(tpuArchWith(), {}, "mha");
}

TEST(TpuCompileAttention, MultiHeadOnTwoTensorCores) {
  checkMha(tpuArchWith({}, "v4"), {"--arch", "v4"}, "mha_v4");
}

} // namespace
} // namespace chipless::test
