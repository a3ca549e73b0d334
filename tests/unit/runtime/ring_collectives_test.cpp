/// spyre_dist's network (RingCollectives): every collective run as a program on an emulated
/// Spyre card whose ring joins one group of cores per rank; results against the host's
/// arithmetic for group sizes, element types and block sizes that do and do not fill the
/// card's cores, sticks and scratchpads; time that grows with the bytes moved; the division
/// of a block; and the errors a group can make.
#include "runtime/remote/ring_collectives.h"
#include "support/numerics.h"
#include "tests/unit/util/runtime_test_util.h"

#include <cstring>
#include <filesystem>
#include <gtest/gtest.h>
#include <map>
#include <random>

namespace chipless::runtime::test {
namespace {

using remote::CollectiveKind;
using remote::CollectiveResult;
using remote::RingCollectives;

/// Random f32 (or i32, f16) values of a fixed seed.
NpyArray values(DType dtype, std::vector<int64_t> shape, uint32_t seed) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  NpyArray a = makeNpy(dtype, shape);
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> small(-1000, 1000);
  for (int64_t i = 0; i < n; ++i) {
    if (dtype == DType::F32) {
      float v = small(rng) / 64.0f; // sums of these are exact in f32
      std::memcpy(a.data.data() + 4 * i, &v, 4);
    } else if (dtype == DType::I32) {
      int32_t v = small(rng) * 1000;
      std::memcpy(a.data.data() + 4 * i, &v, 4);
    } else {
      // Multiples of 1/16 below 16: sums of up to four stay below 64, exact in f16.
      uint16_t h = floatToHalf((small(rng) / 4) / 16.0f);
      std::memcpy(a.data.data() + 2 * i, &h, 2);
    }
  }
  return a;
}

double at(const NpyArray& a, int64_t i) {
  if (a.dtype == DType::F32) {
    float v;
    std::memcpy(&v, a.data.data() + 4 * i, 4);
    return v;
  }
  if (a.dtype == DType::I32) {
    int32_t v;
    std::memcpy(&v, a.data.data() + 4 * i, 4);
    return v;
  }
  uint16_t h;
  std::memcpy(&h, a.data.data() + 2 * i, 2);
  return halfToFloat(h);
}

int64_t count(const NpyArray& a) {
  return static_cast<int64_t>(a.data.size() / dtypeSize(a.dtype));
}

class RingCollectivesTest : public ::testing::Test {
protected:
  /// The test's ring on card `index` (each test its own cards: ctest runs them side by side),
  /// opened the first time with `overrides`.
  RingCollectives& ring(int index, const std::vector<std::string>& overrides = {}) {
    auto& service = services_[index];
    if (!service) {
      if (dir_.empty()) dir_ = workDir();
      std::string dir = dir_ + "/" + std::to_string(index);
      std::filesystem::create_directories(dir);
      service = std::make_unique<RingCollectives>(archWith(overrides).description, index, dir);
    }
    return *service;
  }
  std::vector<NpyArray> blocks(DType dtype, int n, std::vector<int64_t> shape) {
    std::vector<NpyArray> out;
    for (int r = 0; r < n; ++r) out.push_back(values(dtype, shape, 17 * r + 3));
    return out;
  }
  std::map<int, std::unique_ptr<RingCollectives>> services_;
  std::string dir_;
};

/// rank r's all-reduce: the element-wise sum.
void expectSum(const std::vector<NpyArray>& in, const NpyArray& out) {
  ASSERT_EQ(out.shape, in[0].shape);
  for (int64_t i = 0; i < count(out); ++i) {
    double sum = 0;
    for (const auto& b : in) sum += at(b, i);
    ASSERT_EQ(at(out, i), sum) << "element " << i;
  }
}

TEST_F(RingCollectivesTest, AllReduceSumsEveryElementForGroupsAndSizesThatDoNotFillTheCard) {
  for (int n : {2, 3, 4, 5, 7, 32})
    for (std::vector<int64_t> shape :
         std::vector<std::vector<int64_t>>{{1}, {7, 33}, {1000}, {300, 257}, {2, 3, 4}}) {
      if (n > 5 && shape.size() != 1) continue; // few cores per rank: the flat shapes suffice
      SCOPED_TRACE("ranks " + std::to_string(n) + ", " + std::to_string(shape[0]) + "...");
      auto in = blocks(DType::F32, n, shape);
      std::vector<CollectiveResult> out = ring(901).run(CollectiveKind::AllReduce, 0, in);
      ASSERT_EQ(out.size(), static_cast<size_t>(n));
      for (const auto& r : out) {
        expectSum(in, r.block);
        EXPECT_GT(r.cycles, 0);
        EXPECT_EQ(r.cycles, out[0].cycles);
      }
    }
}

TEST_F(RingCollectivesTest, TheRingSumsF16AndI32InTheirOwnType) {
  for (DType t : {DType::F16, DType::I32}) {
    auto in = blocks(t, 4, {129, 65});
    for (const auto& r : ring(902).run(CollectiveKind::AllReduce, 0, in)) {
      EXPECT_EQ(r.block.dtype, t);
      expectSum(in, r.block);
    }
  }
}

TEST_F(RingCollectivesTest, ReduceScatterGivesEachRankItsBlockOfTheSum) {
  const int n = 3;
  auto in = blocks(DType::F32, n, {n, 50, 9});
  auto out = ring(903).run(CollectiveKind::ReduceScatter, 0, in);
  for (int r = 0; r < n; ++r) {
    ASSERT_EQ(out[r].block.shape, (std::vector<int64_t>{50, 9}));
    for (int64_t i = 0; i < 450; ++i) {
      double sum = 0;
      for (const auto& b : in) sum += at(b, r * 450 + i);
      ASSERT_EQ(at(out[r].block, i), sum) << "rank " << r << " element " << i;
    }
  }
}

TEST_F(RingCollectivesTest, AllGatherBroadcastAndSendMoveTheBytesExactly) {
  const int n = 4;
  auto in = blocks(DType::F16, n, {3, 101}); // not whole 32-bit words: 303 halves
  auto gathered = ring(904).run(CollectiveKind::AllGather, 0, in);
  auto broadcast = ring(904).run(CollectiveKind::Broadcast, 2, in);
  for (int r = 0; r < n; ++r) {
    ASSERT_EQ(gathered[r].block.shape, (std::vector<int64_t>{n, 3, 101}));
    for (int q = 0; q < n; ++q)
      EXPECT_EQ(0, std::memcmp(gathered[r].block.data.data() + q * in[q].data.size(),
                               in[q].data.data(), in[q].data.size()))
          << "rank " << r << " block " << q;
    EXPECT_EQ(broadcast[r].block.data, in[2].data) << "rank " << r;
  }
  // Bit patterns that are not numbers cross a broadcast untouched (it sums raw integers).
  NpyArray odd = makeNpy(DType::F32, {3});
  const uint32_t bits[3] = {0x7fc00001u, 0x80000000u, 0xff800000u}; // NaN payload, -0, -inf
  std::memcpy(odd.data.data(), bits, 12);
  auto nans = ring(904).run(CollectiveKind::Broadcast, 1,
                            {makeNpy(DType::F32, {3}), odd, makeNpy(DType::F32, {3})});
  for (const auto& r : nans) EXPECT_EQ(r.block.data, odd.data);

  auto sent = ring(904).run(CollectiveKind::Send, 0, {in[1], in[3]});
  EXPECT_TRUE(sent[0].block.data.empty());
  EXPECT_EQ(sent[1].block.data, in[1].data);
  EXPECT_GT(sent[1].cycles, 0);
}

TEST_F(RingCollectivesTest, ABlockLargerThanTheScratchpadsRunsInRounds) {
  // 2 ranks x 16 cores x 8 KB of planning scratchpad each: 4 MB of f32 per rank needs rounds.
  RingCollectives& small = ring(905, {"scratchpad.bytes=262144", "scratchpad.reserved_bytes=0"});
  RingCollectives::Division d = small.divide(CollectiveKind::AllReduce, 2, 1 << 14);
  EXPECT_GT(d.rounds, 1);
  auto in = blocks(DType::F32, 2, {1 << 15, 17});
  for (const auto& r : small.run(CollectiveKind::AllReduce, 0, in)) expectSum(in, r.block);
  auto sent = small.run(CollectiveKind::Send, 0, in);
  EXPECT_EQ(sent[1].block.data, in[0].data);
}

TEST_F(RingCollectivesTest, BlocksOverACoresSpanRunInSlicesWithTheSameResults) {
  // A core addresses 64 KiB of a tensor here: rows of more are cut into slices, a launch
  // each. 160 KiB per rank (an all-gather's output row: 480 KiB; a reduce-scatter's input
  // row: 3 x 36 KiB).
  RingCollectives& narrow = ring(909, {"dram.core_span_bytes=65536"});
  RingCollectives& wide = ring(910);
  const int n = 3;
  const int64_t count = 40007, part = 9001;
  auto in = blocks(DType::F32, n, {count});
  auto scatterIn = blocks(DType::F32, n, {n, part});
  auto reduced = narrow.run(CollectiveKind::AllReduce, 0, in);
  auto gathered = narrow.run(CollectiveKind::AllGather, 0, in);
  auto sent = narrow.run(CollectiveKind::Send, 0, {in[0], in[1]});
  auto broadcast = narrow.run(CollectiveKind::Broadcast, 1, in);
  auto scattered = narrow.run(CollectiveKind::ReduceScatter, 0, scatterIn);
  for (int r = 0; r < n; ++r) {
    expectSum(in, reduced[r].block);
    ASSERT_EQ(gathered[r].block.shape, (std::vector<int64_t>{n, count}));
    for (int q = 0; q < n; ++q)
      EXPECT_EQ(0, std::memcmp(gathered[r].block.data.data() + q * in[q].data.size(),
                               in[q].data.data(), in[q].data.size()));
    EXPECT_EQ(broadcast[r].block.data, in[1].data);
    ASSERT_EQ(scattered[r].block.shape, (std::vector<int64_t>{part}));
    for (int64_t i = 0; i < part; ++i) {
      double sum = 0;
      for (const auto& b : scatterIn) sum += at(b, r * part + i);
      ASSERT_EQ(at(scattered[r].block, i), sum) << r << " " << i;
    }
  }
  EXPECT_EQ(sent[1].block.data, in[0].data);
  // Several launches, each with its fixed costs: more time than one launch of the same bytes.
  for (CollectiveKind k : {CollectiveKind::AllReduce, CollectiveKind::AllGather}) {
    double sliced = (k == CollectiveKind::AllReduce ? reduced : gathered)[0].cycles;
    EXPECT_GT(sliced, wide.run(k, 0, in)[0].cycles) << collectiveName(k);
  }
  EXPECT_GT(scattered[0].cycles, wide.run(CollectiveKind::ReduceScatter, 0, scatterIn)[0].cycles);
}

TEST_F(RingCollectivesTest, DividingADivisionsOwnSticksGivesItBack) {
  RingCollectives& r = ring(906);
  for (CollectiveKind k :
       {CollectiveKind::AllReduce, CollectiveKind::AllGather, CollectiveKind::Send})
    for (int n : {2, 3, 7, 32})
      for (int64_t sticks : {1, 2, 15, 16, 17, 1000, 12345, 1 << 20}) {
        if (k == CollectiveKind::Send && n != 2) continue;
        RingCollectives::Division d = r.divide(k, n, sticks);
        EXPECT_GE(d.sticks(), sticks);
        EXPECT_LE(d.cores * n, 32);
        RingCollectives::Division again = r.divide(k, n, d.sticks());
        EXPECT_EQ(again.cores, d.cores);
        EXPECT_EQ(again.chunk, d.chunk);
        EXPECT_EQ(again.rounds, d.rounds);
      }
}

TEST_F(RingCollectivesTest, MoreBytesTakeMoreModelledTimeAndRunsRepeatExactly) {
  auto small = ring(907).run(CollectiveKind::AllReduce, 0, blocks(DType::F32, 4, {1024}));
  auto large = ring(907).run(CollectiveKind::AllReduce, 0, blocks(DType::F32, 4, {1 << 18}));
  auto again = ring(907).run(CollectiveKind::AllReduce, 0, blocks(DType::F32, 4, {1 << 18}));
  EXPECT_GT(large[0].cycles, 10 * small[0].cycles);
  EXPECT_EQ(large[0].cycles, again[0].cycles);
  EXPECT_EQ(large[3].block.data, again[3].block.data);
  // The ring moves 2 (n-1)/n of a rank's MB each way; it cannot beat its links' bandwidth.
  const double bytes = 4.0 * (1 << 18);
  EXPECT_GT(large[0].cycles, bytes * 2 * 3 / 4 / (2 * 128));
}

TEST_F(RingCollectivesTest, ErrorsNameTheBackendAndWhatIsWrong) {
  auto in = blocks(DType::F32, 3, {4});
  in[2] = values(DType::F32, {5}, 1);
  EXPECT_CONTAINS(errorOf([&] { ring(908).run(CollectiveKind::AllReduce, 0, in); }),
                  "spyre_dist all_reduce: rank 2 gives a f32 block of another shape");
  NpyArray bf = makeNpy(DType::BF16, {4});
  EXPECT_CONTAINS(errorOf([&] {
                    ring(908).run(CollectiveKind::AllReduce, 0, {bf, bf});
                  }),
                  "spyre_dist all_reduce of bf16: the ring sums f16, f32 and i32");
  std::vector<NpyArray> many(33, makeNpy(DType::F32, {4}));
  EXPECT_CONTAINS(errorOf([&] { ring(908).run(CollectiveKind::Barrier, 0, many); }),
                  "a group of 33 ranks needs a core for each on the ring, and the card has 32");
}

} // namespace
} // namespace chipless::runtime::test
