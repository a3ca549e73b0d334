/// Tests of the one Device interface (runtime/device.h) the layers above the runtime use:
/// open by kind, memory, copies, prepare from a program directory, launch, statistics, and
/// opening the device a program was compiled for — for the Spyre card and the TPU system.
/// (runtime_test_util.h gives errorOf and EXPECT_CONTAINS only.)
#include "runtime/device.h"
#include "support/error.h"
#include "support/spyre_arch.h"
#include "support/spyrecode/assembler.h"
#include "support/spyrecode/directory.h"
#include "support/tpu_arch.h"
#include "support/tpuprog/assembler.h"
#include "support/tpuprog/directory.h"
#include "tests/unit/util/runtime_test_util.h"

#include <cstring>
#include <filesystem>
#include <gtest/gtest.h>

namespace chipless::runtime {
namespace {

using test::errorOf;
using test::kCopy;
using test::workDir;

/// Assembles kCopy for `arch` into DIR/copy; returns the plan path.
std::string copyProgram(const std::string& dir, const SpyreArch& arch) {
  spyrecode::writeJob(
      dir + "/copy",
      spyrecode::assemble(kCopy, "copy.s", spyrecode::AssembleOptions::forArch(arch)));
  return dir + "/copy/job.plan";
}

SpyreArch twoCores(std::vector<std::string> sets = {}) {
  sets.insert(sets.begin(), "chip.cores=2");
  return SpyreArch::load(SpyreArch::defaultFile(), sets);
}

TEST(DeviceInterface, ASpyreCardThroughTheInterface) {
  SpyreArch arch = twoCores();
  std::unique_ptr<Device> device = Device::open(ChipKind::Spyre, arch.description);
  EXPECT_EQ(device->kind(), ChipKind::Spyre);
  EXPECT_EQ(device->name(), "spyre:" + std::to_string(device->index()));
  EXPECT_EQ(device->arch().getInt("chip.cores"), 2);
  EXPECT_EQ(device->chips(), 1);

  // Memory: allocate, copy in, copy out.
  uint64_t at = device->allocate(256, "buffer");
  std::vector<uint8_t> bytes(256), back(256);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i * 7);
  device->copyIn(at, bytes.data(), bytes.size());
  device->copyOut(at, back.data(), back.size());
  EXPECT_EQ(back, bytes);
  EXPECT_CONTAINS(errorOf([&] { device->copyOut(at + 200, back.data(), 100); }),
                  "outside every allocation");
  device->release(at);

  // A program directory: prepare once, launch twice, read the statistics.
  std::unique_ptr<Program> program = device->prepare(copyProgram(workDir(), arch));
  EXPECT_EQ(program->info().kernel, "copy");
  ASSERT_EQ(program->info().arguments.size(), 2u);
  EXPECT_EQ(program->info().find("C")->role, spyrecode::ArgRole::Output);
  EXPECT_EQ(program->info().find("A")->shape, "(4, 64)");
  NpyArray a = makeNpy(DType::F16, {4, 64});
  for (size_t i = 0; i < a.data.size(); ++i) a.data[i] = static_cast<uint8_t>(i % 61);
  for (int launch = 0; launch < 2; ++launch) {
    LaunchReport r = device->launch(*program, {{{"A", a}}, {}, nullptr});
    ASSERT_EQ(r.outputs.count("C"), 1u);
    EXPECT_EQ(r.outputs["C"].data, a.data);
    EXPECT_GT(r.cycles, 0);
    EXPECT_GT(r.issued, 0u);
    Stats s = device->stats(r);
    EXPECT_EQ(s.get("chip.cycles"), r.cycles);
  }
  // A program belongs to the device it was prepared on.
  std::unique_ptr<Device> other = Device::open(ChipKind::Spyre, arch.description);
  EXPECT_CONTAINS(errorOf([&] {
                    other->launch(*program, {{{"A", a}}, {}, nullptr});
                  }),
                  "copy was prepared on another device");
}

TEST(DeviceInterface, DevicesOfOneProcessTakeTurnsLaunching) {
  // Each device's model lives in its own SystemC context; a launch must run in its own even
  // after another device was opened or launched (this deadlocked before a launch entered it).
  SpyreArch arch = twoCores();
  const std::string plan = copyProgram(workDir(), arch);
  std::unique_ptr<Device> first = Device::open(ChipKind::Spyre, arch.description);
  std::unique_ptr<Program> p1 = first->prepare(plan);
  std::unique_ptr<Device> second = Device::open(ChipKind::Spyre, arch.description);
  std::unique_ptr<Program> p2 = second->prepare(plan);
  // Opening a TPU system makes a third context current.
  std::unique_ptr<Device> tpu =
      Device::open(ChipKind::Tpu, TpuArch::load(TpuArch::resolveFile("v5e")).description);
  NpyArray a = makeNpy(DType::F16, {4, 64});
  for (size_t i = 0; i < a.data.size(); ++i) a.data[i] = static_cast<uint8_t>(i % 53);
  double cycles = 0;
  for (int round = 0; round < 2; ++round)
    for (auto [device, program] : {std::pair{first.get(), p1.get()}, {second.get(), p2.get()}}) {
      LaunchReport r = device->launch(*program, {{{"A", a}}, {}, nullptr});
      EXPECT_EQ(r.outputs["C"].data, a.data);
      if (cycles == 0) cycles = r.cycles;
      EXPECT_EQ(r.cycles, cycles);
    }
}

TEST(DeviceInterface, ATpuSystemCopiesToOneChipOrToEvery) {
  TpuArch arch = TpuArch::load(TpuArch::resolveFile("v5e"));
  DeviceOptions two;
  two.chips = 2;
  std::unique_ptr<Device> device = Device::open(ChipKind::Tpu, arch.description, two);
  EXPECT_EQ(device->kind(), ChipKind::Tpu);
  EXPECT_EQ(device->chips(), 2);
  EXPECT_EQ(device->name().rfind("tpu:", 0), 0u);
  uint64_t at = device->allocate(64, "t");
  const char one[4] = {1, 2, 3, 4}, all[4] = {9, 9, 9, 9};
  char got[4] = {};
  device->copyIn(at, all, 4);
  device->copyIn(at, one, 4, 1);
  device->copyOut(at, got, 4, 0);
  EXPECT_EQ(std::memcmp(got, all, 4), 0);
  device->copyOut(at, got, 4, 1);
  EXPECT_EQ(std::memcmp(got, one, 4), 0);
  EXPECT_CONTAINS(errorOf([&] { device->copyIn(at, one, 4, 2); }), "no chip 2");
  EXPECT_CONTAINS(errorOf([&] { device->copyOut(at, got, 4, -1); }), "no chip -1");
}

TEST(DeviceInterface, OpenForRunsAProgramOnTheChipItWasCompiledFor) {
  const std::string dir = workDir();
  const std::string plan = copyProgram(dir, twoCores({"scratchpad.bytes=1048576"}));
  std::unique_ptr<Device> device = Device::openFor(ChipKind::Spyre, plan, "", {});
  EXPECT_EQ(device->arch().getInt("chip.cores"), 2);
  EXPECT_EQ(device->arch().getInt("scratchpad.bytes"), 1048576);
  device.reset();
  device = Device::openFor(ChipKind::Spyre, plan, "", {"dram.bandwidth_gb_s=400"});
  EXPECT_EQ(device->arch().getFloat("dram.bandwidth_gb_s"), 400);
  EXPECT_NO_THROW(device->prepare(plan));
  device.reset();
  std::string e = errorOf([&] { Device::openFor(ChipKind::Spyre, plan, "", {"chip.cores=4"}); });
  EXPECT_CONTAINS(e, plan);
  EXPECT_CONTAINS(e, "chip.cores: compiled for 2, requested 4 (--set chip.cores=4)");
  // A device opened on another chip refuses to prepare the program.
  std::unique_ptr<Device> wide = Device::open(ChipKind::Spyre, twoCores().description);
  EXPECT_CONTAINS(errorOf([&] { wide->prepare(plan); }),
                  "scratchpad.bytes: compiled for 1048576, requested 2097152");
}

TEST(DeviceInterface, OptionsThatDoNotFitTheKindAreRefused) {
  DeviceOptions four;
  four.chips = 4;
  EXPECT_CONTAINS(errorOf([&] { Device::open(ChipKind::Spyre, twoCores().description, four); }),
                  "a Spyre card is one chip");
  four.chips = 0;
  EXPECT_CONTAINS(errorOf([&] {
                    Device::open(ChipKind::Tpu,
                                 TpuArch::load(TpuArch::resolveFile("v4")).description, four);
                  }),
                  "a TPU system has 1..");
}

} // namespace
} // namespace chipless::runtime
