// The TPU compiler on embedding lookups (tensor.gather of rows, Gathers.cpp): a kernel of its
// own whose units copy their indices into SMEM and issue one DMA per row from the table row
// each names, clamped into the table as XLA clamps. Packed and padded indices, units that do
// not divide the rows, two TensorCores, bf16, and the forms that stay refused.
#include "support/atomic_file.h"
#include "tests/e2e/tpu_compile_harness.h"

#include <algorithm>
#include <cstring>
#include <gtest/gtest.h>
#include <random>

namespace chipless::test {
namespace {

/// i32 indices of `shape` drawn from [low, high).
NpyArray indices(std::vector<int64_t> shape, int64_t low, int64_t high, unsigned seed) {
  NpyArray a = makeNpy(DType::I32, std::move(shape));
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int64_t> pick(low, high - 1);
  for (size_t i = 0; i < a.elements(); ++i) {
    const auto v = static_cast<int32_t>(pick(rng));
    std::memcpy(a.data.data() + 4 * i, &v, 4);
  }
  return a;
}

/// The table's rows the indices name, each clamped into [0, rows).
std::vector<double> gatherRows(const std::vector<double>& table, int64_t rows, int64_t cols,
                               const NpyArray& ids) {
  std::vector<double> out;
  for (size_t k = 0; k < ids.elements(); ++k) {
    int32_t i = 0;
    std::memcpy(&i, ids.data.data() + 4 * k, 4);
    const int64_t r = std::clamp<int64_t>(i, 0, rows - 1);
    for (int64_t c = 0; c < cols; ++c) out.push_back(table[static_cast<size_t>(r * cols + c)]);
  }
  return out;
}

TEST(TpuCompileGather, AnEmbeddingLookupByAVectorOfIndices) {
  // 37 ids (one unit) into [500, 96] f32, the ids a vector viewed as [37, 1]: packed in SMEM.
  const char* g = R"(func.func @emb(%t: tensor<500x96xf32> {graph.name = "table"},
    %i: tensor<37xi32> {graph.name = "ids"}) -> (tensor<37x96xf32> {graph.name = "y"}) {
  %c = tensor.expand_shape %i [[0, 1]] output_shape [37, 1] : tensor<37xi32> into tensor<37x1xi32>
  %g = tensor.gather %t[%c] gather_dims([0]) : (tensor<500x96xf32>, tensor<37x1xi32>) -> tensor<37x1x96xf32>
  %y = tensor.collapse_shape %g [[0, 1], [2]] : tensor<37x1x96xf32> into tensor<37x96xf32>
  return %y : tensor<37x96xf32>
}
)";
  CompileResult c = tpuCompile(writeGraph("emb", g), "emb");
  ASSERT_EQ(c.status, 0) << c.log;
  const std::string s = readFile(c.dumpDir + "/program.s");
  EXPECT_NE(s.find("mem=smem"), std::string::npos);
  EXPECT_NE(s.find("sld "), std::string::npos);
  NpyArray table = randomF32Array({500, 96}, 111), ids = indices({37}, 0, 500, 112);
  TpuKernelRun run = runProgram(c.dir, {{"table", table}, {"ids", ids}}, tpuArchWith());
  expectClose(run.outputs.at("y"), gatherRows(asDoubles(table), 500, 96, ids), 0, 0, "rows");
}

/// [1000, 1] padded indices into [3000, 200] bf16, doubled by a kernel after it: units of 256
/// rows, the last of 232.
const char* kPadded = R"(func.func @emb(%t: tensor<3000x200xbf16> {graph.name = "table"},
    %i: tensor<1000x1xi32> {graph.name = "ids"}) -> (tensor<1000x200xbf16> {graph.name = "y"}) {
  %g = tensor.gather %t[%i] gather_dims([0]) : (tensor<3000x200xbf16>, tensor<1000x1xi32>) -> tensor<1000x1x200xbf16>
  %y = tensor.collapse_shape %g [[0, 1], [2]] : tensor<1000x1x200xbf16> into tensor<1000x200xbf16>
  %e = tensor.empty() : tensor<1000x200xbf16>
  %z = linalg.add ins(%y, %y : tensor<1000x200xbf16>, tensor<1000x200xbf16>) outs(%e : tensor<1000x200xbf16>) -> tensor<1000x200xbf16>
  return %z : tensor<1000x200xbf16>
}
)";

TEST(TpuCompileGather, PaddedIndicesInUnitsOnEveryGeneration) {
  NpyArray table = randomF32Array({3000, 200}, 113), ids = indices({1000, 1}, 0, 3000, 114);
  std::vector<double> want = gatherRows(bf16Values(table), 3000, 200, ids);
  for (double& v : want) v *= 2;
  for (const char* chip : {"v5e", "v5p", "v4"}) {
    const std::string tag = std::string("padded_") + chip;
    CompileResult c = tpuCompile(writeGraph(tag, kPadded), tag, {"--arch", chip});
    ASSERT_EQ(c.status, 0) << c.log;
    TpuKernelRun run = runProgram(c.dir, {{"table", table}, {"ids", ids}}, tpuArchWith({}, chip));
    expectClose(run.outputs.at("y"), want, 0, 0, std::string("gathered and doubled on ") + chip);
  }
}

TEST(TpuCompileGather, IndicesOutsideTheTableAreClampedAsXlaDoes) {
  CompileResult c = tpuCompile(writeGraph("clamped", kPadded), "clamped");
  ASSERT_EQ(c.status, 0) << c.log;
  NpyArray table = randomF32Array({3000, 200}, 115), ids = indices({1000, 1}, -50, 3050, 116);
  TpuKernelRun run = runProgram(c.dir, {{"table", table}, {"ids", ids}}, tpuArchWith());
  std::vector<double> want = gatherRows(bf16Values(table), 3000, 200, ids);
  for (double& v : want) v *= 2;
  expectClose(run.outputs.at("y"), want, 0, 0, "clamped rows");
}

TEST(TpuCompileGather, OtherGathersAreRefusedAtTheGather) {
  const char* g = R"(func.func @cols(%t: tensor<8x500xf32> {graph.name = "table"},
    %i: tensor<4x1xi32> {graph.name = "ids"}) -> (tensor<8x4x1xf32> {graph.name = "y"}) {
  %g = tensor.gather %t[%i] gather_dims([1]) : (tensor<8x500xf32>, tensor<4x1xi32>) -> tensor<4x8x1xf32>
  %e2 = tensor.empty() : tensor<8x4x1xf32>
  %y = linalg.transpose ins(%g : tensor<4x8x1xf32>) outs(%e2 : tensor<8x4x1xf32>) permutation = [1, 0, 2]
  return %y : tensor<8x4x1xf32>
}
)";
  CompileResult c = tpuCompile(writeGraph("gather_cols", g), "gather_cols");
  EXPECT_EQ(c.status, 1);
  EXPECT_NE(c.log.find("gather_cols.mlir:3:8: error: tpu-compile gathers rows of a matrix by "
                       "i32 indices only"),
            std::string::npos)
      << c.log;
}

} // namespace
} // namespace chipless::test
