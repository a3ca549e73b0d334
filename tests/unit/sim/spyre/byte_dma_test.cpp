// Row-major tensor arguments, the byte-granular DMA instructions dma.loadb / dma.storeb and
// ld.scalar (an engine reading an index from its scratchpad): what KTIR kernels, which
// address global memory element by element, compile to.
#include "runtime/spyre/stick_layout.h"
#include "support/spyrecode/disassembler.h"
#include "support/spyrecode/plan.h"
#include "tests/unit/util/runtime_test_util.h"

namespace chipless::runtime::test {
namespace {

class ByteDmaTest : public ::testing::Test {
protected:
  void SetUp() override { device = openDevice(smallArch()); }
  std::unique_ptr<SpyreDevice> device;
};

TEST(RowMajorLayout, PacksTheElementsAndPadsTheAllocationToAStick) {
  StickLayout l;
  l.shape = {3, 5};
  l.dtype = DType::F16;
  l.stickBytes = archWith().chip.stick_bytes;
  l.rowMajor = true;
  EXPECT_EQ(l.elements(), 15);
  EXPECT_EQ(l.deviceBytes(), 128u); // 30 bytes, one stick
  NpyArray host = hostArray(DType::F16, {3, 5}, [](size_t i) { return i + 1; });
  std::vector<uint8_t> dev(l.deviceBytes(), 0xFF);
  toDevice(host, l, Fp16Format::Ieee, dev.data(), "x");
  EXPECT_EQ(std::memcmp(dev.data(), host.data.data(), 30), 0);
  for (size_t i = 30; i < dev.size(); ++i) EXPECT_EQ(dev[i], 0) << i; // zero padding
  NpyArray back = fromDevice(dev.data(), l, Fp16Format::Ieee);
  EXPECT_EQ(back.shape, host.shape);
  EXPECT_EQ(back.data, host.data);
}

TEST(RowMajorLayout, PlanAndAssemblyRoundTrip) {
  spyrecode::Job job = assembleText(".kernel t\n.input A f16 [3, 5] row_major\n.output B f32 [4]\n"
                                    ".program dma_in cores=0\n    nop\n.end\n");
  ASSERT_EQ(job.plan.args.size(), 2u);
  EXPECT_EQ(job.plan.args[0].layout, spyrecode::Layout::RowMajor);
  EXPECT_EQ(job.plan.args[1].layout, spyrecode::Layout::Stick);
  spyrecode::JobPlan again = spyrecode::parsePlan(spyrecode::planToJson(job.plan), "job.plan");
  EXPECT_EQ(again.args[0].layout, spyrecode::Layout::RowMajor);
  EXPECT_NE(spyrecode::disassemble(job).find(".input A f16 [3, 5] row_major"), std::string::npos);
  std::string e = errorOf([] { assembleText(".kernel t\n.input A f16 [3] tiled\n"); });
  EXPECT_CONTAINS(e, "unexpected 'tiled' after the shape");
}

// Short rows at unaligned addresses: row r of a row-major [4, 5] f16 tensor (10 bytes at
// byte 10*r) lands at the start of scratchpad stick r, and goes back out to row 3 - r.
TEST_F(ByteDmaTest, ShortRowsAtAnyAddress) {
  const char* text = R"(
.kernel t
.input  A f16 [4, 5] row_major
.output B f16 [4, 5] row_major
.program dma_in cores=0
    dma.loadb sp=0, mem=@A, bytes=10, n1=4, ms1=10, ss1=128, done=0
.end
.program dma_out cores=0
    twait 0
    dma.storeb sp=0, mem=@B+30, bytes=10, n1=4, ms1=-10, ss1=128
.end
)";
  NpyArray a = hostArray(DType::F16, {4, 5}, [](size_t i) { return i * 0.5; });
  LaunchReport out = runText(*device, text, {{{"A", a}}, {}, nullptr});
  const NpyArray& b = out.outputs.at("B");
  for (size_t r = 0; r < 4; ++r)
    for (size_t c = 0; c < 5; ++c) EXPECT_EQ(at(b, r * 5 + c), at(a, (3 - r) * 5 + c));
}

// dma.storeb writes exactly its bytes: the rest of the stick keeps what was there.
TEST_F(ByteDmaTest, StoreWritesOnlyItsBytes) {
  const char* text = R"(
.kernel t
.inout  A f16 [64] row_major
.program dma_in cores=0
    dma.load sp=0, mem=@A, bytes=128, done=0
.end
.program dma_out cores=0
    twait 0
    dma.storeb sp=2, mem=@A+100, bytes=4
.end
)";
  NpyArray a = hostArray(DType::F16, {64}, [](size_t i) { return i; });
  LaunchReport out = runText(*device, text, {{{"A", a}}, {}, nullptr});
  const NpyArray& r = out.outputs.at("A");
  for (size_t i = 0; i < 64; ++i) {
    double expect = i == 50 ? 1 : i == 51 ? 2 : static_cast<double>(i);
    EXPECT_EQ(at(r, i), expect) << i;
  }
}

// ld.scalar reads an index that was loaded into the scratchpad; the DMA engine gathers
// the row it names: B = A[IDX[0]].
TEST_F(ByteDmaTest, LdScalarDrivesAGather) {
  const char* text = R"(
.kernel t
.input  A f16 [8, 64] row_major
.input  IDX i32 [4] row_major
.output B f16 [64] row_major
.program dma_in cores=0
    dma.load sp=0, mem=@IDX, bytes=128, done=1
    twait 1
    ld.scalar.i32 r1, 4
    mul r2, r1, 128
    dma.load sp=128, mem=@A+r2, bytes=128, done=0
.end
.program dma_out cores=0
    twait 0
    dma.store sp=128, mem=@B, bytes=128
.end
)";
  NpyArray a = hostArray(DType::F16, {8, 64}, [](size_t i) { return i % 512; });
  NpyArray idx = hostArray(DType::I32, {4}, [](size_t i) { return i == 1 ? 5 : 0; });
  LaunchReport out = runText(*device, text, {{{"A", a}, {"IDX", idx}}, {}, nullptr});
  const NpyArray& b = out.outputs.at("B");
  for (size_t i = 0; i < 64; ++i) EXPECT_EQ(at(b, i), at(a, 5 * 64 + i)) << i;
}

TEST_F(ByteDmaTest, Faults) {
  auto launch = [&](const std::string& program) {
    return errorOf([&] {
      runText(*device, ".kernel t\n.input A f16 [64] row_major\n" + program,
              {{{"A", hostArray(DType::F16, {64}, [](size_t i) { return i; })}}, {}, nullptr});
    });
  };
  EXPECT_CONTAINS(launch(".program dma_in cores=0\n    dma.loadb sp=0, mem=@A, bytes=0\n.end\n"),
                  "dma.loadb): bytes = 0 is not positive");
  EXPECT_CONTAINS(launch(".program load cores=0\n    ld.scalar.i32 r1, 6\n.end\n"),
                  "is not a multiple of the 4-byte element");
  EXPECT_CONTAINS(launch(".program load cores=0\n    ld.scalar.i32 r1, 0x7FFFFFFF\n.end\n"),
                  "outside the scratchpad");
}

} // namespace
} // namespace chipless::runtime::test
