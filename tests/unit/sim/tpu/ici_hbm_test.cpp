/// The TPU interconnect and HBM pieces on their own: torus shapes for a chip count, the
/// collective ring (every chip once, single-link hops), dimension-ordered routes, and the
/// hashed HBM channel interleaving (every byte counted; strided streams spread).
#include "sim/tpu/hbm.h"
#include "sim/tpu/ici.h"
#include "tests/unit/util/tpu_test_util.h"

#include <gtest/gtest.h>
#include <numeric>
#include <set>

namespace chipless::sim::tpu {
namespace {

TpuArch arch(const std::vector<std::string>& overrides = {}, const std::string& gen = "v5e") {
  return test::tpuArch(overrides, gen);
}

TEST(Ici, DimensionsAreAsEqualAsTheChipCountAllows) {
  EXPECT_EQ(IciNetwork(arch(), 8).dims(), (std::vector<int>{4, 2}));
  EXPECT_EQ(IciNetwork(arch(), 16).dims(), (std::vector<int>{4, 4}));
  EXPECT_EQ(IciNetwork(arch(), 6).dims(), (std::vector<int>{3, 2}));
  EXPECT_EQ(IciNetwork(arch({}, "v4"), 8).dims(), (std::vector<int>{2, 2, 2}));
  EXPECT_EQ(IciNetwork(arch({}, "v4"), 12).dims(), (std::vector<int>{3, 2, 2}));
  EXPECT_EQ(IciNetwork(arch({"ici.topology=ring", "ici.links=2"}), 6).dims(),
            (std::vector<int>{6}));
  EXPECT_EQ(IciNetwork(arch(), 8).describe(), "4x2 torus2d");
  // One link per direction of every dimension longer than one.
  EXPECT_EQ(IciNetwork(arch(), 8).links().size(), 8u * 4);
  EXPECT_EQ(IciNetwork(arch(), 3).links().size(), 3u * 2);
  EXPECT_EQ(IciNetwork(arch(), 1).links().size(), 0u);
}

TEST(Ici, TheCollectiveRingVisitsEveryChipWithSingleLinkHops) {
  struct Case {
    std::vector<std::string> overrides;
    std::string gen;
    int chips;
  };
  for (const Case& c : std::vector<Case>{{{}, "v5e", 2},
                                         {{}, "v5e", 4},
                                         {{}, "v5e", 6},
                                         {{}, "v5e", 8},
                                         {{}, "v5e", 16},
                                         {{}, "v4", 8},
                                         {{}, "v4", 12},
                                         {{}, "v4", 64},
                                         {{"ici.topology=ring", "ici.links=2"}, "v5e", 7}}) {
    IciNetwork net(arch(c.overrides, c.gen), c.chips);
    const auto& ring = net.ringOrder();
    ASSERT_EQ(ring.size(), static_cast<size_t>(c.chips));
    EXPECT_EQ(std::set<int>(ring.begin(), ring.end()).size(), ring.size());
    for (int p = 0; p < c.chips; ++p) {
      int a = ring[p], b = ring[(p + 1) % c.chips];
      EXPECT_EQ(net.ringPosition(a), p);
      EXPECT_EQ(net.route(a, b).size(), 1u)
          << c.gen << " " << net.describe() << ": " << a << " -> " << b;
    }
  }
}

TEST(Ici, RoutesAreDimensionOrderedAndShortest) {
  IciNetwork net(arch(), 16);    // 4x4
  EXPECT_EQ(net.hops(0, 15), 2); // (0,0) -> (3,3): one step back in each dimension
  EXPECT_EQ(net.route(0, 15).size(), 2u);
  EXPECT_EQ(net.route(0, 15)[0]->name(), "ici 0>3 -x");
  EXPECT_EQ(net.route(0, 10).size(), 4u); // (0,0) -> (2,2)
  EXPECT_TRUE(net.route(5, 5).empty());
}

TEST(Hbm, SplitCountsEveryByteAndSpreadsStridedStreams) {
  TpuArch a = arch();
  Hbm hbm(a, 0);
  std::vector<double> per(hbm.channels(), 0.0);
  hbm.split(100, 1'000'000, per);
  EXPECT_EQ(std::accumulate(per.begin(), per.end(), 0.0), 1'000'000);
  // A column slice of a row-major bf16 matrix with 8 KiB rows: 256 bytes per row.
  std::fill(per.begin(), per.end(), 0.0);
  for (uint64_t r = 0; r < 4096; ++r) hbm.split(r * 8192, 256, per);
  double lo = *std::min_element(per.begin(), per.end());
  double hi = *std::max_element(per.begin(), per.end());
  EXPECT_GT(lo, 0) << "a channel is never used";
  EXPECT_LE(hi, 1.25 * lo) << "channels unevenly loaded: " << lo << ".." << hi;
  // Consecutive blocks visit every channel once per round.
  std::set<int> seen;
  for (uint64_t b = 0; b < static_cast<uint64_t>(hbm.channels()); ++b)
    seen.insert(hbm.channelOf(b + 48));
  EXPECT_EQ(seen.size(), static_cast<size_t>(hbm.channels()));
}

} // namespace
} // namespace chipless::sim::tpu
