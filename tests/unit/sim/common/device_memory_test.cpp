/// Tests of the simulator's device memory: allocation overlaps, spans, reads and writes,
/// error messages and timing-only mode (regions without bytes).
#include "sim/common/device_memory.h"
#include "support/error.h"

#include <cstring>
#include <functional>
#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace chipless::sim::spyre {
namespace {

/// The message of the chipless::Error `f` throws ("" and a test failure if none).
std::string errorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a chipless::Error";
  return "";
}

#define EXPECT_CONTAINS(text, part)                                                                \
  EXPECT_NE(std::string(text).find(part), std::string::npos)                                       \
      << "expected \"" << (part) << "\" in: " << (text)

TEST(DeviceMemory, OverlappingAllocationsAreRejected) {
  DeviceMemory m;
  m.allocate(0x1000, 0x100, "a");
  m.allocate(0x1100, 0x100, "b"); // touching is fine
  m.allocate(0x0F00, 0x100, "c"); // touching on the other side too
  std::string e = errorOf([&] { m.allocate(0x1080, 0x10, "inside"); });
  EXPECT_CONTAINS(e, "'inside'");
  EXPECT_CONTAINS(e, "overlaps 'a'");
  EXPECT_CONTAINS(e, "0x1000");
  e = errorOf([&] { m.allocate(0x0E80, 0x100, "left"); }); // runs into c
  EXPECT_CONTAINS(e, "overlaps 'c'");
  e = errorOf([&] { m.allocate(0x11FF, 0x100, "right"); }); // starts in b's last byte
  EXPECT_CONTAINS(e, "overlaps 'b'");
  e = errorOf([&] { m.allocate(0x1000, 0x100, "same"); });
  EXPECT_CONTAINS(e, "overlaps 'a'");
  e = errorOf([&] { m.allocate(0x0, 0x10000, "around"); });
  EXPECT_CONTAINS(e, "overlaps");
  // Zero-sized allocations still occupy a byte.
  m.allocate(0x3000, 0, "empty");
  EXPECT_TRUE(m.contains(0x3000, 1));
  EXPECT_CONTAINS(errorOf([&] { m.allocate(0x3000, 4, "again"); }), "overlaps 'empty'");
  // After a release the space is free again.
  m.release(0x1000);
  m.allocate(0x1000, 0x100, "a2");
  m.release(0x5555); // no-op
}

TEST(DeviceMemory, SpansInsideOutsideAndStraddling) {
  DeviceMemory m;
  m.allocate(0x1000, 256, "a");
  m.allocate(0x1100, 256, "b");
  m.allocate(0x4000, 128, "c");
  uint8_t* a = m.span(0x1000, 256);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(m.span(0x1010, 16), a + 16);
  EXPECT_EQ(m.span(0x10FF, 1), a + 255);
  EXPECT_NE(m.span(0x1100, 256), nullptr);
  EXPECT_NE(m.span(0x1100, 256), a + 256); // separate regions have separate storage
  EXPECT_EQ(m.span(0x1000, 257), nullptr); // straddles a and b
  EXPECT_EQ(m.span(0x10F0, 32), nullptr);
  EXPECT_EQ(m.span(0x0FFF, 2), nullptr); // starts before a
  EXPECT_EQ(m.span(0x0, 1), nullptr);
  EXPECT_EQ(m.span(0x1200, 1), nullptr); // just past b
  EXPECT_EQ(m.span(0x4080, 1), nullptr);
  EXPECT_EQ(m.span(0x9000, 1), nullptr);          // past everything
  EXPECT_EQ(m.span(0x1010, UINT64_MAX), nullptr); // size wraps around
  EXPECT_TRUE(m.contains(0x1000, 256));
  EXPECT_TRUE(m.contains(0x4000, 128));
  EXPECT_FALSE(m.contains(0x1000, 512));
  EXPECT_FALSE(m.contains(0x4000, 129));
  // Fresh regions hold zeros.
  std::vector<uint8_t> zero(256, 0);
  EXPECT_EQ(std::memcmp(a, zero.data(), 256), 0);
}

TEST(DeviceMemory, WritesAndReadsRoundTrip) {
  DeviceMemory m;
  EXPECT_TRUE(m.storesBytes());
  m.allocate(0x1C00000000ull, 1024, "program");
  std::vector<uint8_t> in(100);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<uint8_t>(i * 7 + 1);
  m.write(0x1C00000000ull + 20, in.data(), in.size());
  std::vector<uint8_t> out(100, 0);
  m.read(0x1C00000000ull + 20, out.data(), out.size());
  EXPECT_EQ(in, out);
  EXPECT_EQ(m.span(0x1C00000000ull + 20, 1)[0], 1);
  // The write went to exactly those bytes.
  uint8_t before = 0xFF, after = 0xFF;
  m.read(0x1C00000000ull + 19, &before, 1);
  m.read(0x1C00000000ull + 120, &after, 1);
  EXPECT_EQ(before, 0);
  EXPECT_EQ(after, 0);
}

TEST(DeviceMemory, ReleasedLargeRegionsComeBackZero) {
  // A released large region's buffer serves the next allocation of its size: cleared again.
  DeviceMemory m;
  const uint64_t size = 4u << 20, base = 0x1000000;
  for (int launch = 0; launch < 3; ++launch) {
    m.allocate(base, size, "A");
    m.allocate(base + size, size, "B");
    for (uint64_t at : {base, base + size}) {
      const uint8_t* p = m.span(at, size);
      ASSERT_NE(p, nullptr);
      for (uint64_t i = 0; i < size; i += 4093) ASSERT_EQ(p[i], 0) << launch << " " << i;
      ASSERT_EQ(p[size - 1], 0);
    }
    std::vector<uint8_t> ones(size, 0xFF);
    m.write(base, ones.data(), size);
    m.write(base + size, ones.data(), size);
    m.release(base);
    m.release(base + size);
  }
}

TEST(DeviceMemory, AccessesOutsideEveryRegionNameTheAddressAndTheNeighbours) {
  DeviceMemory m;
  std::vector<uint8_t> buf(64);
  EXPECT_CONTAINS(errorOf([&] { m.read(0x40, buf.data(), 8); }), "nothing is allocated");
  m.allocate(0x1000, 256, "lhs");
  m.allocate(0x2000, 256, "rhs");
  std::string e = errorOf([&] { m.write(0x10F0, buf.data(), 32); });
  EXPECT_CONTAINS(e, "write of 32 bytes at 0x10F0");
  EXPECT_CONTAINS(e, "outside every allocation");
  EXPECT_CONTAINS(e, "'lhs' is 0x1000..0x1100");
  EXPECT_CONTAINS(e, "'rhs' starts at 0x2000");
  e = errorOf([&] { m.read(0x3000, buf.data(), 8); });
  EXPECT_CONTAINS(e, "read of 8 bytes at 0x3000");
  EXPECT_CONTAINS(e, "'rhs' is 0x2000..0x2100");
  e = errorOf([&] { m.read(0x10, buf.data(), 8); });
  EXPECT_CONTAINS(e, "'lhs' starts at 0x1000");
  // A failed write changes nothing.
  std::vector<uint8_t> ones(300, 1);
  errorOf([&] { m.write(0x1000, ones.data(), ones.size()); });
  EXPECT_EQ(m.span(0x1000, 1)[0], 0);
}

TEST(DeviceMemory, TimingOnlyModeChecksAddressesWithoutStoringBytes) {
  DeviceMemory m(false);
  EXPECT_FALSE(m.storesBytes());
  // A huge region costs no host memory.
  m.allocate(0, 16ull << 30, "big");
  m.allocate(16ull << 30, 128, "small");
  EXPECT_NE(m.span(0, 16ull << 30), nullptr);
  EXPECT_NE(m.span(12345, 1000), nullptr);
  EXPECT_EQ(m.span((16ull << 30) + 64, 128), nullptr);
  EXPECT_EQ(m.span(1ull << 40, 1), nullptr);
  std::vector<uint8_t> buf(16, 0xAB);
  m.write(100, buf.data(), buf.size()); // accepted, not stored
  m.read(100, buf.data(), buf.size());  // reads back zeros
  EXPECT_EQ(buf, std::vector<uint8_t>(16, 0));
  EXPECT_CONTAINS(errorOf([&] { m.read(1ull << 40, buf.data(), 4); }), "outside every allocation");
  EXPECT_CONTAINS(errorOf([&] { m.write(1ull << 40, buf.data(), 4); }), "outside every allocation");
  EXPECT_CONTAINS(errorOf([&] { m.allocate(100, 8, "x"); }), "overlaps 'big'");
}

} // namespace
} // namespace chipless::sim::spyre
