// The kernel classes ktir-cpu's examples bring (bench/ktir-cpu/PEER.md), each from a kernel
// of our own of the same shape under tests/e2e/kernels, run end to end and checked against
// an fp32 reference: i64 index tensors, strided reduce groups written inline with `>=`,
// float scalars bound at launch, per-row vector broadcasts, matmuls and reductions on
// rows that are not whole sticks.
#include "support/error.h"
#include "support/numerics.h"
#include "support/spyrecode/directory.h"
#include "tests/e2e/kernel_harness.h"
#include "tests/e2e/ktir_harness.h"

#include <cmath>
#include <cstring>
#include <filesystem>
#include <gtest/gtest.h>
#include <random>

namespace chipless::test {
namespace {

namespace fs = std::filesystem;

fs::path testKernelsDir() {
  return fs::path(CHIPLESS_SOURCE_DIR) / "tests" / "e2e" / "kernels";
}

/// 256 token ids below `vocabulary` as numpy's default int64 array, and `bad` at `badAt`.
NpyArray tokenIds(uint64_t seed, int64_t bad = -1, size_t badAt = 0) {
  NpyArray ids = makeNpy(DType::I64, {256});
  std::mt19937_64 rng(seed);
  for (size_t i = 0; i < 256; ++i) {
    int64_t v = i == badAt && bad >= 0 ? bad : static_cast<int64_t>(rng() % 4096);
    std::memcpy(ids.data.data() + 8 * i, &v, 8);
  }
  return ids;
}

/// out[t, :] = table[ids[t], :], reading the ids as int64.
Expected gatherReference(const Tensors& t) {
  std::vector<float> table = floats(t.at("table")), out(256 * 256);
  const NpyArray& ids = t.at("ids");
  for (size_t m = 0; m < 256; ++m) {
    int64_t id;
    std::memcpy(&id, ids.data.data() + 8 * m, 8);
    std::copy_n(table.begin() + id * 256, 256, out.begin() + static_cast<long>(m) * 256);
  }
  return {{"out", out}};
}

TEST(KtirPeerKernels, I64IndexTensorsAreNarrowedOnTheHost) {
  // The plan stores the ids as i32 (the device has no i64); the launch takes int64 data.
  KtirCase c{
      "embedding_gather_i64.mlir", {}, [](Tensors& t) { t["ids"] = tokenIds(7); }, gatherReference};
  c.rtol = c.atol = 0;
  fs::path work = testWorkDir();
  KtirRun r = runKtirCase(testKernelsDir(), c, work);
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.inputs.at("ids").dtype, DType::I64);
}

TEST(KtirPeerKernels, AnIndexThatDoesNotFitI32IsRefusedNamingTheTensorAndTheElement) {
  KtirCase c{"embedding_gather_i64.mlir",
             {},
             [](Tensors& t) { t["ids"] = tokenIds(7, int64_t{1} << 40, 37); },
             gatherReference};
  fs::path work = testWorkDir();
  ASSERT_TRUE(compileKtir(testKernelsDir(), c, work));
  try {
    launchKtir(c, work);
    ADD_FAILURE() << "an id of 2^40 was accepted";
  } catch (const Error& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("input 'ids'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("value 1099511627776 at element 37"), std::string::npos) << msg;
    EXPECT_NE(msg.find("i32"), std::string::npos) << msg;
  }
}

TEST(KtirPeerKernels, StridedReduceGroupsWrittenInline) {
  // Group g reduces the rows of tiles g and g + 2; tile g writes out[g].
  KtirCase c{"strided_groups_reduce.mlir", {}, nullptr, [](const Tensors& t) {
               std::vector<float> in = floats(t.at("in")), out(2 * 128);
               for (size_t g = 0; g < 2; ++g)
                 for (size_t k = 0; k < 128; ++k)
                   out[g * 128 + k] =
                       halfToFloat(floatToHalf(in[g * 128 + k] + in[(g + 2) * 128 + k]));
               return Expected{{"out", out}};
             }};
  c.rtol = c.atol = 0;
  KtirRun r = runKtirCase(testKernelsDir(), c, testWorkDir());
  EXPECT_TRUE(r.ok);
}

/// Y[r, :] = X[r, :] * rsqrt(sum(X[r, :]^2) / 1024 + eps), with the kernel's f16 steps.
Expected rmsnormReference(const Tensors& t, double eps) {
  std::vector<float> x = floats(t.at("X")), y(64 * 1024);
  auto h = [](double v) { return halfToFloat(floatToHalf(static_cast<float>(v))); };
  const float e = h(eps);
  for (size_t r = 0; r < 64; ++r) {
    double ssq = 0;
    for (size_t k = 0; k < 1024; ++k) ssq += h(x[r * 1024 + k] * x[r * 1024 + k]);
    const float rstd = h(1 / std::sqrt(h(h(h(ssq) * h(1.0 / 1024)) + e)));
    for (size_t k = 0; k < 1024; ++k) y[r * 1024 + k] = h(x[r * 1024 + k] * rstd);
  }
  return {{"Y", y}};
}

TEST(KtirPeerKernels, F16ScalarBoundAtLaunch) {
  // eps is a launch scalar of the plan (type f16); two launches of one program with two
  // values give two results, each matching its reference.
  fs::path work = testWorkDir();
  ASSERT_TRUE(
      compileKtir(testKernelsDir(), KtirCase{"rmsnorm_eps.mlir", {}, nullptr, nullptr}, work));
  for (double eps : {1e-5, 0.25}) {
    KtirCase c{"rmsnorm_eps.mlir", {}, nullptr, [eps](const Tensors& t) {
                 return rmsnormReference(t, eps);
               }};
    c.reals = {{"eps", eps}};
    c.rtol = 2e-2;
    EXPECT_TRUE(launchKtir(c, work).ok);
  }
  spyrecode::Job job = spyrecode::readJob((work / "job" / "job.plan").string());
  ASSERT_EQ(job.plan.scalars.size(), 1u);
  EXPECT_EQ(job.plan.scalars[0].name, "eps");
  EXPECT_EQ(job.plan.scalars[0].real, DType::F16);
}

TEST(KtirPeerKernels, F32ScalarsInElementwiseOpsAndGenericBodies) {
  KtirCase c{"scale_shift_f32.mlir", {}, nullptr, [](const Tensors& t) {
               std::vector<float> x = floats(t.at("X")), y(x.size());
               for (size_t i = 0; i < x.size(); ++i) y[i] = x[i] * 0.125f + -3.5f;
               return Expected{{"Y", y}};
             }};
  c.reals = {{"scale", 0.125}, {"shift", -3.5}};
  c.rtol = 1e-6;
  c.atol = 1e-6;
  KtirRun r = runKtirCase(testKernelsDir(), c, testWorkDir());
  EXPECT_TRUE(r.ok);
}

TEST(KtirPeerKernels, FloatScalarFixedWithConst) {
  // --const eps=0.25 specialises the program: no scalar left in the plan, same numbers.
  KtirCase c{"rmsnorm_eps.mlir", {"--const eps=0.25"}, nullptr, [](const Tensors& t) {
               return rmsnormReference(t, 0.25);
             }};
  c.rtol = 2e-2;
  fs::path work = testWorkDir();
  KtirRun r = runKtirCase(testKernelsDir(), c, work);
  EXPECT_TRUE(r.ok);
  spyrecode::Job job = spyrecode::readJob((work / "job" / "job.plan").string());
  EXPECT_TRUE(job.plan.scalars.empty());
}

TEST(KtirPeerKernels, FloatScalarErrorsNameTheScalar) {
  KtirCase c{"rmsnorm_eps.mlir", {}, nullptr, nullptr};
  fs::path work = testWorkDir();
  ASSERT_TRUE(compileKtir(testKernelsDir(), c, work));
  auto expectError = [&](const KtirCase& k, const std::string& want) {
    try {
      launchKtir(k, work);
      ADD_FAILURE() << "launch accepted; expected: " << want;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
    }
  };
  expectError(c, "scalar 'eps' (f16) of rmsnorm_eps is not bound (pass --scalar eps=VALUE)");
  KtirCase wrong = c;
  wrong.reals = {{"epsilon", 1e-5}};
  expectError(wrong, "scalar 'epsilon' is not an argument of rmsnorm_eps");
}

TEST(KtirPeerKernels, PerRowVectorBroadcastAlongTheRows) {
  // S and B are [rows] vectors read through (d0, d1) -> (d0) and linalg.broadcast [1].
  KtirCase c{"row_scale.mlir", {}, nullptr, [](const Tensors& t) {
               std::vector<float> x = floats(t.at("X")), s = floats(t.at("S")),
                                  b = floats(t.at("B")), y(x.size());
               for (size_t r = 0; r < 400; ++r)
                 for (size_t k = 0; k < 256; ++k) {
                   float xs = halfToFloat(floatToHalf(x[r * 256 + k] * s[r]));
                   y[r * 256 + k] = halfToFloat(floatToHalf(xs + b[r]));
                 }
               return Expected{{"Y", y}};
             }};
  c.rtol = c.atol = 0;
  KtirRun r = runKtirCase(testKernelsDir(), c, testWorkDir());
  EXPECT_TRUE(r.ok);
}

TEST(KtirPeerKernels, MatmulReduceAndElementwiseOnPartialSticks) {
  KtirCase c{"matmul_partial_sticks.mlir", {}, nullptr, [](const Tensors& t) {
               std::vector<float> a = floats(t.at("A")), b = floats(t.at("B"));
               std::vector<float> cm(64 * 48), d(64 * 48), r(64);
               auto h = [](double v) { return halfToFloat(floatToHalf(static_cast<float>(v))); };
               for (size_t i = 0; i < 64; ++i) {
                 double sum = 0;
                 for (size_t j = 0; j < 48; ++j) {
                   float acc = 0; // fp32 accumulation on the PT array
                   for (size_t k = 0; k < 32; ++k) acc += a[i * 32 + k] * b[k * 48 + j];
                   cm[i * 48 + j] = h(acc);
                   d[i * 48 + j] = h(cm[i * 48 + j] * 0.5);
                   sum += cm[i * 48 + j];
                 }
                 r[i] = h(sum);
               }
               return Expected{{"C", cm}, {"D", d}, {"R", r}};
             }};
  c.rtol = 1e-2;
  c.atol = 1e-2;
  KtirRun r = runKtirCase(testKernelsDir(), c, testWorkDir());
  EXPECT_TRUE(r.ok);
}

TEST(KtirPeerKernels, RowNormWithTheHiddenDimensionSplitOverTwoTiles) {
  // N, eps and the block size are plain arguments; the per-row partial sums all-reduce
  // between column partners, and the one-element result is extracted and broadcast.
  KtirCase c{"rmsnorm_split_columns.mlir", {}, nullptr, [](const Tensors& t) {
               std::vector<float> x = floats(t.at("X")), w = floats(t.at("W")), y(x.size());
               for (size_t i = 0; i < 256; ++i) {
                 double ssq = 0;
                 for (size_t k = 0; k < 4096; ++k) ssq += double(x[i * 4096 + k]) * x[i * 4096 + k];
                 const double rstd = 1 / std::sqrt(ssq / 4096 + 1e-5);
                 for (size_t k = 0; k < 4096; ++k)
                   y[i * 4096 + k] = static_cast<float>(x[i * 4096 + k] * rstd * w[k]);
               }
               return Expected{{"Y", y}};
             }};
  c.scalars = {{"N", 4096}, {"BLOCK", 1024}};
  c.reals = {{"eps", 1e-5}};
  c.rtol = 2e-2;
  c.atol = 2e-3;
  KtirRun r = runKtirCase(testKernelsDir(), c, testWorkDir());
  EXPECT_TRUE(r.ok);
}

} // namespace
} // namespace chipless::test
