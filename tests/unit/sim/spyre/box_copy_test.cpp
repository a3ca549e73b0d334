/// Tests of gatherBox / scatterBox (sim/spyre/corelet_engine.h), the load and store units'
/// stick copies in runs, against a stick-by-stick copy: contiguous and strided boxes,
/// dimensions of one, repeated and overlapping addresses, every piece of the stream.
#include "sim/spyre/corelet_engine.h"

#include <cstring>
#include <gtest/gtest.h>
#include <vector>

namespace chipless::sim::spyre {
namespace {

constexpr int64_t kStick = 128;

struct Box {
  int64_t base;
  int64_t n[3];
  int64_t s[3];
};

/// Boxes the load and store units see: rows of sticks, tiles, strided and broadcast boxes.
std::vector<Box> boxes() {
  return {
      {0, {16, 1, 1}, {kStick, 0, 0}},                   // one contiguous row
      {256, {1, 64, 1}, {0, kStick, 0}},                 // n0 = 1, contiguous in dimension 1
      {0, {4, 3, 2}, {kStick, 4 * kStick, 12 * kStick}}, // all three contiguous
      {0, {4, 3, 2}, {kStick, 8 * kStick, 24 * kStick}}, // gaps between rows
      {kStick, {3, 5, 1}, {2 * kStick, kStick, 0}},      // strided inner dimension
      {0, {5, 2, 1}, {0, kStick, 0}},                    // the same stick five times
      {8 * kStick, {4, 2, 1}, {-kStick, 4 * kStick, 0}}, // backwards
      {0, {4, 4, 1}, {kStick, 2 * kStick, 0}},           // rows overlapping by half
  };
}

TEST(BoxCopy, RunsMatchStickByStickCopies) {
  const int64_t padBytes = 128 * kStick; // every box below lies inside
  std::vector<uint8_t> pad(static_cast<size_t>(padBytes));
  for (size_t i = 0; i < pad.size(); ++i) pad[i] = static_cast<uint8_t>(i * 31 + i / kStick);
  for (const Box& b : boxes()) {
    const int64_t items = b.n[0] * b.n[1] * b.n[2];
    // Every way to cut the stream into a piece [first, first + count).
    for (int64_t first = 0; first < items; ++first)
      for (int64_t count = 1; first + count <= items; ++count) {
        std::vector<uint8_t> got(static_cast<size_t>(count * kStick), 0xEE), want = got;
        gatherBox(pad.data(), b.base, b.n, b.s, first, count, kStick, got.data());
        for (int64_t k = 0; k < count; ++k)
          std::memcpy(want.data() + k * kStick,
                      pad.data() + boxAddress(b.base, first + k, b.n, b.s), kStick);
        ASSERT_EQ(got, want) << "gather base " << b.base << " first " << first << " count "
                             << count;

        std::vector<uint8_t> padGot = pad, padWant = pad;
        scatterBox(padGot.data(), b.base, b.n, b.s, first, count, kStick, got.data());
        for (int64_t k = 0; k < count; ++k)
          std::memcpy(padWant.data() + boxAddress(b.base, first + k, b.n, b.s),
                      got.data() + k * kStick, kStick);
        ASSERT_EQ(padGot, padWant)
            << "scatter base " << b.base << " first " << first << " count " << count;
      }
  }
}

} // namespace
} // namespace chipless::sim::spyre
