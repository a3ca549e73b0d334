/// Tests of the ring topology (stop placement, hops, directions, paths) and of the DRAM
/// channel interleaving (Dram::split against a byte-by-byte count).
#include "sim/spyre/dram.h"
#include "sim/spyre/ring.h"
#include "support/spyre_arch.h"

#include <gtest/gtest.h>
#include <random>
#include <string>
#include <vector>

namespace chipless::sim::spyre {
namespace {

SpyreArch arch(const std::vector<std::string>& overrides = {}) {
  return SpyreArch::load(std::string(CHIPLESS_SOURCE_DIR) + "/models/hw/spyre.yaml", overrides);
}

TEST(Ring, ShippedChipInterleavesOneChannelPortAfterEveryFourCores) {
  SpyreArch a = arch();
  ASSERT_EQ(a.chip.cores, 32);
  ASSERT_EQ(a.dram.channels, 8);
  Ring ring(a);
  EXPECT_EQ(ring.stops(), 40);
  for (int c = 0; c < 32; ++c) {
    EXPECT_EQ(ring.coreStop(c), c + c / 4) << "core " << c;
    EXPECT_EQ(ring.stopName(ring.coreStop(c)), "core " + std::to_string(c));
  }
  for (int k = 0; k < 8; ++k) {
    EXPECT_EQ(ring.channelStop(k), 5 * k + 4) << "channel " << k;
    EXPECT_EQ(ring.stopName(ring.channelStop(k)), "dram " + std::to_string(k));
  }
}

/// Every stop is exactly one core or one channel, and between two consecutive channel
/// ports there are floor or ceil of cores/channels cores.
void expectEvenInterleave(int cores, int channels) {
  SCOPED_TRACE(std::to_string(cores) + " cores, " + std::to_string(channels) + " channels");
  Ring ring(
      arch({"chip.cores=" + std::to_string(cores), "dram.channels=" + std::to_string(channels)}));
  ASSERT_EQ(ring.stops(), cores + channels);
  std::vector<int> owner(static_cast<size_t>(ring.stops()), 0);
  for (int c = 0; c < cores; ++c) {
    ASSERT_GE(ring.coreStop(c), 0);
    ASSERT_LT(ring.coreStop(c), ring.stops());
    ++owner[static_cast<size_t>(ring.coreStop(c))];
    if (c > 0) {
      EXPECT_GT(ring.coreStop(c), ring.coreStop(c - 1));
    }
  }
  for (int k = 0; k < channels; ++k) {
    ASSERT_GE(ring.channelStop(k), 0);
    ASSERT_LT(ring.channelStop(k), ring.stops());
    ++owner[static_cast<size_t>(ring.channelStop(k))];
    if (k > 0) {
      EXPECT_GT(ring.channelStop(k), ring.channelStop(k - 1));
    }
  }
  for (int s = 0; s < ring.stops(); ++s)
    EXPECT_EQ(owner[static_cast<size_t>(s)], 1) << "stop " << s;
  if (channels <= cores) {
    const int lo = cores / channels, hi = (cores + channels - 1) / channels;
    int prev = ring.channelStop(channels - 1) - ring.stops();
    for (int k = 0; k < channels; ++k) {
      int between = ring.channelStop(k) - prev - 1;
      EXPECT_GE(between, lo) << "before channel " << k;
      EXPECT_LE(between, hi) << "before channel " << k;
      prev = ring.channelStop(k);
    }
  }
}

TEST(Ring, OtherShapesInterleaveEvenly) {
  expectEvenInterleave(32, 8);
  expectEvenInterleave(16, 8);
  expectEvenInterleave(6, 4);
  expectEvenInterleave(7, 3);
  expectEvenInterleave(2, 8);
  expectEvenInterleave(1, 1);
  expectEvenInterleave(5, 1);
}

TEST(Ring, HopsBothWays) {
  Ring ring(arch());
  const int n = ring.stops();
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b) {
      int cw = ring.hops(a, b, RingDir::Cw), ccw = ring.hops(a, b, RingDir::Ccw);
      ASSERT_GE(cw, 0);
      ASSERT_LT(cw, n);
      ASSERT_EQ(cw, ((b - a) % n + n) % n);
      ASSERT_EQ(ccw, ring.hops(b, a, RingDir::Cw));
      ASSERT_EQ(a == b ? 0 : n, cw + ccw) << a << "->" << b;
    }
  EXPECT_EQ(ring.hops(0, 1, RingDir::Cw), 1);
  EXPECT_EQ(ring.hops(0, 1, RingDir::Ccw), 39);
  EXPECT_EQ(ring.hops(38, 2, RingDir::Cw), 4);
  EXPECT_EQ(ring.hops(2, 38, RingDir::Ccw), 4);
}

TEST(Ring, ShortestDirectionPrefersClockwiseOnATie) {
  Ring ring(arch());
  EXPECT_EQ(ring.shortest(0, 1), RingDir::Cw);
  EXPECT_EQ(ring.shortest(1, 0), RingDir::Ccw);
  EXPECT_EQ(ring.shortest(0, 19), RingDir::Cw);
  EXPECT_EQ(ring.shortest(0, 20), RingDir::Cw); // 20 hops either way
  EXPECT_EQ(ring.shortest(20, 0), RingDir::Cw);
  EXPECT_EQ(ring.shortest(0, 21), RingDir::Ccw);
  EXPECT_EQ(ring.shortest(38, 2), RingDir::Cw);
  EXPECT_EQ(ring.shortest(2, 38), RingDir::Ccw);
  EXPECT_EQ(ring.shortest(5, 5), RingDir::Cw);
  // Never longer than half the ring.
  for (int a = 0; a < ring.stops(); ++a)
    for (int b = 0; b < ring.stops(); ++b)
      ASSERT_LE(ring.hops(a, b, ring.shortest(a, b)), ring.stops() / 2);
}

TEST(Ring, AppendPathListsTheLinksCrossed) {
  Ring ring(arch());
  std::vector<Timeline*> path;
  ring.appendPath(38, 2, RingDir::Cw, path);
  ASSERT_EQ(path.size(), 4u);
  int expect[] = {38, 39, 0, 1};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(path[i], &ring.link(expect[i], RingDir::Cw)) << i;

  // appendPath appends.
  ring.appendPath(2, 38, RingDir::Ccw, path);
  ASSERT_EQ(path.size(), 8u);
  int back[] = {2, 1, 0, 39};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(path[4 + i], &ring.link(back[i], RingDir::Ccw)) << i;

  // The two directions use different links.
  EXPECT_NE(&ring.link(3, RingDir::Cw), &ring.link(3, RingDir::Ccw));
  EXPECT_NE(&ring.link(3, RingDir::Cw), &ring.link(4, RingDir::Cw));

  // Length equals hops for every pair and direction; a -> a crosses nothing.
  for (int a = 0; a < ring.stops(); a += 3)
    for (int b = 0; b < ring.stops(); b += 2)
      for (RingDir d : {RingDir::Cw, RingDir::Ccw}) {
        std::vector<Timeline*> p;
        ring.appendPath(a, b, d, p);
        ASSERT_EQ(static_cast<int>(p.size()), ring.hops(a, b, d));
      }
}

TEST(Ring, LinksCarryTheRingBandwidthAndLatency) {
  SpyreArch a = arch({"ring.bytes_per_cycle=64", "ring.hop_latency_cycles=3"});
  Ring ring(a);
  for (int s = 0; s < ring.stops(); ++s)
    for (RingDir d : {RingDir::Cw, RingDir::Ccw}) {
      EXPECT_DOUBLE_EQ(ring.link(s, d).bytesPerCycle(), 64);
      EXPECT_DOUBLE_EQ(ring.link(s, d).latency(), 3);
    }
  ring.link(3, RingDir::Cw).reserve(0, 640);
  EXPECT_DOUBLE_EQ(ring.link(3, RingDir::Cw).busyCycles(), 10);
  ring.resetCounters();
  EXPECT_DOUBLE_EQ(ring.link(3, RingDir::Cw).busyCycles(), 0);
  EXPECT_DOUBLE_EQ(ring.link(3, RingDir::Cw).bytes(), 0);
}

TEST(Ring, LinkNames) {
  Ring ring(arch());
  EXPECT_EQ(ring.linkName(3, RingDir::Cw), "cw 3>4");
  EXPECT_EQ(ring.linkName(39, RingDir::Cw), "cw 39>0");
  EXPECT_EQ(ring.linkName(0, RingDir::Ccw), "ccw 0>39");
  EXPECT_EQ(ring.linkName(7, RingDir::Ccw), "ccw 7>6");
  // The links' timelines carry the same names for traces and statistics.
  EXPECT_EQ(ring.link(3, RingDir::Cw).name(), "ring cw 3>4");
  EXPECT_EQ(ring.link(0, RingDir::Ccw).name(), "ring ccw 0>39");
}

// ---- DRAM channels -------------------------------------------------------------------

/// Byte-by-byte count of the bytes of [addr, addr+len) each channel serves.
std::vector<double> bruteForce(uint64_t addr, uint64_t len, uint64_t interleave, int channels) {
  std::vector<double> out(static_cast<size_t>(channels), 0);
  for (uint64_t a = addr; a < addr + len; ++a) out[(a / interleave) % channels] += 1;
  return out;
}

void expectSplitMatches(const std::vector<std::string>& overrides, uint64_t maxLen, int cases,
                        uint64_t baseAddr) {
  SpyreArch a = arch(overrides);
  Dram dram(a);
  const uint64_t il = static_cast<uint64_t>(a.dram.interleave_bytes);
  const int n = a.dram.channels;
  ASSERT_EQ(dram.channels(), n);
  std::mt19937_64 rng(12345);
  for (int i = 0; i < cases; ++i) {
    // Mix aligned, stick-aligned and arbitrary starts and lengths.
    uint64_t addr = baseAddr + rng() % (il * n * 4);
    uint64_t len = rng() % (maxLen + 1);
    switch (i % 4) {
    case 0:
      addr -= addr % il;
      len -= len % il;
      break;
    case 1:
      addr -= addr % 128;
      len -= len % 128;
      break;
    default:
      break;
    }
    std::vector<double> got(static_cast<size_t>(n), 0.5); // split adds to what is there
    dram.split(addr, len, got);
    std::vector<double> want = bruteForce(addr, len, il, n);
    for (int c = 0; c < n; ++c)
      ASSERT_DOUBLE_EQ(got[c] - 0.5, want[c])
          << "addr " << addr << " len " << len << " channel " << c << " (interleave " << il << ", "
          << n << " channels)";
  }
}

TEST(Dram, SplitMatchesAByteByByteCount) {
  expectSplitMatches({}, 4096 * 8 * 3 + 5000, 300, 0); // several rounds over 8 channels
  expectSplitMatches({"dram.interleave_bytes=128"}, 128 * 8 * 5 + 300, 1000, 0);
  expectSplitMatches({"dram.interleave_bytes=256", "dram.channels=3"}, 256 * 3 * 6, 1000, 0);
  expectSplitMatches({"dram.interleave_bytes=128", "dram.channels=1"}, 2000, 200, 0);
  // Addresses in the SpyreCode segment (0x1C00000000) and beyond 32 bits.
  expectSplitMatches({"dram.interleave_bytes=128", "dram.channels=5"}, 128 * 5 * 4, 500,
                     0x1C00000000ull + 77);
}

TEST(Dram, SplitEdgeCases) {
  SpyreArch a = arch({"dram.interleave_bytes=128", "dram.channels=4"});
  Dram dram(a);
  auto split = [&](uint64_t addr, uint64_t len) {
    std::vector<double> v(4, 0);
    dram.split(addr, len, v);
    return v;
  };
  EXPECT_EQ(split(0, 0), (std::vector<double>{0, 0, 0, 0}));
  EXPECT_EQ(split(300, 0), (std::vector<double>{0, 0, 0, 0}));
  EXPECT_EQ(split(0, 128), (std::vector<double>{128, 0, 0, 0}));
  EXPECT_EQ(split(127, 2), (std::vector<double>{1, 1, 0, 0}));
  EXPECT_EQ(split(128 * 3, 256), (std::vector<double>{128, 0, 0, 128})); // wraps to channel 0
  EXPECT_EQ(split(0, 512 * 10), (std::vector<double>{1280, 1280, 1280, 1280}));
  EXPECT_EQ(split(64, 512 * 10), (std::vector<double>{1280, 1280, 1280, 1280}));
  EXPECT_EQ(split(64, 512 + 128), (std::vector<double>{192, 192, 128, 128}));
}

TEST(Dram, ChannelsShareTheBandwidthAndCarryTheLatency) {
  SpyreArch a = arch(
      {"dram.bandwidth_gb_s=400", "chip.clock_ghz=2", "dram.channels=4", "dram.latency_ns=50"});
  Dram dram(a);
  ASSERT_EQ(dram.channels(), 4);
  for (int c = 0; c < 4; ++c) {
    EXPECT_DOUBLE_EQ(dram.channel(c).bytesPerCycle(), 400.0 / 2 / 4);
    EXPECT_DOUBLE_EQ(dram.channel(c).latency(), 100);
  }
  EXPECT_EQ(dram.channel(2).name(), "dram 2");
  dram.channel(2).reserve(0, 500);
  EXPECT_DOUBLE_EQ(dram.channel(2).busyCycles(), 10);
  dram.resetCounters();
  EXPECT_DOUBLE_EQ(dram.channel(2).bytes(), 0);
}

} // namespace
} // namespace chipless::sim::spyre
