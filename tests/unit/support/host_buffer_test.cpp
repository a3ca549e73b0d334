// Tests for support/host_buffer.h: zero-filled buffers of every size class, moves, and
// resizeHuge keeping what a vector holds.
#include "support/host_buffer.h"

#include <gtest/gtest.h>
#include <utility>
#include <vector>

namespace chipless {
namespace {

/// True if every byte of [p, p + n) is zero.
bool allZero(const uint8_t* p, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (p[i] != 0) return false;
  return true;
}

TEST(HostBuffer, ZeroedBuffersOfEverySizeAreZeroAndWritable) {
  for (size_t size : {size_t(1), size_t(4096), size_t(2) << 20, (size_t(5) << 20) + 7}) {
    ZeroedBuffer b(size);
    ASSERT_NE(b.data(), nullptr);
    EXPECT_EQ(b.size(), size);
    EXPECT_TRUE(allZero(b.data(), size)) << size;
    b.data()[0] = 1;
    b.data()[size - 1] = 2;
    EXPECT_EQ(b.data()[size - 1], 2);
  }
  ZeroedBuffer empty(0);
  EXPECT_EQ(empty.data(), nullptr);
  EXPECT_EQ(empty.size(), 0u);
}

TEST(HostBuffer, MovesTransferOwnership) {
  ZeroedBuffer a(3u << 20);
  a.data()[5] = 9;
  uint8_t* p = a.data();
  ZeroedBuffer b(std::move(a));
  EXPECT_EQ(b.data(), p);
  EXPECT_EQ(b.data()[5], 9);
  EXPECT_EQ(a.data(), nullptr);
  ZeroedBuffer c(16);
  c = std::move(b);
  EXPECT_EQ(c.data(), p);
  EXPECT_EQ(c.size(), 3u << 20);
}

TEST(HostBuffer, ResizeHugeKeepsContentsAndZeroFills) {
  std::vector<uint8_t> v{1, 2, 3};
  resizeHuge(v, 4u << 20);
  ASSERT_EQ(v.size(), 4u << 20);
  EXPECT_EQ(v[0], 1);
  EXPECT_EQ(v[2], 3);
  EXPECT_TRUE(allZero(v.data() + 3, v.size() - 3));
  resizeHuge(v, 2);
  EXPECT_EQ(v.size(), 2u);
  EXPECT_EQ(v[1], 2);
}

} // namespace
} // namespace chipless
