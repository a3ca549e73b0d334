// Where the Spyre front end's tensors lie (compiler/frontend/lib/Layout.h): the stick
// layout of SPYRE.md, and which reshapes, permutations and slices are strided views of it.
#include "CoreSpan.h"
#include "Layout.h"

#include <gtest/gtest.h>

using namespace chipless::frontend;

namespace {

constexpr int64_t kF16Stick = 64;

TensorView stick(std::vector<int64_t> shape) {
  return *rootView(mlir::Value(), shape, shape, RootLayout::Stick, kF16Stick);
}
TensorView flat(std::vector<int64_t> shape) {
  return *rootView(mlir::Value(), shape, shape, RootLayout::Flat, kF16Stick);
}
std::string text(const std::optional<TensorView>& v) { return v ? v->describe() : "none"; }

const std::vector<llvm::SmallVector<int64_t, 2>> kSplitLast{{0}, {1, 2}};

} // namespace

TEST(Layout, StickLayoutPadsAndSplitsOffTheLastDimension) {
  // SPYRE.md: (1000, 200) lies as (4, 1000, 64); stick s of row r at (s * rows + r) * 64.
  EXPECT_EQ(stick({1000, 200}).describe(), "[1000 x 200]: (1000:64) (4:64000 64:1) +0");
  EXPECT_EQ(rootElements({1000, 200}, RootLayout::Stick, kF16Stick), 4 * 1000 * 64);
  EXPECT_EQ(stick({4, 1024, 64}).describe(), "[4 x 1024 x 64]: (4:65536) (1024:64) (64:1) +0");
  // A vector is one row: its sticks follow each other.
  EXPECT_EQ(stick({200}).describe(), "[200]: (200:1) +0");
  EXPECT_EQ(rootElements({200}, RootLayout::Stick, kF16Stick), 256);
  EXPECT_EQ(flat({3, 5}).describe(), "[3 x 5]: (3:5) (5:1) +0");
  EXPECT_EQ(rootElements({3, 5}, RootLayout::Flat, kF16Stick), 15);
}

TEST(Layout, HeadsOfOneStickPermuteForFree) {
  // [S, H D] -> [S, H, D] -> [H, S, D]: with D one stick, head h is stick h of every row,
  // so the permuted heads are rows of one stick each, one after another.
  auto heads = reshapeView(stick({128, 768}), {128, 12, 64}, kSplitLast, true);
  ASSERT_TRUE(heads);
  EXPECT_EQ(heads->describe(), "[128 x 12 x 64]: (128:64) (12:8192) (64:1) +0");
  EXPECT_FALSE(matrixView(*heads)); // rows (s, h) do not fold
  auto permuted = permuteView(*heads, {1, 0, 2});
  EXPECT_EQ(text(matrixView(permuted)), "[1536 x 64]: (1536:64) (64:1) +0");
  // ... and merged back: [S, H, D] -> [S, H D] is the stick layout of [S, H D] again.
  auto back = permuteView(permuted, {1, 0, 2});
  auto merged = reshapeView(back, {128, 768}, kSplitLast, false);
  ASSERT_TRUE(merged);
  EXPECT_EQ(merged->describe(), stick({128, 768}).describe());
}

TEST(Layout, HeadsOfTwoSticksNeedARelayout) {
  // D = 128 is two sticks, which lie 128 rows apart: [H, S, D] rows do not fold.
  auto heads = reshapeView(stick({128, 1024}), {128, 8, 128}, kSplitLast, true);
  ASSERT_TRUE(heads);
  EXPECT_EQ(heads->describe(), "[128 x 8 x 128]: (128:64) (8:16384) (2:8192 64:1) +0");
  EXPECT_FALSE(matrixView(permuteView(*heads, {1, 0, 2})));
}

TEST(Layout, MovingTheLastDimensionIsANewStickDimension) {
  auto t = permuteView(stick({128, 64}), {1, 0});
  EXPECT_EQ(t.describe(), "[64 x 128]: (64:1) (128:64) +0");
  EXPECT_FALSE(matrixView(t));
}

TEST(Layout, SlicesOfWholeSticksAreViews) {
  const TensorView x = stick({100, 300}); // 5 sticks of 100 rows
  auto cols = sliceView(x, {0, 128}, {100, 128}, {1, 1});
  EXPECT_EQ(text(cols), "[100 x 128]: (100:64) (2:6400 64:1) +12800");
  auto rows = sliceView(x, {10, 0}, {50, 300}, {1, 1});
  EXPECT_EQ(text(rows), "[50 x 300]: (50:64) (5:6400 64:1) +640");
  EXPECT_TRUE(matrixView(*rows));
  // Inside a stick: not a box of sticks (the front end packs the source first).
  EXPECT_FALSE(sliceView(x, {0, 100}, {100, 128}, {1, 1}));
  // The same slice of a packed tensor is an ordinary strided view.
  EXPECT_EQ(text(sliceView(flat({100, 300}), {0, 100}, {100, 128}, {1, 1})),
            "[100 x 128]: (100:300) (128:1) +100");
  // A middle dimension: a view whose rows fold only per outer index.
  auto mid = sliceView(stick({4, 8, 64}), {0, 3, 0}, {4, 2, 64}, {1, 1, 1});
  EXPECT_EQ(text(mid), "[4 x 2 x 64]: (4:512) (2:64) (64:1) +192");
  EXPECT_FALSE(matrixView(*mid));
}

TEST(Layout, PaddedDimensionsDoNotMerge) {
  // [10, 200] -> [2000]: the padding of each row's last stick lies between the rows.
  EXPECT_FALSE(reshapeView(stick({10, 200}), {2000}, {{0, 1}}, false));
  EXPECT_TRUE(reshapeView(flat({10, 200}), {2000}, {{0, 1}}, false));
  // [N, H, W, 16] -> [N, H W 16]: each pixel's 16 channels are padded to a stick, so the
  // merged dimension is runs of 16 values a stick apart (read in 32-byte runs).
  auto pixels = reshapeView(stick({1, 7, 7, 16}), {1, 784}, {{0}, {1, 2, 3}}, false);
  EXPECT_EQ(text(pixels), "[1 x 784]: (1:1) (49:64 16:1) +0");
  EXPECT_TRUE(matrixView(*pixels));
  // Three factors (rows of 7 pixels, 2 rows apart) are not columns a kernel reads.
  auto every2nd = sliceView(stick({1, 14, 7, 16}), {0, 0, 0, 0}, {1, 7, 7, 16}, {1, 2, 1, 1});
  ASSERT_TRUE(every2nd);
  auto strided = reshapeView(*every2nd, {1, 784}, {{0}, {1, 2, 3}}, false);
  EXPECT_EQ(text(strided), "[1 x 784]: (1:1) (7:896 7:64 16:1) +0");
  EXPECT_FALSE(matrixView(*strided));
  // Leading dimensions merge and split freely.
  auto rows = reshapeView(stick({2, 4, 128, 200}), {8, 128, 200}, {{0, 1}, {2}, {3}}, false);
  EXPECT_EQ(text(rows), "[8 x 128 x 200]: (8:8192) (128:64) (4:65536 64:1) +0");
}

TEST(Layout, VectorsFoldWhenTheirValuesAreOneStride) {
  EXPECT_TRUE(vectorView(stick({1, 200})));
  EXPECT_TRUE(vectorView(stick({300})));
  EXPECT_FALSE(vectorView(stick({4, 128}))); // rows of 2 sticks, 4 rows apart
  EXPECT_FALSE(vectorView(stick({4, 10})));  // each row padded to a stick
  EXPECT_EQ(text(vectorView(flat({4, 10}))), "[40]: (40:1) +0");
}

TEST(Layout, AnUnfoldLiesAsTheMatrixItsMatmulReads) {
  // [N OH OW, KH KW C] with C one stick, seen as [N, OH, OW, KH, KW, C].
  auto u = rootView(mlir::Value(), {1, 30, 30, 3, 3, 64}, {900, 576}, RootLayout::Stick,
                    kF16Stick);
  ASSERT_TRUE(u);
  EXPECT_EQ(u->describe(),
            "[1 x 30 x 30 x 3 x 3 x 64]: (1:1) (30:1920) (30:64) (3:172800) (3:57600) (64:1) +0");
  auto m = reshapeView(*u, {900, 576}, {{0, 1, 2}, {3, 4, 5}}, false);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->describe(), "[900 x 576]: (900:64) (9:57600 64:1) +0");
}

TEST(Layout, StickColumnsSpreadOverTheChannels) {
  const MemoryParams m{128, 4096, 8};
  // 1024 rows: each column 32 blocks of 4 KB, every column in one channel; 33 blocks step one
  // channel per column.
  EXPECT_EQ(paddedRows(1024, 16, m), 1056);
  EXPECT_EQ(paddedRows(2048, 12, m), 2080); // 64 blocks -> 65
  EXPECT_EQ(paddedRows(128, 12, m), 128);  // 4 blocks: columns alternate between 2 channels
  EXPECT_EQ(paddedRows(96, 12, m), 96);    // 3 blocks: already every channel
  EXPECT_EQ(paddedRows(100, 12, m), 100);  // not whole blocks
  EXPECT_EQ(paddedRows(1024, 1, m), 1024); // one column
  auto v = rootView(mlir::Value(), {1024, 200}, {1024, 200}, RootLayout::Stick, kF16Stick, 1056);
  EXPECT_EQ(text(v), "[1024 x 200]: (1024:64) (4:67584 64:1) +0");
  EXPECT_EQ(rootElements({1024, 200}, RootLayout::Stick, kF16Stick, 1056), 1056 * 256);
}

TEST(Layout, BlocksOfFactorsFit) {
  DimLayout d;
  d.size = 512;
  d.factors = {{4, 16384}, {128, 64}};
  EXPECT_TRUE(blockFits(d, 32));   // within one position of the outer factor
  EXPECT_TRUE(blockFits(d, 256));  // two whole inner runs
  EXPECT_TRUE(blockFits(d, 512));  // the whole dimension
  EXPECT_FALSE(blockFits(d, 96));  // 96 does not divide 128
}

TEST(Layout, TheSpanOfATileBox) {
  // 4 rows of a [1024, 512] tensor padded to 1056 rows: its 8 stick columns 1056 x 64
  // elements apart, so 4 rows reach over nearly the whole tensor.
  auto v = rootView(mlir::Value(), {1024, 512}, {1024, 512}, RootLayout::Stick, kF16Stick, 1056);
  ASSERT_TRUE(v);
  EXPECT_EQ(boxSpanElements(*v, {4, 512}), 3 * 64 + 7 * 1056 * 64 + 63 + 1);
  // One stick column of 128 rows: contiguous.
  EXPECT_EQ(boxSpanElements(*v, {128, 64}), 128 * 64);
  // Packed: 4 whole rows.
  EXPECT_EQ(boxSpanElements(flat({1024, 512}), {4, 512}), 4 * 512);
}
