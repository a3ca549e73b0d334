/// Shares of one emulated Spyre card (DeviceShare): each share on its own cores and window of
/// the job address space, seeing them as a whole card of its own; their launches meet at the
/// machine's gate and run in one simulation, where they contend for the ring and the DRAM;
/// a program cannot reach outside its window.
#include "support/atomic_file.h"
#include "tests/unit/util/runtime_test_util.h"

#include <gtest/gtest.h>
#include <random>
#include <thread>

namespace chipless::runtime::test {
namespace {

DeviceOptions shareOf(int index, int cores, int64_t windowUs = 10'000'000) {
  DeviceOptions o;
  o.index = index;
  o.share.cores = cores;
  o.share.windowMicroseconds = windowUs;
  return o;
}

SpyreArch cardArch() {
  return SpyreArch::load(SpyreArch::defaultFile());
}

spyrecode::Job assembleFor(const SpyreDevice& device, const std::string& text) {
  return spyrecode::assemble(text, "inline.s",
                             spyrecode::AssembleOptions::forArch(device.spyreArch()));
}

/// f16 values of a fixed seed.
NpyArray halves(std::vector<int64_t> shape, uint32_t seed) {
  NpyArray a;
  a.dtype = DType::F16;
  a.shape = shape;
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-2, 2);
  a.data.resize(static_cast<size_t>(n) * 2);
  for (int64_t i = 0; i < n; ++i) {
    uint16_t h = floatToHalf(u(rng));
    std::memcpy(a.data.data() + 2 * i, &h, 2);
  }
  return a;
}

LaunchReport add(SpyreJob& job, const NpyArray& a, const NpyArray& b) {
  LaunchArgs args;
  args.inputs["A"] = a;
  args.inputs["B"] = b;
  args.scalars["N"] = a.shape[1];
  return job.launch(args);
}

TEST(SpyreShare, EachShareSeesItsOwnCoresAndSegments) {
  const SpyreArch arch = cardArch(); // 32 cores, 8 segments
  auto a = SpyreDevice::open(arch, shareOf(51, 16));
  auto b = SpyreDevice::open(arch, shareOf(51, 8));
  EXPECT_EQ(a->index(), 51);
  EXPECT_EQ(a->partition().coreFirst, 0);
  EXPECT_EQ(b->partition().coreFirst, 16);
  EXPECT_EQ(a->spyreArch().chip.cores, 16);
  EXPECT_EQ(b->spyreArch().chip.cores, 8);
  // Each share's segments are its window cut in eight: half and a quarter of the card's.
  EXPECT_EQ(a->spyreArch().memory.segment_bytes, arch.memory.segment_bytes / 2);
  EXPECT_EQ(b->spyreArch().memory.segment_bytes, arch.memory.segment_bytes / 4);
  ASSERT_TRUE(a->shareInfo());
  EXPECT_EQ(a->shareInfo()->overrides.front(), "chip.cores=16");
  // Both allocate from their own address 0, in different places of the card's memory.
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
  // Past the window: refused at once.
  const uint64_t window = a->shareInfo()->memoryBytes;
  EXPECT_CONTAINS(errorOf([&] { a->copyIn(window - 2, &one, 4); }),
                  "end beyond its job address space");
  EXPECT_CONTAINS(errorOf([&] { SpyreDevice::open(arch, shareOf(51, 16)); }),
                  "spyre:51: no 16 free core(s) side by side for a share (8 of 32 free");
  EXPECT_CONTAINS(errorOf([&] {
                    SpyreDevice::open(arch, DeviceOptions{51, false, 1});
                  }),
                  "device spyre:51 is already open");
  // A share's cores come back when it closes.
  b.reset();
  EXPECT_EQ(SpyreDevice::open(arch, shareOf(51, 16))->partition().coreFirst, 16);
}

TEST(SpyreShare, AProgramCannotReachOutsideItsWindow) {
  const SpyreArch arch = cardArch();
  auto a = SpyreDevice::open(arch, shareOf(52, 16, 1000));
  auto b = SpyreDevice::open(arch, shareOf(52, 16, 1000));
  b->allocate(4096, "b's"); // right after a's window in the card's memory
  const uint64_t window = a->shareInfo()->memoryBytes;
  SpyreJob reach(*a, assembleFor(*a, R"(
.kernel reach
.scalar M
.output C f16 [4, 64]
.program dma_in cores=0
    dma.load sp=0, mem=@M, bytes=512, done=0
.end
.program dma_out cores=0
    twait 0
    dma.store sp=0, mem=@C, bytes=512
.end
)"),
                 "reach");
  LaunchArgs args;
  args.scalars["M"] = static_cast<int64_t>(window);
  std::string e = errorOf([&] { reach.launch(args); });
  EXPECT_CONTAINS(e, "core 0 dma_in pc 0");
  EXPECT_CONTAINS(e, "outside this share of the device (its addresses are 0..");
}

TEST(SpyreShare, SharesLaunchingTogetherContendForTheRingAndDram) {
  const SpyreArch arch = cardArch();
  const std::string addText = readFile(std::string(CHIPLESS_SOURCE_DIR) + "/models/kernels/add.s");
  const NpyArray x = halves({32, 4096}, 1), y = halves({32, 4096}, 2);
  auto a = SpyreDevice::open(arch, shareOf(53, 16));
  SpyreJob jobA(*a, assembleFor(*a, addText), "a");
  // Alone (the only share attached): the card's ring and DRAM to itself.
  LaunchReport alone = add(jobA, x, y);
  const Stats aloneStats = a->stats(alone);
  EXPECT_EQ(aloneStats.get("share.launches_together"), 1);

  auto b = SpyreDevice::open(arch, shareOf(53, 16));
  SpyreJob jobB(*b, assembleFor(*b, addText), "b");
  LaunchReport outA, outB;
  std::thread other([&] { outB = add(jobB, y, x); });
  outA = add(jobA, x, y);
  other.join();
  // Each gets what it gets alone: the same sums (a + b is b + a).
  EXPECT_EQ(outA.outputs.at("C").data, alone.outputs.at("C").data);
  EXPECT_EQ(outB.outputs.at("C").data, alone.outputs.at("C").data);
  EXPECT_EQ(outA.sharedSteps, 1u);
  const Stats sa = a->stats(outA), sb = b->stats(outB);
  EXPECT_EQ(sa.get("share.launches_together"), 2);
  EXPECT_EQ(sb.get("share.first_core"), 16);
  // Both halves of the card stream through the same DRAM channels and ring: each launch
  // takes longer than alone, and the DRAM moved both shares' bytes.
  EXPECT_GT(outA.cycles, alone.cycles);
  EXPECT_GT(outB.cycles, alone.cycles);
  EXPECT_EQ(sa.get("chip.dram.bytes"), 2 * aloneStats.get("chip.dram.bytes"));
  // The same pair again gives the same modelled times.
  LaunchReport againA, againB;
  std::thread second([&] { againB = add(jobB, y, x); });
  againA = add(jobA, x, y);
  second.join();
  EXPECT_EQ(againA.cycles, outA.cycles);
  EXPECT_EQ(againB.cycles, outB.cycles);
}

} // namespace
} // namespace chipless::runtime::test
