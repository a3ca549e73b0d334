// The kernel classes ktir-cpu's examples bring (bench/ktir-cpu/PEER.md), each from a kernel
// of our own of the same shape under tests/e2e/kernels, run end to end and checked against
// an fp32 reference: i64 index tensors, strided reduce groups written inline with `>=`.
#include "support/error.h"
#include "support/numerics.h"
#include "tests/e2e/kernel_harness.h"
#include "tests/e2e/ktir_harness.h"

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

} // namespace
} // namespace chipless::test
