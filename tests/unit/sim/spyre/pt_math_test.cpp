/// Tests of the PT array's arithmetic (sim/spyre/pt_math): macStick against the plain
/// per-value loop, bit for bit, with zeros among the activations (skipped, never added),
/// negative-zero accumulators, infinite and NaN weights, stick lengths that are not a
/// multiple of its four-value blocks, and weight rows wider than the columns used (a tile
/// whose n is not a whole number of sticks).
#include "sim/spyre/pt_math.h"
#include "support/float_bits.h"

#include <cmath>
#include <gtest/gtest.h>
#include <random>
#include <vector>

namespace chipless::sim::spyre {
namespace {

/// The array's definition, one activation value at a time.
void macReference(float* accRow, const float* a, const float* w, int64_t eps, int64_t n,
                  int64_t ldw) {
  for (int64_t kk = 0; kk < eps; ++kk) {
    if (a[kk] == 0.0f) continue;
    for (int64_t j = 0; j < n; ++j) accRow[j] += a[kk] * w[kk * ldw + j];
  }
}

TEST(PtMath, MacStickMatchesThePerValueLoop) {
  std::mt19937 rng(17);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (int64_t eps : {64, 32, 7, 1})
    for (int64_t n : {64, 128, 33})
      for (int zeros : {0, 1, 5}) {
        const int64_t ldw = (n + 63) / 64 * 64; // rows of whole sticks
        std::vector<float> a(static_cast<size_t>(eps)), w(static_cast<size_t>(eps * ldw));
        std::vector<float> acc(static_cast<size_t>(n));
        for (float& v : a) v = rng() % 8 < static_cast<unsigned>(zeros) ? 0.0f : normal(rng);
        if (zeros) a[0] = -0.0f;
        for (float& v : w) v = normal(rng);
        if (eps > 2) {
          w[static_cast<size_t>(ldw) + 3] = INFINITY; // row 1: infinity times a zero adds nothing
          w[static_cast<size_t>(2 * ldw)] = NAN;
        }
        for (size_t j = 0; j < acc.size(); ++j) acc[j] = j % 3 == 0 ? -0.0f : normal(rng) * 1e3f;
        std::vector<float> got = acc, want = acc;
        macStick(got.data(), a.data(), w.data(), eps, n, ldw);
        macReference(want.data(), a.data(), w.data(), eps, n, ldw);
        for (int64_t j = 0; j < n; ++j)
          ASSERT_EQ(bitsOf(got[j]), bitsOf(want[j]))
              << "eps " << eps << " n " << n << " zeros " << zeros << " column " << j;
      }
}

} // namespace
} // namespace chipless::sim::spyre
