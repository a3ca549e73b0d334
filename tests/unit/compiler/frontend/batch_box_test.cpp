// Which runs of a tensor's matrices one tile of a re-layout may take (Division.h, batchBox):
// a box of the batch dimensions, so that the block is one access tile of the tensor.
#include "Division.h"

#include <gtest/gtest.h>

using chipless::frontend::batchBox;
using Box = std::vector<int64_t>;

TEST(BatchBox, RunsWithinTheDimensionBeforeTheMatrix) {
  EXPECT_EQ(batchBox({40, 3}, 1), (Box{1, 1}));
  EXPECT_EQ(batchBox({40, 3}, 3), (Box{1, 3}));
  EXPECT_EQ(batchBox({64, 64}, 16), (Box{1, 16}));
  EXPECT_EQ(batchBox({7}, 7), (Box{7}));
}

TEST(BatchBox, RunsOverSeveralDimensionsTakeTheInnerOnesWhole) {
  // [F, C, KH, KW] filters in runs of 2 x 64 of their 3 x 3 matrices: 32 tiles.
  EXPECT_EQ(batchBox({64, 64}, 128), (Box{2, 64}));
  EXPECT_EQ(batchBox({40, 3}, 6), (Box{2, 3}));
  EXPECT_EQ(batchBox({2, 4, 3}, 24), (Box{2, 4, 3}));
  EXPECT_EQ(batchBox({5, 4, 3}, 24), Box{}); // 2 of 5: not a divisor
  // Dimensions of one position are whole already.
  EXPECT_EQ(batchBox({8, 1, 3}, 12), (Box{4, 1, 3}));
}

TEST(BatchBox, RunsThatAreNotBoxesAreRefused) {
  EXPECT_EQ(batchBox({40, 3}, 2), Box{});   // part of a dimension of 3
  EXPECT_EQ(batchBox({40, 6}, 4), Box{});   // 4 does not divide 6 nor is a multiple
  EXPECT_EQ(batchBox({40, 3}, 240), Box{}); // more than there are
  EXPECT_EQ(batchBox({}, 2), Box{});
  EXPECT_EQ(batchBox({}, 1), Box{});
}
