// RangeAllocator: preferred placement, first fit with alignment, ranges reaching in from
// below the window, release, and a full window.
#include "runtime/range_allocator.h"

#include <gtest/gtest.h>

namespace chipless::runtime {
namespace {

TEST(RangeAllocator, PrefersTheAskedAddressWhenFreeAndAligned) {
  RangeAllocator r;
  EXPECT_EQ(r.place(0, 4096, 1024, 100, 128), 1024u);
  EXPECT_EQ(r.place(0, 4096, 1000, 100, 128), 0u) << "unaligned preference: first fit";
}

TEST(RangeAllocator, FirstFitSkipsTakenRangesAndAligns) {
  RangeAllocator r;
  r.claim(0, 100);
  r.claim(256, 128);
  EXPECT_EQ(r.place(0, 4096, 0, 128, 128), 128u);
  EXPECT_EQ(r.place(0, 4096, 0, 200, 128), 384u) << "does not fit between 128 and 256";
  r.release(256);
  EXPECT_EQ(r.place(0, 4096, 0, 200, 128), 128u);
}

TEST(RangeAllocator, ARangeFromBelowTheWindowIsRespected) {
  RangeAllocator r;
  r.claim(1000, 600); // reaches into the window [1024, 4096)
  EXPECT_EQ(r.place(1024, 4096, 1024, 64, 128), 1664u);
}

TEST(RangeAllocator, NothingFitsInAFullWindow) {
  RangeAllocator r;
  r.claim(0, 4000);
  EXPECT_FALSE(r.place(0, 4096, 0, 128, 128).has_value());
  EXPECT_FALSE(r.place(0, 4096, 0, 5000, 128).has_value());
}

} // namespace
} // namespace chipless::runtime
