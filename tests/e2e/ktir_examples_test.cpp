// The public KTIR samples (../shared/ktir-examples) compiled with spyre-compile and run on
// the emulated chip: every output must match a reference computed here in fp32 from the
// same inputs (within fp16 rounding). Inputs come from fixed seeds. The tests skip when
// the samples folder is absent.
#include "support/numerics.h"
#include "tests/e2e/kernel_harness.h"
#include "tests/e2e/ktir_harness.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <gtest/gtest.h>
#include <random>

namespace chipless::test {
namespace {

namespace fs = std::filesystem;

/// One sample: how to compile it, which inputs it gets, what it must compute.
using Sample = KtirCase;

fs::path examplesDir() {
  return fs::weakly_canonical(fs::path(CHIPLESS_SOURCE_DIR) / ".." / "shared" / "ktir-examples");
}

class KtirExamples : public ::testing::Test {
protected:
  void SetUp() override {
    if (!fs::is_directory(examplesDir()))
      GTEST_SKIP() << "KTIR samples not found at " << examplesDir();
    work = testWorkDir();
  }

  /// Compiles, runs and checks `s`; returns the outputs for further checks.
  Tensors run(const Sample& s) { return runKtirCase(examplesDir(), s, work).outputs; }

  fs::path work;
};

/// Rounds through fp16 as the device stores it.
float h(float x) {
  return halfToFloat(floatToHalf(x));
}

std::vector<float> in(const Tensors& t, const std::string& name) {
  return floats(t.at(name));
}

// ---- step 1: elementwise, broadcasts -------------------------------------------------

Expected addRows(const Tensors& t, int rows) {
  std::vector<float> a = in(t, "A"), b = in(t, "B"), c(a.size(), 0.0f);
  for (size_t i = 0; i < static_cast<size_t>(rows) * 64; ++i) c[i] = h(a[i] + b[i]);
  return {{"C", c}};
}

TEST_F(KtirExamples, AddWithControlFlowOnItsSingleTile) {
  // No grid attribute: one tile, which adds rows 0..2; the rest of C is never written.
  run({"add-with-control-flow.mlir", {}, nullptr, [](const Tensors& t) { return addRows(t, 3); }});
}

TEST_F(KtirExamples, AddWithControlFlowOnThirtyTwoTiles) {
  // The grid its comment describes: 32 tiles of 3 rows cover all 96 rows.
  run({"add-with-control-flow.mlir", {"--grid 32"}, nullptr, [](const Tensors& t) {
         return addRows(t, 96);
       }});
}

TEST_F(KtirExamples, ScalarBroadcast) {
  run({"scalar_broadcast.mlir", {}, nullptr, [](const Tensors& t) {
         return Expected{{"out", std::vector<float>(4 * 64, in(t, "in")[0])}};
       }});
}

TEST_F(KtirExamples, NestedYield) {
  run({"nested_yield.ktir", {}, nullptr, [](const Tensors&) {
         return Expected{{"out", std::vector<float>(4, 2.0f)}};
       }});
}

// ---- step 2: reductions ---------------------------------------------------------------

TEST_F(KtirExamples, ReduceGeneric) {
  run({"reduce_generic.mlir", {}, nullptr, [](const Tensors& t) {
         std::vector<float> x = in(t, "arg0");
         float sum = 0;
         for (float v : x) sum += v;
         return Expected{{"arg0", std::vector<float>(4, h(sum))}};
       }});
}

TEST_F(KtirExamples, ReduceMultiopMaxOfNegativeValues) {
  // All values negative: padding lanes that held zeros would win a max.
  run({"reduce_multiop.mlir",
       {},
       [](Tensors& t) {
         std::vector<float> v = floats(t.at("arg0"));
         for (float& x : v) x = -std::fabs(x) - 0.5f;
         encodeFromFloat(DType::F16, v.data(), t.at("arg0").data.data(), v.size(),
                         Fp16Format::Ieee);
       },
       [](const Tensors& t) {
         std::vector<float> x = in(t, "arg0");
         return Expected{{"arg0", std::vector<float>(8, *std::max_element(x.begin(), x.end()))}};
       }});
}

TEST_F(KtirExamples, SoftmaxWide) {
  Sample s{"softmax_wide.mlir", {}, nullptr, [](const Tensors& t) {
             std::vector<float> x = in(t, "input"), y(x.size());
             const size_t n = 262144;
             for (size_t r = 0; r < 2; ++r) {
               const float* row = x.data() + r * n;
               float m = *std::max_element(row, row + n);
               double sum = 0;
               for (size_t i = 0; i < n; ++i) sum += std::exp(row[i] - m);
               for (size_t i = 0; i < n; ++i)
                 y[r * n + i] = static_cast<float>(std::exp(row[i] - m) / sum);
             }
             return Expected{{"output", y}};
           }};
  // Outputs are about 1/262144: compare relative to the row's largest value.
  s.rtol = 2e-2;
  s.atol = 2e-7;
  run(s);
}

// ---- step 3: matmuls and ring collectives ---------------------------------------------

/// Replaces input `name` by normal values times `scale` (weights stay small, so sums of
/// products stay well inside fp16).
void scaled(Tensors& t, const std::string& name, float scale, uint64_t seed) {
  NpyArray& a = t.at(name);
  a = randomArray(a.dtype, a.shape, seed, scale);
}

/// x + swiglu(x @ Wg, x @ Wu) @ Wd for x [m, k], Wg/Wu [k, f], Wd [f, k].
std::vector<float> ffn(const Tensors& t, int m, int k, int f) {
  std::vector<float> x = in(t, "x"), wg = in(t, "w_gate"), wu = in(t, "w_up"), wd = in(t, "w_down");
  std::vector<float> out(static_cast<size_t>(m * k));
  for (int r = 0; r < m; ++r) {
    std::vector<float> fused(static_cast<size_t>(f));
    for (int j = 0; j < f; ++j) {
      double g = 0, u = 0;
      for (int i = 0; i < k; ++i) {
        g += x[r * k + i] * wg[i * f + j];
        u += x[r * k + i] * wu[i * f + j];
      }
      fused[j] = static_cast<float>(g / (1 + std::exp(-g)) * u);
    }
    for (int i = 0; i < k; ++i) {
      double o = 0;
      for (int j = 0; j < f; ++j) o += fused[j] * wd[j * k + i];
      out[r * k + i] = static_cast<float>(x[r * k + i] + o);
    }
  }
  return out;
}

void ffnInputs(Tensors& t, float scale) {
  scaled(t, "w_gate", scale, 11);
  scaled(t, "w_up", scale, 12);
  scaled(t, "w_down", scale, 13);
}

TEST_F(KtirExamples, FfnSwiglu) {
  Sample s{"ffn_swiglu.mlir",
           {},
           [](Tensors& t) { ffnInputs(t, 0.125f); },
           [](const Tensors& t) {
             return Expected{{"out", ffn(t, 1, 64, 128)}};
           }};
  s.rtol = 2e-2;
  s.atol = 1e-2;
  run(s);
}

TEST_F(KtirExamples, FfnSwigluFourCoresWithDistributedWeightsAndAllReduce) {
  Sample s{"ffn_swiglu_4core.mlir",
           {},
           [](Tensors& t) { ffnInputs(t, 0.0625f); },
           [](const Tensors& t) {
             return Expected{{"out", ffn(t, 4, 256, 1024)}};
           }};
  s.rtol = 2e-2;
  s.atol = 1e-2;
  run(s);
}

/// Column sums of `in` [4, 128] times `times`.
Expected ringSum(const Tensors& t, float times) {
  std::vector<float> x = in(t, "in"), out(128, 0.0f);
  for (size_t c = 0; c < 128; ++c) {
    double sum = 0;
    for (size_t r = 0; r < 4; ++r) sum += x[r * 128 + c];
    out[c] = static_cast<float>(sum * times);
  }
  return {{"out", out}};
}

TEST_F(KtirExamples, RingReduce) {
  Sample s{"ring_reduce.mlir", {}, nullptr, [](const Tensors& t) { return ringSum(t, 1); }};
  s.atol = 1e-2;
  run(s);
}

TEST_F(KtirExamples, RingReduceInnerLoopWithTheTripCountAtLaunch) {
  Sample s{
      "ring_reduce_inner_loop.mlir", {}, nullptr, [](const Tensors& t) { return ringSum(t, 3); }};
  s.scalars = {{"n_iters", 3}};
  s.atol = 3e-2;
  run(s);
}

TEST_F(KtirExamples, RingReduceInnerLoopWithTheTripCountFixed) {
  Sample s{"ring_reduce_inner_loop.mlir", {"--const n_iters=5"}, nullptr, [](const Tensors& t) {
             return ringSum(t, 5);
           }};
  s.atol = 5e-2;
  run(s);
}

// ---- step 4: distributed views, gathers, pages ----------------------------------------

/// [A0 | A1] along `axis` (0: rows, 1: columns) of two [64, s0] halves.
Expected joined(const Tensors& t, int64_t s0, int axis) {
  std::vector<float> a0 = in(t, "a0"), a1 = in(t, "a1"), b;
  if (axis == 0) {
    b = a0;
    b.insert(b.end(), a1.begin(), a1.end());
  } else {
    for (int64_t r = 0; r < 64; ++r) {
      b.insert(b.end(), a0.begin() + r * s0, a0.begin() + (r + 1) * s0);
      b.insert(b.end(), a1.begin() + r * s0, a1.begin() + (r + 1) * s0);
    }
  }
  return {{"b", b}};
}

TEST_F(KtirExamples, DistributedViewCopyDynamicRoutedAtRunTime) {
  // s0 = 16: one 32-wide tile straddles both partitions; s0 = 32: two tiles, one each.
  for (int64_t s0 : {16, 32}) {
    Sample s{"distributed-view-copy-dynamic.mlir",
             {"--const s0_in=" + std::to_string(s0)},
             nullptr,
             [s0](const Tensors& t) { return joined(t, s0, 1); }};
    s.rtol = s.atol = 0;
    run(s);
  }
}

TEST_F(KtirExamples, DistributedViewCopyRowMergeDynamic) {
  for (int64_t s0 : {16, 32}) {
    Sample s{"distributed-view-copy-rowmerge-dynamic.mlir",
             {"--const s0_in=" + std::to_string(s0)},
             nullptr,
             [s0](const Tensors& t) { return joined(t, s0, 0); }};
    s.rtol = s.atol = 0;
    run(s);
  }
}

TEST_F(KtirExamples, DistributedViewCopyFromGlobalMemoryAndTwoScratchpadViews) {
  // A [192, 64]: rows 0..95 in global memory, 96..127 in tile 0's scratchpad view (column
  // major: element (r, c) at r + 64c), 128..191 in tile 1's; both tiles copy all of A to B.
  Sample s{"distributed-view-copy.mlir", {}, nullptr, [](const Tensors& t) {
             std::vector<float> b = in(t, "A_HBM"), lx0 = in(t, "A_LX0"), lx1 = in(t, "A_LX1");
             for (int r = 0; r < 32; ++r)
               for (int c = 0; c < 64; ++c) b.push_back(lx0[static_cast<size_t>(r + 64 * c)]);
             b.insert(b.end(), lx1.begin(), lx1.end());
             return Expected{{"B", b}};
           }};
  s.rtol = s.atol = 0;
  run(s);
}

/// Sets integer input `name` to uniform values in [0, bound).
void indices(Tensors& t, const std::string& name, int bound, uint64_t seed) {
  NpyArray& a = t.at(name);
  std::mt19937_64 rng(seed);
  for (size_t i = 0; i < a.elements(); ++i) {
    int32_t v = static_cast<int32_t>(rng() % static_cast<uint64_t>(bound));
    std::memcpy(a.data.data() + 4 * i, &v, 4);
  }
}

int32_t at32(const NpyArray& a, size_t i) {
  int32_t v;
  std::memcpy(&v, a.data.data() + 4 * i, 4);
  return v;
}

// The constant addresses of the two indirect samples count elements (docs/ktir.md), so
// their views overlap: X (f16 at 0) and Y (f16 at 192) are one tensor argument "X" of
// 67 x 64, IDX1 (i32 at 64) and IDX2 (i32 at 128) one argument "IDX1". The references
// model the same memory.

TEST_F(KtirExamples, IndirectAccessCopyGathersElements) {
  Sample s{"indirect-access-copy.mlir",
           {},
           [](Tensors& t) { indices(t, "IDX1", 64, 7); },
           [](const Tensors& t) {
             std::vector<float> x = in(t, "X"), out = x;
             const NpyArray& idx = t.at("IDX1");
             for (size_t m = 0; m < 64; ++m)
               for (size_t k = 0; k < 64; ++k) {
                 int32_t i1 = at32(idx, m * 64 + k), i2 = at32(idx, 64 + m * 64 + k);
                 out[192 + m * 64 + k] = x[static_cast<size_t>(i1 * 64 + i2)];
               }
             return Expected{{"X", out}};
           }};
  s.rtol = s.atol = 0;
  run(s);
}

TEST_F(KtirExamples, IndirectScatterWritesElementsInOrder) {
  Sample s{"indirect-scatter.mlir",
           {},
           [](Tensors& t) { indices(t, "IDX1", 64, 8); },
           [](const Tensors& t) {
             std::vector<float> x = in(t, "X"), out = x;
             const NpyArray& idx = t.at("IDX1");
             for (size_t m = 0; m < 64; ++m)
               for (size_t k = 0; k < 64; ++k) {
                 int32_t i1 = at32(idx, m * 64 + k), i2 = at32(idx, 64 + m * 64 + k);
                 out[192 + static_cast<size_t>(i1 * 64 + i2)] = x[m * 64 + k];
               }
             return Expected{{"X", out}};
           }};
  s.rtol = s.atol = 0;
  run(s);
}

/// 128 distinct pages out of 10000 for the [4, 32] page table, and random values in them.
void pages(Tensors& t, const std::string& pagesArg, bool fillPages, uint64_t seed) {
  NpyArray& idx = t.at("Idx");
  std::vector<int32_t> all(10000);
  for (int i = 0; i < 10000; ++i) all[static_cast<size_t>(i)] = i;
  std::shuffle(all.begin(), all.end(), std::mt19937_64(seed));
  std::memcpy(idx.data.data(), all.data(), 128 * 4);
  if (!fillPages) return;
  NpyArray& x = t.at(pagesArg);
  const size_t page = 8 * 64 * 128;
  for (size_t k = 0; k < 128; ++k) {
    NpyArray p = randomArray(DType::F16, {8, 64, 128}, seed + k);
    std::memcpy(x.data.data() + static_cast<size_t>(all[k]) * page * 2, p.data.data(), page * 2);
  }
}

TEST_F(KtirExamples, PagedTensorCopyGathersPagesInChunks) {
  // X [10000, 8, 64, 128] is 1.3 GB; the 16 MB tile is copied in scratchpad-sized chunks.
  Sample s{"paged-tensor-copy.mlir",
           {},
           [](Tensors& t) { pages(t, "X", true, 21); },
           [](const Tensors& t) {
             const NpyArray &x = t.at("X"), &idx = t.at("Idx");
             std::vector<float> y(4ull * 2048 * 8 * 128);
             std::vector<float> pageValues(8 * 64 * 128);
             for (size_t b = 0; b < 4; ++b)
               for (size_t p = 0; p < 32; ++p) {
                 size_t page = static_cast<size_t>(at32(idx, b * 32 + p));
                 decodeToFloat(DType::F16, x.data.data() + page * 8 * 64 * 128 * 2,
                               pageValues.data(), pageValues.size(), Fp16Format::Ieee);
                 for (size_t h = 0; h < 8; ++h)
                   for (size_t r = 0; r < 64; ++r)
                     for (size_t d = 0; d < 128; ++d)
                       y[((b * 2048 + p * 64 + r) * 8 + h) * 128 + d] =
                           pageValues[(h * 64 + r) * 128 + d];
               }
             return Expected{{"Y", y}};
           }};
  s.zeros = {"X"};
  s.rtol = s.atol = 0;
  run(s);
}

TEST_F(KtirExamples, PagedTensorWriteScattersPages) {
  // Y [10000, 8, 64, 128] (1.3 GB) is the output: compare bits page by page.
  Sample s{"paged-tensor-write.mlir", {}, [](Tensors& t) { pages(t, "Y", false, 22); }, nullptr};
  s.verify = [](const Tensors& in, const Tensors& out) {
    const NpyArray &idx = in.at("Idx"), &x = in.at("X"), &y = out.at("Y");
    auto bits = [](const NpyArray& a, size_t i) {
      uint16_t v;
      std::memcpy(&v, a.data.data() + 2 * i, 2);
      return v;
    };
    std::vector<bool> used(10000, false);
    size_t bad = 0;
    for (size_t b = 0; b < 4; ++b)
      for (size_t p = 0; p < 32; ++p) {
        size_t page = static_cast<size_t>(at32(idx, b * 32 + p));
        used[page] = true;
        for (size_t h = 0; h < 8; ++h)
          for (size_t r = 0; r < 64; ++r)
            for (size_t d = 0; d < 128; ++d)
              bad += bits(y, ((page * 8 + h) * 64 + r) * 128 + d) !=
                     bits(x, ((b * 2048 + p * 64 + r) * 8 + h) * 128 + d);
      }
    for (size_t page = 0; page < 10000; ++page)
      if (!used[page])
        for (size_t i = 0; i < 8 * 64 * 128; i += 97) bad += bits(y, page * 8 * 64 * 128 + i) != 0;
    EXPECT_EQ(bad, 0u) << "elements of Y that differ from the scattered pages";
  };
  run(s);
}

} // namespace
} // namespace chipless::test
