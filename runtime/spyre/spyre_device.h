#pragma once
/// An emulated Spyre card opened by one owner (the Spyre implementation of runtime::Device):
/// its architecture, device memory, the elaborated chip model, and an allocator over the
/// job address space (memory.segments segments; memory.program_segment holds SpyreCode).
#include "runtime/chip_device.h"
#include "runtime/device.h"
#include "runtime/device_lock.h"
#include "runtime/range_allocator.h"
#include "sim/common/device_memory.h"
#include "sim/common/sim_context.h"
#include "sim/spyre/chip.h"
#include "support/spyre_arch.h"
#include "support/spyrecode/assembler.h"

#include <memory>
#include <string>

namespace chipless::runtime {

struct SpyreChip;
/// A SpyreCode job prepared on a Spyre card (runtime/spyre/spyre_job.h).
using SpyreJob = PreparedJob<SpyreChip>;

class SpyreDevice final : public ChipDevice<SpyreChip, spyrecode::Job> {
public:
  /// Opens a card for exclusive use (a lock file per device number: "spyre:N").
  static std::unique_ptr<SpyreDevice> open(const SpyreArch& arch,
                                           const DeviceOptions& options = {});
  ~SpyreDevice() override;
  SpyreDevice(const SpyreDevice&) = delete;
  SpyreDevice& operator=(const SpyreDevice&) = delete;

  // ---- runtime::Device ----------------------------------------------------------------
  ChipKind kind() const override { return ChipKind::Spyre; }
  int index() const override { return lock_.index(); }
  const ArchDescription& arch() const override { return arch_.description; }
  bool timingOnly() const override { return options_.timingOnly; }
  /// Tensors go to segment 0.
  uint64_t allocate(uint64_t bytes, const std::string& name) override;
  void release(uint64_t address) override;
  void copyIn(uint64_t address, const void* data, uint64_t bytes, int chip = -1) override;
  void copyOut(uint64_t address, void* data, uint64_t bytes, int chip = 0) const override;
  Stats stats(const LaunchReport& last) const override;

  // ---- for the Spyre runtime and its tests --------------------------------------------
  const SpyreArch& spyreArch() const { return arch_; }
  sim::DeviceMemory& memory() { return memory_; }
  sim::spyre::Chip& chip() { return *chip_; }
  /// Makes this device's SystemC context current: each device of a process elaborates its
  /// model in its own context, and a launch must run in the one its model lives in.
  void enterContext() { context_->enter(); }
  /// What is allocated in device memory.
  const RangeAllocator& ranges() const { return ranges_; }

  /// Allocates `size` bytes in `segment` (first fit, memory.alignment_bytes aligned).
  uint64_t allocate(int segment, uint64_t size, const std::string& name);
  /// Claims [address, address+size) exactly (SpyreCode preparation gives addresses).
  void allocateAt(uint64_t address, uint64_t size, const std::string& name);
  /// Where `size` bytes can go in `segment`: `preferred` if that range is free, else the
  /// first free aligned range. Throws chipless::Error if the segment is full.
  uint64_t placeRange(int segment, uint64_t preferred, uint64_t size) const;
  /// First address of a segment.
  uint64_t segmentBase(int segment) const {
    return static_cast<uint64_t>(segment) * static_cast<uint64_t>(arch_.memory.segment_bytes);
  }

private:
  SpyreDevice(const SpyreArch& arch, const DeviceOptions& options, DeviceLock lock);
  SpyreArch arch_;
  DeviceOptions options_;
  DeviceLock lock_; ///< held until the device is closed
  sim::DeviceMemory memory_;
  std::unique_ptr<sim::SimContext> context_; ///< outlives the chip elaborated in it
  std::unique_ptr<sim::spyre::Chip> chip_;
  RangeAllocator ranges_; ///< what is allocated in the job address space
};

} // namespace chipless::runtime
