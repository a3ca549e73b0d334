/// The TPU runtime: device ownership, HBM allocation over all chips, several prepared jobs on
/// one device (relocation), launch-time binding errors, split and replicated arguments, the
/// tiled layout and symbol patching (ARG.dK, ARG.pK).
#include "runtime/tpu/tpu_layout.h"
#include "tests/unit/util/tpu_test_util.h"

#include <gtest/gtest.h>

namespace chipless::test {
namespace {

tpuprog::Job assembleText(const std::string& text, const TpuArch& arch) {
  return tpuprog::assemble(text, "inline.s", tpuprog::AssembleOptions::forArch(arch));
}

const char* kCopy = R"(
.kernel copy
.scalar R
.input  X f32 [R, 100] tile=8x128
.output Y f32 [R, 100] tile=8x128
.program cores=0
    mul   s1, @X.p0, @X.p1
    shl   s1, s1, 2
    dma.in dst=0, src=@X, bytes=s1, sem=0
    sem.wait 0
    dma.out dst=@Y, src=0, bytes=s1, sem=1
    sem.wait 1
    sst 0, @X.d1 | sst 4, @X.p1
.end
)";

TEST(TpuRuntime, OneDeviceHasOneOwner) {
  TpuArch arch = tpuArch();
  auto a = runtime::TpuDevice::open(arch, {7, true, 1});
  try {
    runtime::TpuDevice::open(arch, {7, true, 1});
    FAIL() << "second open of tpu:7 succeeded";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("device tpu:7 is already open (pid "), std::string::npos)
        << e.what();
  }
  auto b = runtime::TpuDevice::open(arch, {-1, true, 1});
  EXPECT_NE(b->index(), 7);
}

TEST(TpuRuntime, SeveralJobsOnOneDeviceAreRelocated) {
  TpuArch arch = tpuArch();
  auto device = runtime::TpuDevice::open(arch, {-1, false, 1});
  runtime::TpuJob first(*device, assembleText(kCopy, arch), "first");
  runtime::TpuJob second(*device, assembleText(kCopy, arch), "second");
  for (auto* job : {&first, &second}) {
    NpyArray x = randomF32({13, 100}, 1);
    runtime::LaunchArgs args;
    args.inputs["X"] = x;
    runtime::LaunchReport out = job->launch(args);
    EXPECT_EQ(out.outputs.at("Y").shape, x.shape);
    EXPECT_EQ(out.outputs.at("Y").data, x.data);
  }
}

TEST(TpuRuntime, LogicalAndPaddedDimensionsAreBoundAtLaunch) {
  // The kernel copies X through VMEM (padded to 16 x 128) and stores X.d1 and X.p1 in SMEM;
  // Y comes back with the logical shape, padding dropped.
  NpyArray x = randomF32({13, 100}, 2);
  TpuRun r = runTpu(kCopy, {{"X", x}}, tpuArch());
  EXPECT_EQ(r.outputs.at("Y").data, x.data);
  EXPECT_EQ(r.stats.get("chip[0].hbm.bytes_read"), 16 * 128 * 4);
}

TEST(TpuRuntime, LaunchErrorsNameTheArgument) {
  TpuArch arch = tpuArch();
  EXPECT_NE(tpuError(kCopy, {}, arch).find("input 'X' (f32 (R, 100)) is not bound (pass --input"),
            std::string::npos);
  EXPECT_NE(tpuError(kCopy, {{"X", randomF32({13, 99}, 3)}}, arch)
                .find("input 'X' has shape (13, 99) but copy expects (13, 100)"),
            std::string::npos);
  EXPECT_NE(tpuError(kCopy, {{"X", randomF32({4, 100}, 3)}, {"Y", randomF32({4, 100}, 3)}}, arch)
                .find("'Y' is an output of copy, not an input"),
            std::string::npos);
  EXPECT_NE(
      tpuError(kCopy, {{"Z", randomF32({4, 100}, 3)}}, arch).find("'Z' is not an argument of copy"),
      std::string::npos);
  NpyArray ints = makeNpy(DType::I32, {4, 100});
  EXPECT_NE(tpuError(kCopy, {{"X", ints}}, arch).find("cannot feed a tensor of f32"),
            std::string::npos);
}

TEST(TpuRuntime, ScalarOutsideItsConstraintsIsRefused) {
  // The same launch check as SpyreCode's (support/scalar_arg.h): R read off X's shape.
  std::string text = kCopy;
  text.replace(text.find(".scalar R"), 9, ".scalar R multiple_of=8 max=64");
  TpuArch arch = tpuArch();
  EXPECT_NE(tpuError(text, {{"X", randomF32({13, 100}, 3)}}, arch)
                .find("scalar 'R' of copy (from input 'X' dimension 0) is 13, not a multiple of 8 "
                      "(the program accepts multiples of 8 up to 64)"),
            std::string::npos);
  NpyArray x = randomF32({16, 100}, 2);
  EXPECT_EQ(runTpu(text, {{"X", x}}, arch).outputs.at("Y").data, x.data);
}

TEST(TpuRuntime, SplitArgumentsStackTheChipsBlocks) {
  const char* text = R"(
.kernel scale
.input  X f32 [2, 128] placement=split
.input  W f32 [8, 128]
.output Y f32 [2, 128] placement=split
.program cores=0
    dma.in dst=0, src=@X, bytes=1024, sem=0
    dma.in dst=4096, src=@W, bytes=4096, sem=0
    sem.wait 0, count=2
    vld.f32 v0, 0, n=1, stride=512, vstride=0
    vld.f32 v1, 4096
    vbcast.f32 v2, chip
    vadd.f32 v3, v0, v2
    vst.f32 v3, 8192
    dma.out dst=@Y, src=8192, bytes=1024, sem=1
    sem.wait 1
.end
)";
  // Each chip adds its index to its two rows (vld with stride 512 reads the block's rows 0
  // and 1 into sublanes 0 and 1; only those two rows are written back).
  NpyArray x = randomF32({6, 128}, 4);
  TpuRun r = runTpu(text, {{"X", x}, {"W", randomF32({8, 128}, 5)}}, tpuArch(), 3);
  std::vector<float> in = values(x), out = values(r.outputs.at("Y"));
  ASSERT_EQ(r.outputs.at("Y").shape, (std::vector<int64_t>{6, 128}));
  for (int c = 0; c < 3; ++c)
    for (int i = 0; i < 256; ++i) EXPECT_EQ(out[c * 256 + i], in[c * 256 + i] + c);
  EXPECT_NE(
      tpuError(text, {{"X", randomF32({5, 128}, 4)}, {"W", randomF32({8, 128}, 5)}}, tpuArch(), 3)
          .find("expects (6, 128) (3 chips' blocks of (2, 128) stacked)"),
      std::string::npos);
}

TEST(TpuRuntime, TiledLayoutPadsWithZerosAndRoundTrips) {
  runtime::TiledLayout l;
  l.shape = {3, 5, 7};
  l.dtype = DType::BF16;
  l.tile[0] = 4;
  l.tile[1] = 8;
  EXPECT_EQ(l.paddedShape(), (std::vector<int64_t>{3, 8, 8}));
  EXPECT_EQ(l.deviceBytes(), 3u * 8 * 8 * 2);
  NpyArray host = randomF32({3, 5, 7}, 6);
  std::vector<uint8_t> dev(l.deviceBytes(), 0xAB);
  runtime::toTiled(host, 0, l, dev.data(), "x");
  NpyArray back = makeNpy(DType::F32, {3, 5, 7});
  runtime::fromTiled(dev.data(), l, back, 0);
  std::vector<float> a = values(host), b = values(back);
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(b[i], bf16ToFloat(floatToBf16(a[i])));
  // Padding is zero: element (0, 0, 7) and row (0, 5, *).
  EXPECT_EQ(dev[7 * 2], 0);
  EXPECT_EQ(dev[(5 * 8) * 2], 0);
  // i32 data feeds i8 tensors when it fits.
  runtime::TiledLayout i8;
  i8.shape = {4};
  i8.dtype = DType::I8;
  NpyArray v = makeNpy(DType::I32, {4});
  reinterpret_cast<int32_t*>(v.data.data())[2] = 300;
  std::vector<uint8_t> d(4);
  EXPECT_THROW(runtime::toTiled(v, 0, i8, d.data(), "v"), Error);
}

TEST(TpuRuntime, HbmIsAllocatedAtTheSameAddressOnEveryChip) {
  TpuArch arch = tpuArch({"hbm.capacity_bytes=1048576"});
  auto device = runtime::TpuDevice::open(arch, {-1, true, 2});
  uint64_t a = device->allocate(1000, "a");
  uint64_t b = device->allocate(1000, "b");
  EXPECT_EQ(a % 512, 0u);
  EXPECT_EQ(b, 1024u);
  EXPECT_TRUE(device->span(1, b, 1000) != nullptr);
  try {
    device->allocate(2 << 20, "huge");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no room for 'huge'"), std::string::npos);
  }
  device->release(a);
  EXPECT_EQ(device->allocate(512, "c"), 0u);
}

} // namespace
} // namespace chipless::test
