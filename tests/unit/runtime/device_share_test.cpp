/// Shares of one emulated TPU (DeviceShare): each share on its own TensorCores and HBM
/// window, seeing them as the whole device; their launches meet at the machine's gate and run
/// in one simulation, where they contend for HBM; a program cannot reach outside its window.
#include "tests/unit/util/tpu_stream_kernel.h"
#include "tests/unit/util/tpu_test_util.h"

#include <gtest/gtest.h>
#include <thread>

namespace chipless::test {
namespace {

/// Reads 512 bytes at HBM address A (a scalar): outside the share's window when A is.
const char* kReach = R"(
.kernel reach
.scalar A
.output Y f32 [8, 128] tile=8x128
.program cores=0
    dma.in dst=0, src=@A, bytes=512, sem=0
    sem.wait 0
.end
)";

runtime::DeviceOptions shareOf(int index, int cores, int64_t windowUs = 10'000'000) {
  runtime::DeviceOptions o;
  o.index = index;
  o.share.cores = cores;
  o.share.windowMicroseconds = windowUs;
  return o;
}

tpuprog::Job assembleFor(const runtime::TpuDevice& device, const char* text) {
  return tpuprog::assemble(text, "inline.s", tpuprog::AssembleOptions::forArch(device.tpuArch()));
}

runtime::LaunchReport stream(runtime::TpuJob& job, const NpyArray& x) {
  runtime::LaunchArgs args;
  args.inputs["X"] = x;
  return job.launch(args);
}

TEST(DeviceShare, EachShareSeesItsOwnTensorCoresAndHbm) {
  const TpuArch arch = tpuArch({}, "v4"); // two TensorCores per chip
  auto a = runtime::TpuDevice::open(arch, shareOf(41, 1));
  auto b = runtime::TpuDevice::open(arch, shareOf(41, 1));
  EXPECT_EQ(a->index(), 41);
  EXPECT_EQ(b->index(), 41);
  EXPECT_EQ(a->partition().coreFirst, 0);
  EXPECT_EQ(b->partition().coreFirst, 1);
  EXPECT_EQ(a->tpuArch().chip.tensorcores, 1);
  EXPECT_EQ(a->tpuArch().hbm.capacity_bytes, arch.hbm.capacity_bytes / 2);
  EXPECT_NE(a->partition().memoryBase, b->partition().memoryBase);
  // Both start their allocations at their own address 0, in different places of the HBM.
  uint64_t pa = a->allocate(4096, "a"), pb = b->allocate(4096, "b");
  EXPECT_EQ(pa, 0u);
  EXPECT_EQ(pb, 0u);
  const uint32_t one = 1, two = 2;
  a->copyIn(pa, &one, 4);
  b->copyIn(pb, &two, 4);
  uint32_t backA = 0, backB = 0;
  a->copyOut(pa, &backA, 4);
  b->copyOut(pb, &backB, 4);
  EXPECT_EQ(backA, 1u);
  EXPECT_EQ(backB, 2u);

  try {
    runtime::TpuDevice::open(arch, shareOf(41, 1));
    FAIL() << "a third share of two TensorCores";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("tpu:41: no 1 free TensorCore(s) side by side for a share "
                                         "(0 of 2 free"),
              std::string::npos)
        << e.what();
  }
  try {
    runtime::TpuDevice::open(arch, runtime::DeviceOptions{41, false, 1});
    FAIL() << "an owner of a shared device";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("device tpu:41 is already open"), std::string::npos)
        << e.what();
  }
  try {
    runtime::TpuDevice::open(tpuArch({"hbm.latency_ns=900"}, "v4"), shareOf(41, 1));
    FAIL() << "a share on another architecture";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("tpu:41 is shared on another architecture"),
              std::string::npos)
        << e.what();
  }
  // A share's cores and memory come back when it closes.
  b.reset();
  auto c = runtime::TpuDevice::open(arch, shareOf(41, 1));
  EXPECT_EQ(c->partition().coreFirst, 1);
}

TEST(DeviceShare, AShareCannotTouchHbmOutsideItsWindow) {
  const TpuArch arch = tpuArch({}, "v4");
  // b never launches: a's launch waits for it only the (short) window.
  auto a = runtime::TpuDevice::open(arch, shareOf(42, 1, 1000));
  auto b = runtime::TpuDevice::open(arch, shareOf(42, 1, 1000));
  const uint64_t window = static_cast<uint64_t>(a->tpuArch().hbm.capacity_bytes);
  // Copies and allocations past the window are refused at once.
  uint32_t word = 0;
  EXPECT_THROW(a->copyIn(window - 2, &word, 4), Error);
  EXPECT_THROW(a->allocate(window + 512, "too big"), Error);
  // A program reaching past its window faults, naming the core and the window; the other
  // share's memory right after it is never read.
  b->allocate(4096, "b's");
  runtime::TpuJob reach(*a, assembleFor(*a, kReach), "reach");
  runtime::LaunchArgs args;
  args.scalars["A"] = static_cast<int64_t>(window);
  try {
    reach.launch(args);
    FAIL() << "a DMA outside the share";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("chip 0 core 0 "), std::string::npos) << m;
    EXPECT_NE(m.find("outside this share of the device (its addresses are 0.."), std::string::npos)
        << m;
  }
}

TEST(DeviceShare, SharesLaunchingTogetherContendForHbm) {
  const TpuArch arch = tpuArch({}, "v4");
  const NpyArray x = randomF32({4096, 128}, 5), y = randomF32({4096, 128}, 6);
  auto a = runtime::TpuDevice::open(arch, shareOf(43, 1));
  runtime::TpuJob jobA(*a, assembleFor(*a, kTpuStreamKernel), "a");
  // Alone (the only share attached): no wait, the chip's HBM to itself.
  runtime::LaunchReport alone = stream(jobA, x);
  EXPECT_EQ(alone.outputs.at("Y").data, x.data);
  EXPECT_EQ(a->stats(alone).get("share.launches_together"), 1);

  auto b = runtime::TpuDevice::open(arch, shareOf(43, 1));
  runtime::TpuJob jobB(*b, assembleFor(*b, kTpuStreamKernel), "b");
  runtime::LaunchReport outA, outB;
  std::thread other([&] { outB = stream(jobB, y); });
  outA = stream(jobA, x);
  other.join();
  EXPECT_EQ(outA.outputs.at("Y").data, x.data);
  EXPECT_EQ(outB.outputs.at("Y").data, y.data);
  const Stats sa = a->stats(outA), sb = b->stats(outB);
  EXPECT_EQ(sa.get("share.launches_together"), 2);
  EXPECT_EQ(sb.get("share.launches_together"), 2);
  EXPECT_EQ(sa.get("share.first_core"), 0);
  EXPECT_EQ(sb.get("share.first_core"), 1);
  // Both cores stream through the same HBM channels: each launch takes longer than alone,
  // and the chip's HBM moved both shares' bytes.
  EXPECT_GT(outA.cycles, alone.cycles);
  EXPECT_GT(outB.cycles, alone.cycles);
  EXPECT_EQ(sa.get("chip[0].hbm.bytes_read"), 2 * 4096 * 128 * 4);
  EXPECT_EQ(sa.get("chip[0].core[1].dma_bytes_in"), 4096 * 128 * 4);
  // The same pair again gives the same modelled times.
  runtime::LaunchReport againA, againB;
  std::thread second([&] { againB = stream(jobB, y); });
  againA = stream(jobA, x);
  second.join();
  EXPECT_EQ(againA.cycles, outA.cycles);
  EXPECT_EQ(againB.cycles, outB.cycles);
}

} // namespace
} // namespace chipless::test
