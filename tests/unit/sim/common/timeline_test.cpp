/// Tests of the reservation timeline of a shared resource (Timeline) and of cut-through
/// reservation along a path of resources (reservePath).
#include "sim/common/timeline.h"
#include "sim/spyre/ring.h"

#include <gtest/gtest.h>
#include <random>
#include <vector>

namespace chipless::sim::spyre {
namespace {

TEST(Timeline, ReportsItsParameters) {
  Timeline t("ring cw 3>4", 16, 3);
  EXPECT_EQ(t.name(), "ring cw 3>4");
  EXPECT_DOUBLE_EQ(t.bytesPerCycle(), 16);
  EXPECT_DOUBLE_EQ(t.latency(), 3);
  EXPECT_DOUBLE_EQ(t.busyCycles(), 0);
  EXPECT_DOUBLE_EQ(t.bytes(), 0);
}

TEST(Timeline, BackToBackRequestsQueue) {
  Timeline t("t", 10, 0);
  EXPECT_DOUBLE_EQ(t.reserve(0, 100), 0);   // [0, 10)
  EXPECT_DOUBLE_EQ(t.reserve(0, 50), 10);   // [10, 15)
  EXPECT_DOUBLE_EQ(t.reserve(3, 10), 15);   // [15, 16)
  EXPECT_DOUBLE_EQ(t.reserve(16, 10), 16);  // starts exactly when the resource frees
  EXPECT_DOUBLE_EQ(t.reserve(40, 10), 40);  // idle resource: starts at once
  EXPECT_DOUBLE_EQ(t.reserve(40.5, 5), 41); // fractional durations
  EXPECT_DOUBLE_EQ(t.reserve(0, 5), 17);    // the gap [17, 40) takes a half-cycle request
}

TEST(Timeline, FillsGapsBeforeAFutureReservation) {
  Timeline t("t", 10, 0);
  EXPECT_DOUBLE_EQ(t.reserve(100, 100), 100); // [100, 110) booked for the future
  // The idle present is still usable.
  EXPECT_DOUBLE_EQ(t.reserve(20, 50), 20);  // [20, 25)
  EXPECT_DOUBLE_EQ(t.reserve(30, 200), 30); // [30, 50) fits before 100
  // 15 cycles do not fit in [90, 100): the request goes after the future reservation.
  EXPECT_DOUBLE_EQ(t.reserve(90, 150), 110);
  // Exactly 10 cycles fit in [90, 100).
  EXPECT_DOUBLE_EQ(t.reserve(90, 100), 90);
  // A request starting inside a busy interval moves to its end, then to the next gap
  // large enough: [50, 90) is free.
  EXPECT_DOUBLE_EQ(t.reserve(22, 300), 50); // [50, 80)
  EXPECT_DOUBLE_EQ(t.reserve(22, 100), 80); // [80, 90)
  // [25, 30) is the only gap between 20 and 125 (one byte takes 0.1 cycles).
  EXPECT_DOUBLE_EQ(t.reserve(20, 1), 25);
  EXPECT_DOUBLE_EQ(t.reserve(30, 1), 125);
  EXPECT_DOUBLE_EQ(t.reserve(0, 200), 0); // [0, 20) is still free
  EXPECT_DOUBLE_EQ(t.reserve(0, 1), 25.1);
}

TEST(Timeline, MergesTouchingIntervals) {
  Timeline t("t", 1, 0);
  EXPECT_DOUBLE_EQ(t.reserve(0, 10), 0);   // [0, 10)
  EXPECT_DOUBLE_EQ(t.reserve(20, 10), 20); // [20, 30)
  EXPECT_DOUBLE_EQ(t.reserve(10, 10), 10); // [10, 20) exactly fills the gap
  // [0, 30) behaves as one busy interval from every starting point inside it.
  for (double start : {0.0, 5.0, 10.0, 15.0, 19.5, 20.0, 29.0})
    EXPECT_DOUBLE_EQ(Timeline(t).reserve(start, 1), 30) << start;
  // Touching on the left only and on the right only.
  EXPECT_DOUBLE_EQ(t.reserve(40, 5), 40); // [40, 45)
  EXPECT_DOUBLE_EQ(t.reserve(35, 5), 35); // [35, 40) touches [40, 45) on its right
  EXPECT_DOUBLE_EQ(t.reserve(45, 5), 45); // [45, 50) touches [35, 45) on its left
  EXPECT_DOUBLE_EQ(t.reserve(30, 6), 50); // [30, 35) is only 5 long
  EXPECT_DOUBLE_EQ(t.reserve(30, 5), 30);
  EXPECT_DOUBLE_EQ(t.reserve(0, 1), 56);
}

TEST(Timeline, RandomRequestsNeverOverlap) {
  // Against a brute-force model: a busy flag per cycle (integer sizes and starts).
  std::mt19937 rng(7);
  Timeline t("t", 1, 0);
  std::vector<bool> busy(40000, false);
  for (int i = 0; i < 500; ++i) {
    int earliest = static_cast<int>(rng() % 10000), len = 1 + static_cast<int>(rng() % 40);
    int expect = earliest;
    while (true) {
      bool free = true;
      for (int c = expect; c < expect + len; ++c)
        if (busy[c]) {
          free = false;
          expect = c + 1;
          break;
        }
      if (free) break;
    }
    ASSERT_DOUBLE_EQ(t.reserve(earliest, len), expect) << "request " << i;
    for (int c = expect; c < expect + len; ++c) busy[c] = true;
  }
}

TEST(Timeline, ZeroBytesTakeNoTime) {
  Timeline t("t", 10, 0);
  t.reserve(0, 100);
  EXPECT_DOUBLE_EQ(t.reserve(5, 0), 5);
  EXPECT_DOUBLE_EQ(t.reserve(0, 10), 10);
}

TEST(Timeline, RetireForgetsOnlyFinishedReservations) {
  Timeline t("t", 10, 0);
  t.reserve(0, 100);  // [0, 10)
  t.reserve(20, 100); // [20, 30)
  t.retire(5);        // [0, 10) has not ended yet
  EXPECT_DOUBLE_EQ(Timeline(t).reserve(0, 10), 10);
  t.retire(10); // [0, 10) ended at 10: forgotten
  EXPECT_DOUBLE_EQ(Timeline(t).reserve(0, 10), 0);
  EXPECT_DOUBLE_EQ(Timeline(t).reserve(0, 250), 30); // [20, 30) is still there
  t.retire(1000);
  EXPECT_DOUBLE_EQ(t.reserve(20, 10), 20);
}

TEST(Timeline, CountsBusyCyclesAndBytes) {
  Timeline t("t", 4, 0);
  t.reserve(0, 40);
  t.reserve(0, 8);
  t.reserve(100, 2);
  EXPECT_DOUBLE_EQ(t.bytes(), 50);
  EXPECT_DOUBLE_EQ(t.busyCycles(), 12.5);
  t.resetCounters();
  EXPECT_DOUBLE_EQ(t.bytes(), 0);
  EXPECT_DOUBLE_EQ(t.busyCycles(), 0);
  // The reservations survive a counter reset.
  EXPECT_DOUBLE_EQ(t.reserve(0, 4), 12);
  EXPECT_DOUBLE_EQ(t.bytes(), 4);
  EXPECT_DOUBLE_EQ(t.busyCycles(), 1);
}

// ---- reservePath ---------------------------------------------------------------------

TEST(ReservePath, EmptyPathEndsAtOnce) {
  std::vector<Cycles> starts = {1, 2, 3};
  EXPECT_DOUBLE_EQ(reservePath(0, 7, 100, {}, &starts), 7);
  EXPECT_TRUE(starts.empty());
}

TEST(ReservePath, SmallTransferCostsTheSumOfLatencies) {
  Timeline a("a", 1000, 5), b("b", 1000, 3), c("c", 1000, 2);
  std::vector<Cycles> starts;
  Cycles end = reservePath(0, 10, 1, {&a, &b, &c}, &starts);
  EXPECT_NEAR(end, 10 + 5 + 3 + 2, 0.01);
  ASSERT_EQ(starts.size(), 3u);
  // The head enters each resource after the previous one's latency.
  EXPECT_DOUBLE_EQ(starts[0], 10);
  EXPECT_DOUBLE_EQ(starts[1], 15);
  EXPECT_DOUBLE_EQ(starts[2], 18);
}

TEST(ReservePath, LargeTransferIsLimitedByTheSlowestResource) {
  // bytes / slowest bandwidth + every latency, wherever the bottleneck sits.
  for (int slow = 0; slow < 3; ++slow) {
    std::vector<Timeline> r = {Timeline("r", 100, 5), Timeline("r", 100, 3), Timeline("r", 100, 2)};
    r[slow] = Timeline("r", 10, r[slow].latency());
    std::vector<Timeline*> path = {&r[0], &r[1], &r[2]};
    std::vector<Cycles> starts;
    EXPECT_DOUBLE_EQ(reservePath(0, 0, 1000, path, &starts), 1000.0 / 10 + 10) << slow;
    EXPECT_DOUBLE_EQ(starts[0], 0);
    EXPECT_DOUBLE_EQ(starts[1], 5);
    EXPECT_DOUBLE_EQ(starts[2], 8);
    for (size_t i = 0; i < path.size(); ++i)
      EXPECT_DOUBLE_EQ(path[i]->bytes(), 1000) << "resource " << i;
  }
}

TEST(ReservePath, WorkedExample) {
  Timeline r1("r1", 10, 5), r2("r2", 20, 3);
  std::vector<Cycles> starts;
  // r1 busy [0, 10), head reaches r2 at 5, r2 busy [5, 10); the tail leaves r1 at 10 and
  // still has both latencies to cross.
  EXPECT_DOUBLE_EQ(reservePath(0, 0, 100, {&r1, &r2}, &starts), 18);
  EXPECT_EQ(starts, (std::vector<Cycles>{0, 5}));
  EXPECT_DOUBLE_EQ(r1.busyCycles(), 10);
  EXPECT_DOUBLE_EQ(r2.busyCycles(), 5);
}

TEST(ReservePath, TwoTransfersContendForTheSameLinks) {
  Timeline r1("r1", 10, 5), r2("r2", 20, 3);
  std::vector<Cycles> first, second;
  Cycles end1 = reservePath(0, 0, 100, {&r1, &r2}, &first);
  Cycles end2 = reservePath(0, 0, 100, {&r1, &r2}, &second);
  EXPECT_DOUBLE_EQ(end1, 18);
  // The second waits for r1 ([10, 20)), then reaches r2 at 15 when it is free again.
  EXPECT_EQ(second, (std::vector<Cycles>{10, 15}));
  EXPECT_DOUBLE_EQ(end2, 28);
  // A third transfer on r2 only (entering at 0) finds r2 free during [0, 5).
  Cycles end3 = reservePath(0, 0, 100, {&r2}, &second);
  EXPECT_EQ(second, (std::vector<Cycles>{0}));
  EXPECT_DOUBLE_EQ(end3, 8);
  // ... and a fourth fills the gap [10, 15) between the first two.
  reservePath(0, 0, 100, {&r2}, &second);
  EXPECT_EQ(second, (std::vector<Cycles>{10}));
  reservePath(0, 0, 100, {&r2}, &second);
  EXPECT_EQ(second, (std::vector<Cycles>{20}));
}

TEST(ReservePath, SharedMiddleLinkDelaysOnlyTheOverlap) {
  // Two transfers from different sources share link m: the second starts at its source
  // at once but waits for m.
  Timeline a("a", 10, 1), b("b", 10, 1), m("m", 10, 1);
  std::vector<Cycles> s1, s2;
  EXPECT_DOUBLE_EQ(reservePath(0, 0, 100, {&a, &m}, &s1), 12);
  EXPECT_DOUBLE_EQ(reservePath(0, 0, 100, {&b, &m}, &s2), 22);
  EXPECT_EQ(s1, (std::vector<Cycles>{0, 1}));
  EXPECT_EQ(s2, (std::vector<Cycles>{0, 11}));
}

TEST(ReservePath, NowRetiresFinishedReservations) {
  Timeline r("r", 10, 0);
  reservePath(0, 0, 100, {&r});  // [0, 10)
  reservePath(0, 30, 100, {&r}); // [30, 40)
  std::vector<Cycles> starts;
  // At now = 12 the first reservation is over and forgotten, the second is kept.
  EXPECT_DOUBLE_EQ(reservePath(12, 12, 100, {&r}, &starts), 22);
  EXPECT_EQ(starts, (std::vector<Cycles>{12}));
  EXPECT_DOUBLE_EQ(reservePath(12, 25, 100, {&r}, &starts), 50);
  EXPECT_EQ(starts, (std::vector<Cycles>{40}));
}

} // namespace
} // namespace chipless::sim::spyre
