// The KTIR kernels of models/kernels compiled with spyre-compile and run on the emulated
// chip with a trace and stats: every output must match an fp32 reference computed here
// from the same inputs (within fp16 rounding), every core must show work in the trace, and
// the run must not beat its bounds (DRAM bytes / bandwidth, FLOPs / PT peak, ring bytes per
// link / link bandwidth). Each test prints a "KTIR-KERNEL" row: the table of docs/ktir.md.
#include "support/numerics.h"
#include "support/spyrecode/directory.h"
#include "tests/e2e/kernel_harness.h"
#include "tests/e2e/ktir_harness.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <iterator>
#include <random>

namespace chipless::test {
namespace {

namespace fs = std::filesystem;

fs::path kernelsDir() {
  return fs::path(CHIPLESS_SOURCE_DIR) / "models" / "kernels";
}

std::vector<float> in(const Tensors& t, const std::string& name) {
  return floats(t.at(name));
}

/// Replaces input `name` by normal values times `scale`.
void scaled(Tensors& t, const std::string& name, float scale, uint64_t seed) {
  NpyArray& a = t.at(name);
  a = randomArray(a.dtype, a.shape, seed, scale);
}

/// Writes `v` into f16 input `name`.
void setF16(Tensors& t, const std::string& name, const std::vector<float>& v) {
  NpyArray& a = t.at(name);
  ASSERT_EQ(a.elements(), v.size()) << name;
  encodeFromFloat(DType::F16, v.data(), a.data.data(), v.size(), Fp16Format::Ieee);
}

class KtirOpKernels : public ::testing::Test {
protected:
  void SetUp() override { work = testWorkDir(); }

  /// Compiles, runs (with a trace) and checks `c`; every one of `cores` cores must work,
  /// and the run must not beat its bounds.
  KtirRun run(KtirCase c, double flops, double ringBytesPerLink, int cores = 32) {
    c.trace = true;
    KtirRun r = runKtirCase(kernelsDir(), c, work);
    if (!r.ok) return r;
    expectEveryCoreBusy(r.traceJson, cores);
    expectWithinBounds(c.file, r, boundsOf(r, archWith(c.archOverrides), flops, ringBytesPerLink));
    return r;
  }

  fs::path work;
};

// ---- row-wise kernels -------------------------------------------------------------------

TEST_F(KtirOpKernels, SoftmaxRowsOverThirtyTwoCores) {
  KtirCase c{"softmax_rows.mlir",
             {},
             [](Tensors& t) { scaled(t, "X", 2.0f, 101); },
             [](const Tensors& t) {
               std::vector<float> x = in(t, "X"), y(x.size());
               for (size_t r = 0; r < 256; ++r) {
                 const float* row = x.data() + r * 1024;
                 double m = *std::max_element(row, row + 1024), sum = 0;
                 for (size_t i = 0; i < 1024; ++i) sum += std::exp(row[i] - m);
                 for (size_t i = 0; i < 1024; ++i)
                   y[r * 1024 + i] = static_cast<float>(std::exp(row[i] - m) / sum);
               }
               return Expected{{"Y", y}};
             }};
  // x - max is stored in fp16 (up to 14 * 2^-11 absolute error before exp), and so are
  // exp, the row sums and their reciprocals.
  c.rtol = 3e-2;
  c.atol = 1e-6;
  run(c, 0, 0);
}

/// (x - mean) * rsqrt(var + eps) * gamma + beta over rows of `n`.
std::vector<float> layerNorm(const std::vector<float>& x, const std::vector<float>& g,
                             const std::vector<float>& b, size_t n) {
  std::vector<float> y(x.size());
  for (size_t r = 0; r < x.size() / n; ++r) {
    const float* row = x.data() + r * n;
    double mean = 0, var = 0;
    for (size_t i = 0; i < n; ++i) mean += row[i];
    mean /= static_cast<double>(n);
    for (size_t i = 0; i < n; ++i) var += (row[i] - mean) * (row[i] - mean);
    var /= static_cast<double>(n);
    double rstd = 1 / std::sqrt(var + 1e-5);
    for (size_t i = 0; i < n; ++i)
      y[r * n + i] = static_cast<float>((row[i] - mean) * rstd * g[i] + (b.empty() ? 0 : b[i]));
  }
  return y;
}

TEST_F(KtirOpKernels, LayerNormWithBroadcastWeights) {
  KtirCase c{"layernorm.mlir",
             {},
             [](Tensors& t) {
               scaled(t, "X", 1.5f, 102);
               scaled(t, "beta", 0.5f, 103);
             },
             [](const Tensors& t) {
               return Expected{{"Y", layerNorm(in(t, "X"), in(t, "gamma"), in(t, "beta"), 1024)}};
             }};
  c.rtol = 2e-2;
  c.atol = 2e-2;
  // Tile 0 broadcasts gamma and beta (2 KB each) to 31 tiles down two chains, one per ring
  // direction: one copy of each over every link.
  run(c, 0, 2 * 2048);
}

TEST_F(KtirOpKernels, RmsNormWithABroadcastWeight) {
  KtirCase c{"rmsnorm.mlir",
             {},
             [](Tensors& t) { scaled(t, "X", 1.0f, 104); },
             [](const Tensors& t) {
               std::vector<float> x = in(t, "X"), w = in(t, "weight"), y(x.size());
               for (size_t r = 0; r < 128; ++r) {
                 double ss = 0;
                 for (size_t i = 0; i < 2048; ++i) ss += x[r * 2048 + i] * x[r * 2048 + i];
                 double rstd = 1 / std::sqrt(ss / 2048 + 1e-5);
                 for (size_t i = 0; i < 2048; ++i)
                   y[r * 2048 + i] = static_cast<float>(x[r * 2048 + i] * rstd * w[i]);
               }
               return Expected{{"Y", y}};
             }};
  c.rtol = 2e-2;
  c.atol = 2e-2;
  // Tile 0 broadcasts the 4 KB weight to 31 tiles down two chains: one copy per link.
  run(c, 0, 4096);
}

TEST_F(KtirOpKernels, RotaryEmbedding) {
  KtirCase c{"rope.mlir",
             {},
             [](Tensors& t) {
               // The real tables: angle s * 10000^(-i/64) for position s, frequency i.
               std::vector<float> cs(512 * 64), sn(512 * 64);
               for (size_t s = 0; s < 512; ++s)
                 for (size_t i = 0; i < 64; ++i) {
                   double angle = static_cast<double>(s) * std::pow(10000.0, -double(i) / 64);
                   cs[s * 64 + i] = static_cast<float>(std::cos(angle));
                   sn[s * 64 + i] = static_cast<float>(std::sin(angle));
                 }
               setF16(t, "cos", cs);
               setF16(t, "sin", sn);
             },
             [](const Tensors& t) {
               std::vector<float> x = in(t, "X"), cs = in(t, "cos"), sn = in(t, "sin");
               std::vector<float> y(x.size());
               for (size_t s = 0; s < 512; ++s)
                 for (size_t i = 0; i < 64; ++i) {
                   double x1 = x[s * 128 + i], x2 = x[s * 128 + 64 + i];
                   double c = cs[s * 64 + i], n = sn[s * 64 + i];
                   y[s * 128 + i] = static_cast<float>(x1 * c - x2 * n);
                   y[s * 128 + 64 + i] = static_cast<float>(x2 * c + x1 * n);
                 }
               return Expected{{"Y", y}};
             }};
  c.rtol = 1e-2;
  c.atol = 4e-3;
  run(c, 0, 0);
}

// ---- PT-array kernels ---------------------------------------------------------------------

TEST_F(KtirOpKernels, SwigluFfnWithReduceScatter) {
  KtirCase c{"swiglu_ffn.mlir",
             {},
             [](Tensors& t) {
               scaled(t, "Wg", 0.044f, 111);
               scaled(t, "Wu", 0.044f, 112);
               scaled(t, "Wd", 0.022f, 113);
             },
             [](const Tensors& t) {
               std::vector<float> x = in(t, "X"), wg = in(t, "Wg"), wu = in(t, "Wu"),
                                  wd = in(t, "Wd"), y(x.size());
               const size_t m = 64, d = 512, f = 2048;
               std::vector<double> h(m * f);
               for (size_t r = 0; r < m; ++r)
                 for (size_t j = 0; j < f; ++j) {
                   double g = 0, u = 0;
                   for (size_t i = 0; i < d; ++i) {
                     g += x[r * d + i] * wg[i * f + j];
                     u += x[r * d + i] * wu[i * f + j];
                   }
                   h[r * f + j] = g / (1 + std::exp(-g)) * u;
                 }
               for (size_t r = 0; r < m; ++r)
                 for (size_t i = 0; i < d; ++i) {
                   double o = 0;
                   for (size_t j = 0; j < f; ++j) o += h[r * f + j] * wd[j * d + i];
                   y[r * d + i] = static_cast<float>(x[r * d + i] + o);
                 }
               return Expected{{"Y", y}};
             }};
  c.rtol = 2e-2;
  c.atol = 1e-2;
  const double flops = 3.0 * 2 * 64 * 512 * 2048;
  // The reduce-scatter: each core sends 31/32 of its 64 x 512 partial over its link.
  run(c, flops, 31.0 / 32 * 64 * 512 * 2);
}

/// Sets input `mask` [256, 256] to the causal mask: 0 on and below the diagonal, -inf above.
void causalMask(Tensors& t) {
  std::vector<float> mask(256 * 256);
  for (size_t i = 0; i < 256; ++i)
    for (size_t j = 0; j < 256; ++j) mask[i * 256 + j] = j <= i ? 0.0f : -INFINITY;
  setF16(t, "mask", mask);
}

/// softmax(Q K^T / 8 + mask) V per head, for Q, V [heads, 256, 64] and KT [heads, 64, 256]
/// (or, with `keysAsRows`, K [heads, 256, 64], which the kernel transposes itself).
Expected attention(const Tensors& t, size_t heads, bool keysAsRows = false) {
  std::vector<float> q = in(t, "Q"), v = in(t, "V"), mask = in(t, "mask");
  std::vector<float> o(heads * 256 * 64);
  const size_t hs = 256 * 64;
  std::vector<float> kt(heads * hs);
  if (keysAsRows) {
    std::vector<float> k = in(t, "K");
    for (size_t h = 0; h < heads; ++h)
      for (size_t j = 0; j < 256; ++j)
        for (size_t d = 0; d < 64; ++d) kt[h * hs + d * 256 + j] = k[h * hs + j * 64 + d];
  } else {
    kt = in(t, "KT");
  }
  for (size_t h = 0; h < heads; ++h)
    for (size_t i = 0; i < 256; ++i) {
      std::vector<double> s(256);
      double mx = -INFINITY;
      for (size_t j = 0; j < 256; ++j) {
        double dot = 0;
        for (size_t k = 0; k < 64; ++k) dot += q[h * hs + i * 64 + k] * kt[h * hs + k * 256 + j];
        s[j] = dot / 8 + mask[i * 256 + j];
        mx = std::max(mx, s[j]);
      }
      double sum = 0;
      for (double& e : s) sum += (e = std::exp(e - mx));
      for (size_t k = 0; k < 64; ++k) {
        double acc = 0;
        for (size_t j = 0; j < 256; ++j) acc += s[j] / sum * v[h * hs + j * 64 + k];
        o[h * hs + i * 64 + k] = static_cast<float>(acc);
      }
    }
  return {{"O", o}};
}

TEST_F(KtirOpKernels, CausalAttentionOneHead) {
  KtirCase c{"attention.mlir", {}, causalMask, [](const Tensors& t) { return attention(t, 1); }};
  c.rtol = 2e-2;
  c.atol = 1e-2;
  run(c, 2.0 * 2 * 256 * 256 * 64, 0);
}

TEST_F(KtirOpKernels, CausalAttentionTransposingTheKeysInTheKernel) {
  KtirCase c{"attention_transpose.mlir", {}, causalMask, [](const Tensors& t) {
               return attention(t, 1, true);
             }};
  c.rtol = 2e-2;
  c.atol = 1e-2;
  KtirRun r = run(c, 2.0 * 2 * 256 * 256 * 64, 0);
  // K^T goes out to device memory and back one element per DMA run: every core reads at
  // least one stick per element of its 256 x 64 keys.
  if (r.ok) EXPECT_GE(r.stats.get("chip.dram.bytes"), 32.0 * 256 * 64 * 128);
}

TEST_F(KtirOpKernels, CompositeIntrinsicsSoftplusAndLayerNormScale) {
  // spyreop.softplus (beta 2, threshold 3; on tensors) and spyreop.layernormscale (in a
  // linalg.generic body) run as several SFU instructions each, every intermediate rounded
  // to f16: compared with fp32 math within f16 tolerances.
  KtirCase c{"intrinsics.mlir",
             {},
             [](Tensors& t) {
               scaled(t, "X", 2.0f, 11);
               // A mean of squares above the squared mean: a positive variance.
               std::vector<float> m = in(t, "M"), m2 = in(t, "M2");
               for (size_t i = 0; i < m.size(); ++i) m2[i] = m[i] * m[i] + 0.25f + std::fabs(m2[i]);
               setF16(t, "M2", m2);
             },
             [](const Tensors& t) {
               std::vector<float> x = in(t, "X"), m = in(t, "M"), m2 = in(t, "M2");
               std::vector<float> y(x.size()), s(m.size());
               for (size_t i = 0; i < x.size(); ++i)
                 y[i] = 2 * x[i] > 3 ? x[i] : std::log1p(std::exp(2 * x[i])) / 2;
               for (size_t i = 0; i < m.size(); ++i) s[i] = 1 / std::sqrt(m2[i] - m[i] * m[i]);
               return Expected{{"Y", y}, {"S", s}};
             }};
  c.rtol = 1e-2;
  c.atol = 1e-3;
  run(c, 0, 0);
}

// ---- data movement ----------------------------------------------------------------------

TEST_F(KtirOpKernels, TransposeTilesOfTwoTypesAndShapesThatAreNotWholeSticks) {
  KtirCase c{"transpose.mlir", {}, nullptr, [](const Tensors& t) {
               std::vector<float> x = in(t, "X"), h = in(t, "H");
               std::vector<float> y(40 * 768), ht(100 * 256);
               for (size_t i = 0; i < 768; ++i)
                 for (size_t j = 0; j < 40; ++j) y[j * 768 + i] = x[i * 40 + j] + 1.0f;
               for (size_t i = 0; i < 256; ++i)
                 for (size_t j = 0; j < 100; ++j) ht[j * 256 + i] = h[i * 100 + j];
               return Expected{{"Y", y}, {"HT", ht}};
             }};
  // A transpose only moves bytes (and Y adds 1 in fp32): the results are exact.
  c.rtol = 0;
  c.atol = 0;
  run(c, 0, 0);
}

TEST_F(KtirOpKernels, TransposeRankThreeTilesWithAnyPermutation) {
  // Per tile a 4 x 24 x 40 f16 block (rows of 80 bytes): [0, 2, 1] (per-head transpose),
  // [1, 0, 2] plus 1 (read back a row per DMA run) and [2, 0, 1].
  KtirCase c{"transpose3d.mlir", {}, nullptr, [](const Tensors& t) {
               std::vector<float> x = in(t, "X"), y(x.size()), z(x.size()), w(x.size());
               const size_t H = 4, R = 24, C = 40, tileElems = H * R * C;
               for (size_t tile = 0; tile < 32; ++tile)
                 for (size_t h = 0; h < H; ++h)
                   for (size_t r = 0; r < R; ++r)
                     for (size_t col = 0; col < C; ++col) {
                       const size_t base = tile * tileElems;
                       const float v = x[base + (h * R + r) * C + col];
                       y[base + (h * C + col) * R + r] = v;
                       z[base + (r * H + h) * C + col] = halfToFloat(floatToHalf(v + 1.0f));
                       w[base + (col * H + h) * R + r] = v;
                     }
               return Expected{{"Y", y}, {"Z", z}, {"W", w}};
             }};
  c.rtol = 0;
  c.atol = 0;
  KtirRun r = run(c, 0, 0);
  // Y and W come back one element per DMA run, each charged a stick of device memory;
  // Z one 80-byte row per run.
  if (r.ok) EXPECT_GE(r.stats.get("chip.dram.bytes"), 32.0 * (2 * 3840 * 128 + 96 * 128));
}

TEST_F(KtirOpKernels, CausalAttentionFourHeadsOnATwoDimensionalGridWithBroadcastKeys) {
  KtirCase c{
      "attention_mha.mlir", {}, causalMask, [](const Tensors& t) { return attention(t, 4); }};
  c.rtol = 2e-2;
  c.atol = 1e-2;
  // The first tile of each head broadcasts the head's KT and V (32 KB each) to the 7
  // tiles after it down one chain, pipelined in chunks: one copy of each over every link.
  KtirRun r = run(c, 4 * 2.0 * 2 * 256 * 256 * 64, 2 * 32768);
  // Each of the 8 tiles of a head sends the chunks on to the next (the last sends none):
  // the head's first tile 64 KB, its 6 relays 64 KB each, its last tile nothing.
  if (r.ok)
    for (int k = 0; k < 32; ++k)
      EXPECT_DOUBLE_EQ(r.stats.get("chip.core[" + std::to_string(k) + "].ring.bytes"),
                       k % 8 == 7 ? 0.0 : 2 * 32768.0)
          << "core " << k;
}

// ---- ring collectives -------------------------------------------------------------------

TEST_F(KtirOpKernels, RingAllReduceGivesEveryCoreTheSum) {
  KtirCase c{"ring_allreduce.mlir", {}, nullptr, [](const Tensors& t) {
               std::vector<float> p = in(t, "P"), y(p.size());
               const size_t n = 16 * 512;
               for (size_t i = 0; i < n; ++i) {
                 double sum = 0;
                 for (size_t k = 0; k < 32; ++k) sum += p[k * n + i];
                 for (size_t k = 0; k < 32; ++k) y[k * n + i] = static_cast<float>(sum);
               }
               return Expected{{"Y", y}};
             }};
  // 31 fp16 additions of values of about 1 on the way round the ring.
  c.rtol = 1e-2;
  c.atol = 2e-2;
  KtirRun r = run(c, 0, 2 * 31.0 / 32 * 16 * 512 * 2);
  if (!r.ok) return;
  // Every core's copy is the same bits (the all-gather half delivers one result).
  const NpyArray& y = r.outputs.at("Y");
  const size_t bytes = 16 * 512 * 2;
  for (size_t k = 1; k < 32; ++k)
    EXPECT_EQ(std::memcmp(y.data.data(), y.data.data() + k * bytes, bytes), 0) << "core " << k;
  // Each core's ring engine copies its partial into the exchange buffer, then sends 2 x 31
  // chunks of 1/32 of it.
  for (int k = 0; k < 32; ++k)
    EXPECT_DOUBLE_EQ(r.stats.get("chip.core[" + std::to_string(k) + "].ring.bytes"),
                     16 * 512 * 2 * (1 + 2 * 31.0 / 32))
        << "core " << k;
}

TEST_F(KtirOpKernels, RingReduceScatterGivesEachCoreItsRows) {
  KtirCase c{"ring_reduce_scatter.mlir", {}, nullptr, [](const Tensors& t) {
               std::vector<float> p = in(t, "P"), y(64 * 512);
               for (size_t i = 0; i < y.size(); ++i) {
                 double sum = 0;
                 for (size_t k = 0; k < 32; ++k) sum += p[k * y.size() + i];
                 y[i] = static_cast<float>(sum);
               }
               return Expected{{"Y", y}};
             }};
  c.rtol = 1e-2;
  c.atol = 2e-2;
  KtirRun r = run(c, 0, 31.0 / 32 * 64 * 512 * 2);
  if (!r.ok) return;
  // Half the traffic of an all-reduce: after copying its partial into the exchange buffer,
  // each core sends 31 slices of 2 rows.
  for (int k = 0; k < 32; ++k)
    EXPECT_DOUBLE_EQ(r.stats.get("chip.core[" + std::to_string(k) + "].ring.bytes"),
                     64 * 512 * 2 + 31.0 * 2 * 512 * 2)
        << "core " << k;
}

// ---- gathers and dynamic sizes ------------------------------------------------------------

TEST_F(KtirOpKernels, RingAllGatherAndGatherToOneTile) {
  KtirCase c{"ring_gather.mlir", {}, nullptr, [](const Tensors& t) {
               std::vector<float> x = in(t, "X"), z(x.size()), y;
               // Doubling is exact in fp16: every copy is the same bits as 2 X.
               for (size_t i = 0; i < x.size(); ++i) z[i] = 2.0f * x[i];
               for (size_t k = 0; k < 32; ++k) y.insert(y.end(), z.begin(), z.end());
               return Expected{{"Y", y}, {"Z", z}};
             }};
  c.rtol = 0;
  c.atol = 0;
  // All-gather: each core forwards 31 partials of 256 bytes to its successor. The gather to
  // tile 5 crosses at most the links of the shorter way round: fewer bytes per link.
  KtirRun r = run(c, 0, 31.0 * 256);
  if (!r.ok) return;
  // Core k's ring engine: its own partial into its slot of the all-gather, 31 forwarded
  // slots, and one more partial: tile 5 copies its own into its slot, every other tile
  // sends its to tile 5.
  for (int k = 0; k < 32; ++k)
    EXPECT_DOUBLE_EQ(r.stats.get("chip.core[" + std::to_string(k) + "].ring.bytes"),
                     (1 + 31 + 1) * 256.0)
        << "core " << k;
}

TEST_F(KtirOpKernels, RingRouteDeliversEachConsumerItsNamedProducer) {
  // Three inter_tile_consume exchanges with producer_dependency_per_consumer, back to back
  // in a loop over 4 slabs: a shift (t <- t + 1 mod 32), a reversal (t <- 31 - t) and a
  // fan-out from every fourth tile (t <- 4 floor(t / 4)). Tile u's rows are [2u, 2u + 2).
  KtirCase c{"ring_route.mlir", {}, nullptr, [](const Tensors& t) {
               std::vector<float> x = in(t, "X"), y(x.size()), z(x.size());
               const size_t slab = 64 * 64, rows = 2 * 64;
               auto reversed = [&](size_t s, size_t tile, size_t i) {
                 size_t from = (32 - tile) % 32; // shifted, then mirrored
                 return halfToFloat(floatToHalf(2.0f * x[s * slab + from * rows + i] + 1.0f));
               };
               for (size_t s = 0; s < 4; ++s)
                 for (size_t tile = 0; tile < 32; ++tile)
                   for (size_t i = 0; i < rows; ++i) {
                     y[s * slab + tile * rows + i] = reversed(s, tile, i);
                     z[s * slab + tile * rows + i] = reversed(s, tile / 4 * 4, i);
                   }
               return Expected{{"Y", y}, {"Z", z}};
             }};
  c.rtol = 0;
  c.atol = 0;
  KtirRun r = run(c, 0, 0);
  if (!r.ok) return;
  // Per slab every tile sends one partial in the shift and one in the reversal; a leader
  // sends three more in the fan-out, and keeps its own.
  for (int k = 0; k < 32; ++k) {
    const double sends = 4.0 * (k % 4 == 0 ? 5 : 2);
    EXPECT_DOUBLE_EQ(r.stats.get("chip.core[" + std::to_string(k) + "].ring.messages"), sends)
        << "core " << k;
    EXPECT_DOUBLE_EQ(r.stats.get("chip.core[" + std::to_string(k) + "].ring.bytes"), sends * 256)
        << "core " << k;
  }
}

TEST_F(KtirOpKernels, RingWindowFoldsEachConsumersOwnProducers) {
  // inter_tile_reduce with producer_dependency_per_consumer, every tile a consumer: S sums
  // the partials of tiles t - 1, t, t + 1 (a stencil across tiles); M is the max over the
  // other pair of t's quad, without t's own partial (its result starts as the identity);
  // G (inter_tile_gather with a dependency set) stacks the partials of t's quad.
  KtirCase c{"ring_window.mlir", {}, nullptr, [](const Tensors& t) {
               std::vector<float> x = in(t, "X"), sum(x.size(), 0.0f), max(x.size()), quad;
               const size_t rows = 2 * 64;
               for (size_t tile = 0; tile < 32; ++tile)
                 for (size_t i = 0; i < rows; ++i) {
                   for (int p = static_cast<int>(tile) - 1; p <= static_cast<int>(tile) + 1; ++p)
                     if (p >= 0 && p < 32) sum[tile * rows + i] += x[p * rows + i];
                   const size_t pair = (tile / 2) ^ 1;
                   max[tile * rows + i] =
                       std::max(x[2 * pair * rows + i], x[(2 * pair + 1) * rows + i]);
                 }
               for (size_t tile = 0; tile < 32; ++tile)
                 quad.insert(quad.end(), x.begin() + (tile / 4 * 4) * rows,
                             x.begin() + (tile / 4 * 4 + 4) * rows);
               return Expected{{"S", sum}, {"M", max}, {"G", quad}};
             }};
  // The sums are folded in fp16 as the partials arrive (two roundings); the max is exact.
  c.rtol = 2e-3;
  c.atol = 2e-3;
  KtirRun r = run(c, 0, 0);
  if (!r.ok) return;
  // Tile t adds its partial into each neighbour's sum (1 or 2 sends) and into both tiles
  // of the other pair of its quad (2 sends); its own partial is copied into its sum; for
  // G it copies its partial into its own slot and sends it to its 3 quad-mates.
  for (int k = 0; k < 32; ++k) {
    const double neighbours = (k == 0 || k == 31) ? 1 : 2;
    EXPECT_DOUBLE_EQ(r.stats.get("chip.core[" + std::to_string(k) + "].ring.messages"),
                     neighbours + 2 + 1 + 4)
        << "core " << k;
  }
}

TEST_F(KtirOpKernels, RingExchangesCompileAndRunDeterministically) {
  // Several cores add into one buffer as their data arrives (ring_window), exchanges
  // follow each other without a barrier (ring_route), broadcasts are relayed in chunks
  // (layernorm): the compiled program is the same bytes every time, and so are the
  // outputs, the statistics and the timeline of a run.
  auto bytes = [](const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  for (const char* kernel : {"ring_window.mlir", "ring_route.mlir", "layernorm.mlir"}) {
    KtirCase c{kernel, {}, nullptr, nullptr};
    c.verify = [](const Tensors&, const Tensors&) {}; // numbers: the tests above
    c.trace = true;
    ASSERT_TRUE(compileKtir(kernelsDir(), c, work / "a"));
    ASSERT_TRUE(compileKtir(kernelsDir(), c, work / "b"));
    for (const char* file : {"job.plan", "init.bin"})
      EXPECT_EQ(bytes(work / "a" / "job" / file), bytes(work / "b" / "job" / file))
          << kernel << ": " << file << " differs between two compilations";
    KtirRun first = launchKtir(c, work / "a"), second = launchKtir(c, work / "b");
    ASSERT_TRUE(first.ok && second.ok);
    EXPECT_EQ(first.cycles, second.cycles) << kernel;
    EXPECT_EQ(first.stats.toJson().dump(), second.stats.toJson().dump()) << kernel;
    EXPECT_EQ(first.traceJson, second.traceJson) << kernel;
    for (const auto& [name, array] : first.outputs)
      EXPECT_EQ(array.data, second.outputs.at(name).data) << kernel << ": output " << name;
  }
}

TEST_F(KtirOpKernels, RingScatterGivesEachTileItsRows) {
  KtirCase c{"ring_scatter.mlir", {}, nullptr, [](const Tensors& t) {
               std::vector<float> s = in(t, "S"), w(s.size());
               for (size_t i = 0; i < s.size(); ++i)
                 w[i] = decodeF16(encodeF16(s[i] + 1.0f, Fp16Format::Ieee), Fp16Format::Ieee);
               return Expected{{"W", w}};
             }};
  c.rtol = 0;
  c.atol = 0;
  KtirRun r = run(c, 0, 0);
  if (!r.ok) return;
  // Tile 3 sends 31 slices of 2 rows (256 bytes); nobody else sends.
  for (int k = 0; k < 32; ++k)
    EXPECT_DOUBLE_EQ(r.stats.get("chip.core[" + std::to_string(k) + "].ring.bytes"),
                     k == 3 ? 31 * 256.0 : 0.0)
        << "core " << k;
}

TEST_F(KtirOpKernels, RingAllToAllTransposesTheBlocksOverTheTiles) {
  KtirCase c{"ring_all_to_all.mlir", {}, nullptr, [](const Tensors& t) {
               std::vector<float> a = in(t, "A"), b(a.size());
               const size_t tile = 64 * 64, rows = 2 * 64;
               for (size_t k = 0; k < 32; ++k)   // sender
                 for (size_t l = 0; l < 32; ++l) // receiver
                   for (size_t i = 0; i < rows; ++i)
                     b[l * tile + k * rows + i] = a[k * tile + l * rows + i];
               return Expected{{"B", b}};
             }};
  c.rtol = 0;
  c.atol = 0;
  KtirRun r = run(c, 0, 0);
  if (!r.ok) return;
  // Every core: its own slice into its slot, then one 256-byte slice to each other core.
  for (int k = 0; k < 32; ++k)
    EXPECT_DOUBLE_EQ(r.stats.get("chip.core[" + std::to_string(k) + "].ring.bytes"), 32 * 256.0)
        << "core " << k;
}

TEST_F(KtirOpKernels, EmbeddingGatherThroughAnIndirectAccessTile) {
  KtirCase c{"embedding_gather.mlir",
             {},
             [](Tensors& t) {
               NpyArray& ids = t.at("ids");
               std::mt19937_64 rng(105);
               for (size_t i = 0; i < ids.elements(); ++i) {
                 int32_t v = static_cast<int32_t>(rng() % 4096);
                 std::memcpy(ids.data.data() + 4 * i, &v, 4);
               }
             },
             [](const Tensors& t) {
               std::vector<float> table = in(t, "table"), out(256 * 256);
               const NpyArray& ids = t.at("ids");
               for (size_t m = 0; m < 256; ++m) {
                 int32_t id;
                 std::memcpy(&id, ids.data.data() + 4 * m, 4);
                 std::copy_n(table.begin() + static_cast<long>(id) * 256, 256,
                             out.begin() + static_cast<long>(m) * 256);
               }
               return Expected{{"out", out}};
             }};
  c.rtol = c.atol = 0;
  run(c, 0, 0);
}

TEST_F(KtirOpKernels, DynamicLengthVectorAddRunsTwoLengthsWithOneProgram) {
  // Compiled once; n is bound at launch (--scalar n=...), and the inputs take its shape.
  KtirCase c{"vadd_dynamic.mlir", {}, nullptr, [](const Tensors& t) {
               std::vector<float> a = in(t, "A"), b = in(t, "B"), sum(a.size());
               for (size_t i = 0; i < a.size(); ++i) sum[i] = halfToFloat(floatToHalf(a[i] + b[i]));
               return Expected{{"C", sum}};
             }};
  c.rtol = c.atol = 0;
  c.trace = true;
  ASSERT_TRUE(compileKtir(kernelsDir(), c, work));
  spyrecode::Job job = spyrecode::readJob((work / "job" / "job.plan").string());
  for (const auto& a : job.plan.args) {
    ASSERT_EQ(a.shape.size(), 1u) << a.name;
    EXPECT_TRUE(std::holds_alternative<std::string>(a.shape[0])) << a.name << " is not [n]";
  }
  // 40 chunks of 4096: tiles 0..7 take two, the others one; 256 chunks: eight each.
  for (int64_t n : {40 * 4096, 256 * 4096}) {
    c.scalars = {{"n", n}};
    KtirRun r = launchKtir(c, work);
    if (!r.ok) return;
    EXPECT_EQ(r.outputs.at("C").elements(), static_cast<size_t>(n));
    expectEveryCoreBusy(r.traceJson, 32);
    // Two inputs read and one output written, once each.
    EXPECT_DOUBLE_EQ(r.stats.get("chip.dram.bytes"), 3.0 * 2 * static_cast<double>(n));
    expectWithinBounds("vadd_dynamic n=" + std::to_string(n), r, boundsOf(r, archWith(), 0, 0));
  }
}

TEST_F(KtirOpKernels, DynamicLengthOutsideTheRuntimeArgTypeIsRefusedAtLaunch) {
  // n: !ktdp.runtime_arg<index, granularity = 4096, upperbound = 4194304>. The program's
  // loop runs n / 4096 whole chunks and its footprint is planned for the upperbound, so
  // any other n would silently compute part of C: the plan carries the constraint and
  // the runtime refuses such n, whether given with --scalar or read off an input's shape.
  KtirCase c{"vadd_dynamic.mlir", {}, nullptr, nullptr};
  ASSERT_TRUE(compileKtir(kernelsDir(), c, work));
  const std::string plan = (work / "job" / "job.plan").string();
  spyrecode::Job job = spyrecode::readJob(plan);
  ASSERT_EQ(job.plan.scalars.size(), 1u);
  EXPECT_EQ(job.plan.scalars[0].multipleOf, 4096);
  EXPECT_EQ(job.plan.scalars[0].min, 0);
  EXPECT_EQ(job.plan.scalars[0].max, 4194304);

  const std::string sim = std::string(CHIPLESS_BINARY_DIR) + "/bin/spyre-sim run " + plan;
  const fs::path out = work / "c.npy";
  struct Refused {
    std::string args, message;
  };
  const std::string accepts = "(the program accepts multiples of 4096 from 0 to 4194304)";
  for (const Refused& r :
       {Refused{"--timing-only --scalar n=4100",
                "scalar 'n' of vadd_dynamic (from --scalar n) is 4100, not a multiple of 4096 " +
                    accepts},
        Refused{"--timing-only --scalar n=8392704",
                "scalar 'n' of vadd_dynamic (from --scalar n) is 8392704, above its maximum "
                "4194304 " +
                    accepts},
        Refused{"--timing-only --scalar n=-4096",
                "scalar 'n' of vadd_dynamic (from --scalar n) is -4096, below its minimum 0 " +
                    accepts}}) {
    int status = 0;
    std::string log = shell(sim + " " + r.args + " --output C=" + out.string(), status);
    EXPECT_EQ(status, 1) << r.args << "\n" << log;
    EXPECT_NE(log.find(r.message), std::string::npos) << r.args << "\n" << log;
    EXPECT_FALSE(fs::exists(out)) << r.args << " wrote " << out;
  }

  // Inputs of 5000 elements bind n = 5000 through the tensors' shape [n].
  Tensors in{{"A", randomArray(DType::F16, {5000}, 1)}, {"B", randomArray(DType::F16, {5000}, 2)}};
  for (const auto& [name, t] : in) writeNpy((work / (name + ".npy")).string(), t);
  int status = 0;
  std::string log = shell(sim + " --input A=" + (work / "A.npy").string() + " --input B=" +
                              (work / "B.npy").string() + " --output C=" + out.string(),
                          status);
  EXPECT_EQ(status, 1) << log;
  EXPECT_NE(log.find("scalar 'n' of vadd_dynamic (from input 'A' dimension 0) is 5000, not a "
                     "multiple of 4096"),
            std::string::npos)
      << log;
  EXPECT_FALSE(fs::exists(out));
}

} // namespace
} // namespace chipless::test
