/// Tests of the stick FIFO between corelet engines (counts, data order, push/pop times
/// recorded as runs) and of the per-core synchronisation token bank.
#include "sim/common/token_bank.h"
#include "sim/spyre/chip.h"
#include "sim/spyre/stream_fifo.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <vector>

namespace chipless::sim::spyre {
namespace {

constexpr int kStick = 128;

/// `count` sticks whose bytes all equal their global index (mod 256), from `first`.
std::vector<uint8_t> sticks(uint64_t first, uint64_t count) {
  std::vector<uint8_t> v(count * kStick);
  for (uint64_t s = 0; s < count; ++s)
    for (int b = 0; b < kStick; ++b)
      v[s * kStick + b] = static_cast<uint8_t>((first + s + b) & 0xFF);
  return v;
}

class StreamFifoTest : public ::testing::Test {
protected:
  // The FIFO owns a SystemC event: give each test a fresh kernel context.
  void SetUp() override { freshSimContext(); }
};

TEST_F(StreamFifoTest, CountsPushesAndPops) {
  StreamFifo f("test fifo", 16, 2, kStick, true);
  EXPECT_EQ(f.name(), "test fifo");
  EXPECT_EQ(f.depth(), 16);
  EXPECT_DOUBLE_EQ(f.latency(), 2);
  EXPECT_EQ(f.available(), 0u);
  f.push(5, 0, 4, sticks(0, 5).data());
  f.push(0, 9, 9, nullptr); // nothing
  EXPECT_EQ(f.pushed(), 5u);
  EXPECT_EQ(f.available(), 5u);
  f.pop(3, 10, 12, nullptr);
  EXPECT_EQ(f.popped(), 3u);
  EXPECT_EQ(f.available(), 2u);
  f.push(4, 20, 23, sticks(5, 4).data());
  f.pop(6, 30, 35, nullptr);
  EXPECT_EQ(f.pushed(), 9u);
  EXPECT_EQ(f.popped(), 9u);
  EXPECT_EQ(f.available(), 0u);
  f.clear();
  EXPECT_EQ(f.pushed(), 0u);
  EXPECT_EQ(f.popped(), 0u);
}

TEST_F(StreamFifoTest, DataComesOutInOrderAcrossRuns) {
  StreamFifo f("f", 16, 2, kStick, true);
  uint64_t pushed = 0, popped = 0;
  // Push and pop in pieces of different sizes so reads straddle push runs and the buffer
  // compacts along the way.
  const uint64_t pushSizes[] = {3, 1, 7, 2, 9, 4, 4, 11, 1, 6};
  const uint64_t popSizes[] = {2, 5, 1, 8, 3, 10, 6, 4, 9};
  size_t pi = 0;
  for (uint64_t p : pushSizes) {
    f.push(p, static_cast<Cycles>(pushed), static_cast<Cycles>(pushed + p - 1),
           sticks(pushed, p).data());
    pushed += p;
    while (pi < std::size(popSizes) && popSizes[pi] <= f.available()) {
      uint64_t n = popSizes[pi++];
      std::vector<uint8_t> out(n * kStick, 0xEE);
      f.pop(n, 100, 101, out.data());
      ASSERT_EQ(out, sticks(popped, n)) << "pop of " << n << " from " << popped;
      popped += n;
    }
  }
  EXPECT_EQ(pi, std::size(popSizes));
  EXPECT_EQ(f.available(), pushed - popped);
}

TEST_F(StreamFifoTest, InPlacePushesAndPopsMatchCopies) {
  // The engines write into reserve() and read from front(); mixed with copying pushes and
  // pops the data still comes out in order, across compaction and growth of the storage.
  StreamFifo f("f", 16, 2, kStick, true);
  uint64_t pushed = 0, popped = 0;
  const uint64_t pushSizes[] = {3, 1, 7, 2, 9, 4, 4, 11, 1, 6, 40};
  const uint64_t popSizes[] = {2, 5, 1, 8, 3, 10, 6, 4, 9, 30};
  size_t pi = 0;
  for (size_t i = 0; i < std::size(pushSizes); ++i) {
    const uint64_t p = pushSizes[i];
    const std::vector<uint8_t> data = sticks(pushed, p);
    if (i % 2 == 0) {
      uint8_t* at = f.reserve(p);
      std::copy(data.begin(), data.end(), at);
      f.push(p, 0, 1, at);
    } else {
      f.push(p, 0, 1, data.data());
    }
    pushed += p;
    while (pi < std::size(popSizes) && popSizes[pi] <= f.available()) {
      const uint64_t n = popSizes[pi++];
      std::vector<uint8_t> out(n * kStick);
      if (pi % 2 == 0) {
        const uint8_t* at = f.front();
        f.pop(n, 100, 101, nullptr);
        std::copy(at, at + n * kStick, out.begin()); // still readable until the next push
      } else {
        f.pop(n, 100, 101, out.data());
      }
      ASSERT_EQ(out, sticks(popped, n)) << "pop of " << n << " from " << popped;
      popped += n;
    }
  }
  EXPECT_EQ(pi, std::size(popSizes));
  EXPECT_EQ(f.available(), pushed - popped);
}

TEST_F(StreamFifoTest, WithoutStoredBytesOnlyCountsMove) {
  StreamFifo f("f", 4, 1, kStick, false);
  f.push(10, 0, 9, nullptr);
  std::vector<uint8_t> out(3 * kStick, 0x5A);
  f.pop(3, 5, 7, out.data()); // nothing is copied
  EXPECT_EQ(out, std::vector<uint8_t>(3 * kStick, 0x5A));
  EXPECT_EQ(f.available(), 7u);
  EXPECT_DOUBLE_EQ(f.readyTime(3), 4);
}

TEST_F(StreamFifoTest, ReadyTimeInterpolatesPushRuns) {
  StreamFifo f("f", 16, 2, kStick, false);
  f.push(5, 10, 18, nullptr); // sticks 0..4 pushed at 10, 12, 14, 16, 18
  f.push(1, 30, 30, nullptr); // stick 5 at 30
  f.push(3, 40, 41, nullptr); // sticks 6..8 at 40, 40.5, 41
  EXPECT_DOUBLE_EQ(f.readyTime(0), 12);
  EXPECT_DOUBLE_EQ(f.readyTime(1), 14);
  EXPECT_DOUBLE_EQ(f.readyTime(4), 20);
  EXPECT_DOUBLE_EQ(f.readyTime(5), 32);
  EXPECT_DOUBLE_EQ(f.readyTime(6), 42);
  EXPECT_DOUBLE_EQ(f.readyTime(7), 42.5);
  EXPECT_DOUBLE_EQ(f.readyTime(8), 43);
  // Popping part of a run keeps the times of the sticks still waiting.
  f.pop(3, 50, 52, nullptr);
  EXPECT_DOUBLE_EQ(f.readyTime(3), 18);
  EXPECT_DOUBLE_EQ(f.readyTime(4), 20);
  EXPECT_DOUBLE_EQ(f.readyTime(8), 43);
}

TEST_F(StreamFifoTest, PopTimeInterpolatesPopRuns) {
  StreamFifo f("f", 4, 0, kStick, false);
  f.push(20, 0, 19, nullptr);
  f.pop(4, 100, 106, nullptr); // sticks 0..3 at 100, 102, 104, 106
  f.pop(1, 110, 110, nullptr); // stick 4 at 110
  f.pop(2, 120, 121, nullptr); // sticks 5, 6 at 120, 121
  EXPECT_DOUBLE_EQ(f.popTime(0), 100);
  EXPECT_DOUBLE_EQ(f.popTime(2), 104);
  EXPECT_DOUBLE_EQ(f.popTime(3), 106);
  EXPECT_DOUBLE_EQ(f.popTime(4), 110);
  EXPECT_DOUBLE_EQ(f.popTime(5), 120);
  EXPECT_DOUBLE_EQ(f.popTime(6), 121);
  // Many more pops: the times a producer may still ask about (the last `depth` sticks
  // and more) stay available.
  for (int i = 0; i < 13; ++i) f.pop(1, 200 + i, 200 + i, nullptr);
  EXPECT_EQ(f.popped(), 20u);
  for (uint64_t s = 20 - 2 * 4; s < 20; ++s)
    EXPECT_DOUBLE_EQ(f.popTime(s), 200 + static_cast<double>(s - 7)) << s;
}

TEST_F(StreamFifoTest, ClearForgetsEverything) {
  StreamFifo f("f", 16, 2, kStick, true);
  f.push(5, 0, 4, sticks(0, 5).data());
  f.pop(2, 5, 6, nullptr);
  f.clear();
  EXPECT_EQ(f.available(), 0u);
  f.push(2, 50, 51, sticks(40, 2).data());
  EXPECT_DOUBLE_EQ(f.readyTime(0), 52);
  std::vector<uint8_t> out(2 * kStick);
  f.pop(2, 60, 61, out.data());
  EXPECT_EQ(out, sticks(40, 2));
  EXPECT_DOUBLE_EQ(f.popTime(1), 61);
}

// ---- tokens --------------------------------------------------------------------------

class TokenBankTest : public ::testing::Test {
protected:
  void SetUp() override { freshSimContext(); }
};

TEST_F(TokenBankTest, TakesTheEarliestTokenFirst) {
  TokenBank bank(4);
  EXPECT_EQ(bank.size(), 4);
  EXPECT_EQ(bank.pending(2), 0u);
  bank.send(2, 50);
  bank.send(2, 10);
  bank.send(2, 30);
  bank.send(2, 10);
  bank.send(1, 5);
  EXPECT_EQ(bank.pending(2), 4u);
  EXPECT_EQ(bank.pending(1), 1u);
  EXPECT_EQ(bank.pending(0), 0u);
  EXPECT_DOUBLE_EQ(bank.take(2), 10);
  EXPECT_DOUBLE_EQ(bank.take(2), 10);
  bank.send(2, 20); // arrives later in host order, earlier in simulated time
  EXPECT_DOUBLE_EQ(bank.take(2), 20);
  EXPECT_DOUBLE_EQ(bank.take(2), 30);
  EXPECT_DOUBLE_EQ(bank.take(2), 50);
  EXPECT_EQ(bank.pending(2), 0u);
  EXPECT_DOUBLE_EQ(bank.take(1), 5);
}

TEST_F(TokenBankTest, ClearDropsLeftoverTokens) {
  TokenBank bank(2);
  bank.send(0, 1);
  bank.send(1, 2);
  bank.send(1, 3);
  bank.clear();
  EXPECT_EQ(bank.size(), 2);
  EXPECT_EQ(bank.pending(0), 0u);
  EXPECT_EQ(bank.pending(1), 0u);
  bank.send(1, 7);
  EXPECT_DOUBLE_EQ(bank.take(1), 7);
}

} // namespace
} // namespace chipless::sim::spyre
