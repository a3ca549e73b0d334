// The TPU compiler on GEMMs: graphs of awkward shapes (no dimension a multiple of 128), a
// transposed RHS read in place, f32 and int8 operands, a batched matmul, the v4 (two
// TensorCores) and v6e (256 x 256 MXUs) descriptions, a VMEM too small for a resident RHS, and
// the timing of compiled kernels: one MXU's busy cycles follow ceil(K/R) ceil(N/C) (2R + C + M
// - 2) without overlapped weight loading, and the compiled 4096^3 GEMM keeps the v5e MXUs at
// least 90% busy. Every run is checked against the MXU and HBM bounds (tpu_compile_harness).
#include "support/atomic_file.h"
#include "support/numerics.h"
#include "tests/e2e/tpu_compile_harness.h"

#include <cmath>
#include <gtest/gtest.h>

namespace chipless::test {
namespace {

/// C = A @ B (or A @ B^T with B stored [N, K]) as a graph.
std::string gemmGraph(int64_t m, int64_t k, int64_t n, const std::string& in = "bf16",
                      const std::string& out = "f32", bool transposedB = false) {
  const std::string s = std::to_string(m) + "x" + std::to_string(k),
                    t = std::to_string(k) + "x" + std::to_string(n),
                    u = std::to_string(m) + "x" + std::to_string(n),
                    bt = std::to_string(n) + "x" + std::to_string(k);
  const std::string zero = out == "i32" ? "arith.constant 0 : i32" : "arith.constant 0.0 : " + out;
  std::string g = "func.func @gemm(%a: tensor<" + s + "x" + in +
                  "> {graph.name = \"A\"}, %b: tensor<" + (transposedB ? bt : t) + "x" + in +
                  "> {graph.name = \"B\"}) -> (tensor<" + u + "x" + out +
                  "> {graph.name = \"C\"}) {\n";
  g += "  %zero = " + zero + "\n";
  g += "  %e = tensor.empty() : tensor<" + u + "x" + out + ">\n";
  g += "  %init = linalg.fill ins(%zero : " + out + ") outs(%e : tensor<" + u + "x" + out +
       ">) -> tensor<" + u + "x" + out + ">\n";
  std::string rhs = "%b";
  if (transposedB) {
    g += "  %et = tensor.empty() : tensor<" + t + "x" + in + ">\n";
    g += "  %bt = linalg.transpose ins(%b : tensor<" + bt + "x" + in + ">) outs(%et : tensor<" + t +
         "x" + in + ">) permutation = [1, 0]\n";
    rhs = "%bt";
  }
  g += "  %c = linalg.matmul ins(%a, " + rhs + " : tensor<" + s + "x" + in + ">, tensor<" + t +
       "x" + in + ">) outs(%init : tensor<" + u + "x" + out + ">) -> tensor<" + u + "x" + out +
       ">\n";
  g += "  return %c : tensor<" + u + "x" + out + ">\n}\n";
  return g;
}

std::string tag(int64_t m, int64_t k, int64_t n) {
  return "gemm_" + std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n);
}

/// Compiles and runs a bf16 GEMM graph; checks every element against the reference.
TpuKernelRun checkGemm(const std::string& graph, int64_t m, int64_t k, int64_t n,
                       const TpuArch& arch, const std::vector<std::string>& flags = {},
                       bool transposedB = false) {
  std::string dir = compileOrFail(graph, tag(m, k, n), flags);
  NpyArray a = randomF32Array({m, k}, 11),
           b = randomF32Array(transposedB ? std::vector<int64_t>{n, k} : std::vector<int64_t>{k, n},
                              12);
  TpuKernelRun run = runProgram(dir, {{"A", a}, {"B", b}}, arch);
  std::vector<double> ref = matmul(bf16Values(a), bf16Values(b), m, k, n, transposedB);
  // fp32 accumulation of bf16 products: a few ulps of the sums.
  const double tol = 1e-5 * std::sqrt(static_cast<double>(k));
  expectClose(run.outputs.at("C"), ref, tol, tol, graph);
  return run;
}

TEST(TpuCompileGemm, AwkwardShapesMatchTheReference) {
  const TpuArch arch = tpuArchWith();
  TpuKernelRun run = checkGemm(graphFile("gemm_200x300x260"), 200, 300, 260, arch);
  // Folds of k and n below the array's size: the MXU work counts the real 200 x 300 x 260.
  EXPECT_EQ(run.stats.get("mxu_flops"), 2.0 * 200 * 300 * 260);
  for (auto [m, k, n] : {std::tuple<int64_t, int64_t, int64_t>{1, 1, 1},
                         {130, 129, 500},
                         {8, 1000, 129},
                         {300, 72, 40}})
    checkGemm(writeGraph(tag(m, k, n), gemmGraph(m, k, n)), m, k, n, arch);
}

TEST(TpuCompileGemm, TransposedRhsIsReadInPlace) {
  const TpuArch arch = tpuArchWith();
  std::string g = writeGraph("gemm_nt", gemmGraph(37, 700, 131, "bf16", "f32", true));
  checkGemm(g, 37, 700, 131, arch, {}, true);
  std::string program = readFile(compileWorkDir() + "/" + tag(37, 700, 131) + "-dump/program.s");
  EXPECT_NE(program.find("mxu.matmul.nt.bf16"), std::string::npos);
  EXPECT_EQ(program.find("mxu.matmul.bf16"), std::string::npos);
}

/// What the MXU computes for f32 operands (numerics.fp32_matmul_precision, docs/tpu-sim.md):
/// each operand is split into bf16 pieces x = x0 + x1 + x2 (x0 = bf16(x), x1 = bf16(x - x0),
/// ...) and the passes multiply the piece pairs (i, j) with i + j < pieces: bf16 one pass
/// (x0 y0), bf16x3 three (x0 y0 + x0 y1 + x1 y0), bf16x6 six. Summed here in fp64.
std::vector<double> fp32PassesMatmul(const NpyArray& a, const NpyArray& b, int64_t m, int64_t k,
                                     int64_t n, int passes) {
  const int pieces = passes == 1 ? 1 : passes == 3 ? 2 : 3;
  auto split = [&](const NpyArray& x) {
    std::vector<std::vector<double>> p(static_cast<size_t>(pieces));
    for (double v : asDoubles(x)) {
      float rest = static_cast<float>(v);
      for (int i = 0; i < pieces; ++i) {
        const float piece = bf16ToFloat(floatToBf16(rest));
        p[static_cast<size_t>(i)].push_back(piece);
        rest -= piece;
      }
    }
    return p;
  };
  const auto pa = split(a), pb = split(b);
  std::vector<double> c(static_cast<size_t>(m * n), 0.0);
  for (int i = 0; i < pieces; ++i)
    for (int j = 0; i + j < pieces; ++j) {
      std::vector<double> part =
          matmul(pa[static_cast<size_t>(i)], pb[static_cast<size_t>(j)], m, k, n);
      for (size_t e = 0; e < c.size(); ++e) c[e] += part[e];
    }
  return c;
}

TEST(TpuCompileGemm, Fp32AndInt8Operands) {
  const int64_t m = 50, k = 70, n = 90;
  NpyArray a = randomF32Array({m, k}, 21), b = randomF32Array({k, n}, 22);
  const std::vector<double> exact = matmul(asDoubles(a), asDoubles(b), m, k, n);
  std::vector<double> absProducts = matmul(asDoubles(a), asDoubles(b), m, k, n);
  {
    std::vector<double> x = asDoubles(a), y = asDoubles(b);
    for (double& v : x) v = std::fabs(v);
    for (double& v : y) v = std::fabs(v);
    absProducts = matmul(x, y, m, k, n);
  }
  const std::string graph = writeGraph("f32", gemmGraph(m, k, n, "f32", "f32"));
  // f32 operands take 1, 3 or 6 bf16 passes (models/hw/tpu-*.yaml ship bf16x3, XLA's HIGH).
  // The result must equal the passes' sum up to fp32 accumulation (a few ulps of the sums),
  // and stay within the error the dropped pieces allow of the exact product: each operand
  // piece left out is at most 2^-8 (one piece kept), 2^-16 (two) or 2^-24 (three) of the
  // operand, so |error| <= c * 2^-8p * sum |a||b| with p pieces (c = 4 covers the cross terms).
  double lastBusy = 0;
  for (auto [precision, passes] :
       {std::pair<std::string, int>{"bf16", 1}, {"bf16x3", 3}, {"bf16x6", 6}}) {
    const std::string set = "numerics.fp32_matmul_precision=" + precision;
    std::string dir = compileOrFail(graph, "f32_" + precision, {"--set", set});
    TpuKernelRun run = runProgram(dir, {{"A", a}, {"B", b}}, tpuArchWith({set}));
    const NpyArray& c = run.outputs.at("C");
    const double tol = 1e-6 * std::sqrt(static_cast<double>(k));
    expectClose(c, fp32PassesMatmul(a, b, m, k, n, passes), tol, tol, "f32 GEMM, " + precision);
    const int pieces = passes == 1 ? 1 : passes == 3 ? 2 : 3;
    const double rel = 4 * std::ldexp(1.0, -8 * pieces) + 1e-6;
    const std::vector<double> got = asDoubles(c);
    size_t bad = 0;
    for (size_t i = 0; i < got.size(); ++i)
      bad += std::fabs(got[i] - exact[i]) > rel * absProducts[i];
    EXPECT_EQ(bad, 0u) << precision << ": elements beyond the error bound of the exact product";
    // The work counts the product once; each pass streams the rows once more (cycles).
    EXPECT_EQ(run.stats.get("mxu_flops"), 2.0 * m * k * n) << precision;
    const double busy = run.stats.get("chip[0].core[0].mxu[0].busy_cycles");
    EXPECT_GT(busy, lastBusy) << precision << " streams more rows than the precision before";
    lastBusy = busy;
  }
  {
    // int8 operands, int32 accumulation: exact.
    std::string dir = compileOrFail(writeGraph("i8", gemmGraph(64, 200, 96, "i8", "i32")), "i8");
    NpyArray ia = makeNpy(DType::I32, {64, 200}), ib = makeNpy(DType::I32, {200, 96});
    auto* pa = reinterpret_cast<int32_t*>(ia.data.data());
    auto* pb = reinterpret_cast<int32_t*>(ib.data.data());
    for (size_t i = 0; i < ia.elements(); ++i)
      pa[i] = static_cast<int32_t>((i * 37 + 11) % 255) - 127;
    for (size_t i = 0; i < ib.elements(); ++i)
      pb[i] = static_cast<int32_t>((i * 53 + 7) % 255) - 127;
    TpuKernelRun run = runProgram(dir, {{"A", ia}, {"B", ib}}, tpuArchWith());
    std::vector<double> x(pa, pa + ia.elements()), y(pb, pb + ib.elements());
    expectClose(run.outputs.at("C"), matmul(x, y, 64, 200, 96), 0, 0, "int8 GEMM");
  }
}

TEST(TpuCompileGemm, AccumulatesIntoATensorOrConstantInit) {
  // outs(%c) of a tensor argument: C + A @ B, the init read and added after the folds; and a
  // constant fill of 0.5.
  const std::string tensorInit = R"(func.func @f(%a: tensor<70x150xbf16> {graph.name = "A"},
               %b: tensor<150x140xbf16> {graph.name = "B"},
               %c: tensor<70x140xf32> {graph.name = "C0"}) -> (tensor<70x140xf32> {graph.name = "C"}) {
  %r = linalg.matmul ins(%a, %b : tensor<70x150xbf16>, tensor<150x140xbf16>)
                     outs(%c : tensor<70x140xf32>) -> tensor<70x140xf32>
  return %r : tensor<70x140xf32>
})";
  const std::string constInit = R"(func.func @f(%a: tensor<70x150xbf16> {graph.name = "A"},
               %b: tensor<150x140xbf16> {graph.name = "B"}) -> (tensor<70x140xf32> {graph.name = "C"}) {
  %half = arith.constant 0.5 : f32
  %e = tensor.empty() : tensor<70x140xf32>
  %c = linalg.fill ins(%half : f32) outs(%e : tensor<70x140xf32>) -> tensor<70x140xf32>
  %r = linalg.matmul ins(%a, %b : tensor<70x150xbf16>, tensor<150x140xbf16>)
                     outs(%c : tensor<70x140xf32>) -> tensor<70x140xf32>
  return %r : tensor<70x140xf32>
})";
  NpyArray a = randomF32Array({70, 150}, 91), b = randomF32Array({150, 140}, 92),
           c0 = randomF32Array({70, 140}, 93, 10.0f);
  const std::vector<double> ab = matmul(bf16Values(a), bf16Values(b), 70, 150, 140);
  const double tol = 1e-5 * std::sqrt(150.0);
  std::vector<double> ref = asDoubles(c0);
  for (size_t i = 0; i < ref.size(); ++i) ref[i] += ab[i];
  TpuKernelRun run = runProgram(compileOrFail(writeGraph("tensor_init", tensorInit), "tensor_init"),
                                {{"A", a}, {"B", b}, {"C0", c0}}, tpuArchWith());
  expectClose(run.outputs.at("C"), ref, tol, tol, "C0 + A @ B");
  ref = ab;
  for (double& v : ref) v += 0.5;
  run = runProgram(compileOrFail(writeGraph("const_init", constInit), "const_init"),
                   {{"A", a}, {"B", b}}, tpuArchWith());
  expectClose(run.outputs.at("C"), ref, tol, tol, "0.5 + A @ B");
}

TEST(TpuCompileGemm, BatchedMatmul) {
  const TpuArch arch = tpuArchWith();
  std::string dir = compileOrFail(graphFile("batch_matmul"), "batch_matmul");
  NpyArray a = randomF32Array({4, 100, 72}, 31), b = randomF32Array({4, 72, 136}, 32);
  TpuKernelRun run = runProgram(dir, {{"A", a}, {"B", b}}, arch);
  std::vector<double> x = bf16Values(a), y = bf16Values(b), ref;
  for (int64_t bi = 0; bi < 4; ++bi) {
    std::vector<double> xs(x.begin() + bi * 7200, x.begin() + (bi + 1) * 7200),
        ys(y.begin() + bi * 9792, y.begin() + (bi + 1) * 9792);
    std::vector<double> c = matmul(xs, ys, 100, 72, 136);
    ref.insert(ref.end(), c.begin(), c.end());
  }
  expectClose(run.outputs.at("C"), ref, 1e-4, 1e-4, "batch_matmul");
}

TEST(TpuCompileGemm, OtherGenerationsAndTwoTensorCores) {
  // v4: two TensorCores share the rows; each runs its units.
  const TpuArch v4 = tpuArchWith({}, "v4");
  TpuKernelRun run = checkGemm(writeGraph(tag(512, 256, 384), gemmGraph(512, 256, 384)), 512, 256,
                               384, v4, {"--arch", "v4"});
  // 512 rows: the compiler gives each core one 256-row unit (one core running both took
  // 3,886 cycles against 3,083: the last unit's outputs drain through one DMA engine).
  EXPECT_GT(run.stats.get("chip[0].core[0].mxu_flops"), 0);
  EXPECT_GT(run.stats.get("chip[0].core[1].mxu_flops"), 0);
  EXPECT_EQ(run.stats.get("chip[0].core[0].mxu_flops") + run.stats.get("chip[0].core[1].mxu_flops"),
            2.0 * 512 * 256 * 384);
  // v6e: 256 x 256 arrays.
  const TpuArch v6e = tpuArchWith({}, "v6e");
  run = checkGemm(graphFile("gemm_200x300x260"), 200, 300, 260, v6e, {"--arch", "v6e"});
  EXPECT_EQ(run.stats.get("mxu_flops"), 2.0 * 200 * 300 * 260);
}

TEST(TpuCompileGemm, StreamsRhsPanelsWhenVmemIsSmall) {
  // 1 MiB of VMEM cannot hold the 768 KiB RHS next to the other buffers: it streams in panels.
  const std::vector<std::string> overrides = {"vmem.bytes=1048576"};
  const TpuArch arch = tpuArchWith(overrides);
  std::string g = writeGraph(tag(300, 640, 600), gemmGraph(300, 640, 600));
  checkGemm(g, 300, 640, 600, arch, {"--set", overrides[0]});
  std::string ir =
      readFile(compileWorkDir() + "/" + tag(300, 640, 600) + "-dump/07-tpu-alloc-vmem.mlir");
  EXPECT_NE(ir.find("rhs = \"streamed\""), std::string::npos);
}

TEST(TpuCompileGemm, WithoutOverlapOneMxuTakesTheFoldFormula) {
  // One unit of rows (M fits), one MXU, folds back to back: ceil(K/R) ceil(N/C) (2R + C + M - 2).
  const std::vector<std::string> overrides = {"mxu.overlap_weight_load=false", "mxu.count=1"};
  const TpuArch arch = tpuArchWith(overrides);
  std::string dir = compileOrFail(graphFile("gemm_200x300x260"), "no_overlap",
                                  {"--set", overrides[0], "--set", overrides[1]});
  TpuKernelRun run = runProgram(dir, {}, arch, true);
  EXPECT_EQ(run.stats.get("chip[0].core[0].mxu[0].busy_cycles"),
            3.0 * 3 * (2 * 128 + 128 + 200 - 2));
}

TEST(TpuCompileGemm, CompiledGemm4096ReachesNinetyPercentOfPeakOnV5e) {
  const TpuArch arch = tpuArchWith();
  std::string dir = compileOrFail(graphFile("gemm_4096"), "gemm_4096");
  TpuKernelRun run = runProgram(dir, {}, arch, true);
  EXPECT_GE(run.stats.get("utilization.mxu"), 0.90);
  EXPECT_LE(run.stats.get("utilization.mxu"), 1.0);
  // With overlapped weight loading, between the ideal and the back-to-back fold formula of the
  // folds each MXU ran.
  const double ideal = 4096.0 * 4096 * 4096 / (128 * 128 * 4);
  EXPECT_GE(run.cycles, ideal);
  for (int m = 0; m < 4; ++m) {
    const std::string mxu = "chip[0].core[0].mxu[" + std::to_string(m) + "].";
    const double folds = run.stats.get(mxu + "folds"), flops = run.stats.get(mxu + "flops");
    const double rows = flops / folds / (2.0 * 128 * 128); // rows streamed per fold
    EXPECT_LE(run.stats.get(mxu + "busy_cycles"), folds * (2 * 128 + 128 + rows - 2));
    EXPECT_GE(run.stats.get(mxu + "busy_cycles"), folds * rows);
  }
}

} // namespace
} // namespace chipless::test
