/// Tests of device handles: exclusive ownership through lock files and the allocator over
/// the job address space (alignment, first fit, segment limits).
#include "tests/unit/util/runtime_test_util.h"

#include <cstdlib>
#include <unistd.h>

namespace chipless::runtime {
namespace {

using namespace test;

TEST(Device, OpeningTheSameDeviceTwiceFailsNamingTheOwner) {
  SpyreArch arch = smallArch();
  auto first = openDevice(arch);
  const int index = first->index();
  ASSERT_GE(index, 0);
  std::string e = errorOf([&] { SpyreDevice::open(arch, DeviceOptions{index, false}); });
  EXPECT_CONTAINS(e, "spyre:" + std::to_string(index));
  EXPECT_CONTAINS(e, "already open");
  EXPECT_CONTAINS(e, "pid " + std::to_string(::getpid()));
  EXPECT_CONTAINS(e, "chipless-spyre-" + std::to_string(index) + ".lock");
}

TEST(Device, OpenAnyPicksAnotherFreeDevice) {
  SpyreArch arch = smallArch();
  auto first = openDevice(arch);
  auto second = openDevice(arch, true);
  EXPECT_NE(first->index(), second->index());
  EXPECT_FALSE(first->timingOnly());
  EXPECT_TRUE(second->timingOnly());
  EXPECT_EQ(second->spyreArch().chip.cores, 2);
}

TEST(Device, ReopeningAfterCloseWorks) {
  // Other test processes may open devices at the same time (ctest -j) and take the index
  // between our close and reopen; only a failure naming this process would be a bug.
  SpyreArch arch = smallArch();
  const std::string me = "pid " + std::to_string(::getpid()) + ",";
  int reopened = 0;
  for (int attempt = 0; attempt < 20 && reopened < 2; ++attempt) {
    auto device = openDevice(arch);
    const int index = device->index();
    device.reset();
    try {
      auto again = SpyreDevice::open(arch, DeviceOptions{index, attempt % 2 == 1});
      EXPECT_EQ(again->index(), index);
      ++reopened;
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()).find(me), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(reopened, 2);
}

TEST(Device, LocksLiveInTheLockDirectory) {
  const char* dir = std::getenv("CHIPLESS_LOCK_DIR");
  if (!dir) GTEST_SKIP() << "CHIPLESS_LOCK_DIR is not set (ctest sets it)";
  auto device = openDevice(smallArch());
  std::string path =
      std::string(dir) + "/chipless-spyre-" + std::to_string(device->index()) + ".lock";
  EXPECT_EQ(::access(path.c_str(), F_OK), 0) << path;
}

TEST(Allocator, FirstFitWithAlignment) {
  auto device = openDevice(smallArch());
  SpyreDevice& d = *device;
  const uint64_t base = d.segmentBase(1);
  EXPECT_EQ(base, 16ull << 30);
  uint64_t a = d.allocate(1, 100, "a");
  uint64_t b = d.allocate(1, 1, "b");
  uint64_t c = d.allocate(1, 300, "c");
  EXPECT_EQ(a, base);
  EXPECT_EQ(b, base + 128); // rounded up to the 128-byte alignment
  EXPECT_EQ(c, base + 256);
  // A freed hole is reused by the first request that fits; larger ones go past it.
  d.release(b);
  EXPECT_EQ(d.allocate(1, 200, "too big for the hole"), base + 256 + 384);
  EXPECT_EQ(d.allocate(1, 128, "fits the hole"), base + 128);
  d.release(a);
  EXPECT_EQ(d.allocate(1, 64, "d"), base);
  // Segments are independent.
  EXPECT_EQ(d.allocate(0, 10, "seg0"), 0u);
  EXPECT_EQ(d.allocate(2, 10, "seg2"), d.segmentBase(2));
  // Allocations are real device memory.
  EXPECT_TRUE(d.memory().contains(base + 256, 300));
  EXPECT_FALSE(d.memory().contains(base + 256, 301));
}

TEST(Allocator, LargerAlignment) {
  auto device = openDevice(smallArch({"memory.alignment_bytes=4096"}));
  uint64_t prev = device->allocate(0, 1, "first");
  EXPECT_EQ(prev % 4096, 0u);
  for (int i = 0; i < 5; ++i) {
    uint64_t p = device->allocate(0, static_cast<uint64_t>(1000 * i + 1), "x" + std::to_string(i));
    EXPECT_EQ(p % 4096, 0u);
    EXPECT_GT(p, prev);
    prev = p;
  }
  std::string e = errorOf([&] { device->allocateAt(4096 * 100 + 128, 16, "odd"); });
  EXPECT_CONTAINS(e, "'odd'");
  EXPECT_CONTAINS(e, "not aligned to 4096");
}

TEST(Allocator, SegmentOverflowIsAnError) {
  // Timing-only: regions hold no bytes, so whole 16 GB segments cost nothing.
  SpyreArch arch = smallArch();
  auto device = openDevice(arch, true);
  const uint64_t seg = static_cast<uint64_t>(arch.memory.segment_bytes);
  std::string e = errorOf([&] { device->allocate(3, seg + 1, "huge"); });
  EXPECT_CONTAINS(e, "no room for 'huge'");
  EXPECT_CONTAINS(e, "segment 3");
  // Exactly a segment fits; then nothing else does.
  EXPECT_EQ(device->allocate(3, seg, "whole"), device->segmentBase(3));
  EXPECT_CONTAINS(errorOf([&] { device->allocate(3, 1, "one more"); }), "no room for 'one more'");
  // The neighbouring segments are untouched.
  EXPECT_EQ(device->allocate(4, 1, "next"), device->segmentBase(4));
  EXPECT_EQ(device->allocate(2, seg - 128, "below"), device->segmentBase(2));
  // The tail of a segment: a request that does not fit behind the last allocation.
  EXPECT_CONTAINS(errorOf([&] { device->allocate(2, 256, "tail"); }), "no room");
  EXPECT_EQ(device->allocate(2, 128, "last stick"), device->segmentBase(2) + seg - 128);
  // Claims beyond the address space.
  std::string beyond =
      errorOf([&] { device->allocateAt(device->segmentBase(7) + seg - 128, 256, "x"); });
  EXPECT_CONTAINS(beyond, "ends beyond the 8 segments");
  // Overlapping claims are refused by device memory.
  EXPECT_CONTAINS(errorOf([&] { device->allocateAt(device->segmentBase(3) + 128, 128, "dup"); }),
                  "overlaps 'whole'");
}

} // namespace
} // namespace chipless::runtime
