// The TPU compiler on a two-layer MLP (models/graphs/mlp_gelu.mlir, mlp_gelu_erf.mlir): bias
// adds and the GELU (tanh form, and the exact erf form evaluated as a polynomial on the VPU)
// fused after the matmuls, the hidden layer kept in bf16. Compared with an fp64 reference that
// rounds what the graph rounds (bf16 operands and hidden activations).
#include "tests/e2e/tpu_compile_harness.h"

#include <cmath>
#include <gtest/gtest.h>

namespace chipless::test {
namespace {

double geluTanh(double v) {
  return 0.5 * v * (1 + std::tanh(0.7978845608 * (v + 0.044715 * v * v * v)));
}
double geluErf(double v) {
  return 0.5 * v * (1 + std::erf(v * 0.70710678118));
}

NpyArray scaled(NpyArray a, float s) {
  auto* p = reinterpret_cast<float*>(a.data.data());
  for (size_t i = 0; i < a.elements(); ++i) p[i] *= s;
  return a;
}

void checkMlp(const std::string& graph, double (*gelu)(double), const TpuArch& arch,
              const std::vector<std::string>& flags = {}) {
  std::string dir = compileOrFail(graphFile(graph), graph, flags);
  const int64_t m = 64, d = 256, h = 1024;
  NpyArray x = randomF32Array({m, d}, 41), w1 = scaled(randomF32Array({d, h}, 42), 1.0f / 16),
           b1 = randomF32Array({h}, 43), w2 = scaled(randomF32Array({h, d}, 44), 1.0f / 32),
           b2 = randomF32Array({d}, 45);
  TpuKernelRun run =
      runProgram(dir, {{"x", x}, {"W1", w1}, {"b1", b1}, {"W2", w2}, {"b2", b2}}, arch);
  std::vector<double> hid = matmul(bf16Values(x), bf16Values(w1), m, d, h), bias1 = asDoubles(b1),
                      bias2 = asDoubles(b2);
  for (int64_t i = 0; i < m * h; ++i) hid[i] = gelu(hid[i] + bias1[i % h]);
  std::vector<double> y = matmul(roundBf16(hid), bf16Values(w2), m, h, d);
  for (int64_t i = 0; i < m * d; ++i) y[i] += bias2[i % d];
  // The hidden layer is rounded to bf16: values at a rounding boundary may round the other way.
  expectClose(run.outputs.at("y"), y, 1e-3, 2e-3, graph);
  // Two kernels, each a matmul with its epilogue fused.
  EXPECT_EQ(run.stats.get("mxu_flops"), 2.0 * m * d * h * 2);
}

TEST(TpuCompileMlp, GeluTanh) {
  checkMlp("mlp_gelu", geluTanh, tpuArchWith());
}

TEST(TpuCompileMlp, GeluErf) {
  checkMlp("mlp_gelu_erf", geluErf, tpuArchWith());
}

TEST(TpuCompileMlp, OnTwoTensorCoresAndWhenVmemIsSmall) {
  checkMlp("mlp_gelu", geluTanh, tpuArchWith({}, "v4"), {"--arch", "v4"});
  checkMlp("mlp_gelu_erf", geluErf, tpuArchWith({"vmem.bytes=524288"}),
           {"--set", "vmem.bytes=524288"});
}

} // namespace
} // namespace chipless::test
