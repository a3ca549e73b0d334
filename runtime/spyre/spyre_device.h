#pragma once
/// An emulated Spyre card opened by one owner, or a share of one (the Spyre implementation of
/// runtime::Device): its architecture, its view of device memory, and an allocator over the
/// job address space (memory.segments segments; memory.program_segment holds SpyreCode). The
/// card itself (memory, chip model, lock) is a SpyreMachine; a share sees its cores as cores
/// 0.. and its window of device memory as a job address space of its own, from 0.
#include "runtime/chip_device.h"
#include "runtime/device.h"
#include "runtime/range_allocator.h"
#include "runtime/spyre/spyre_machine.h"
#include "sim/common/partition.h"
#include "sim/spyre/chip.h"
#include "support/spyre_arch.h"
#include "support/spyrecode/assembler.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace chipless::runtime {

struct SpyreChip;
/// A SpyreCode job prepared on a Spyre card (runtime/spyre/spyre_job.h).
using SpyreJob = PreparedJob<SpyreChip>;

class SpyreDevice final : public ChipDevice<SpyreChip, spyrecode::Job> {
public:
  /// Opens a card for exclusive use (a lock file per device number: "spyre:N"), or, with
  /// `options.share`, a share of it (DeviceShare).
  static std::unique_ptr<SpyreDevice> open(const SpyreArch& arch,
                                           const DeviceOptions& options = {});
  ~SpyreDevice() override;
  SpyreDevice(const SpyreDevice&) = delete;
  SpyreDevice& operator=(const SpyreDevice&) = delete;

  // ---- runtime::Device ----------------------------------------------------------------
  ChipKind kind() const override { return ChipKind::Spyre; }
  int index() const override { return machine_->index(); }
  /// A share's description says its own cores and segments (chip.cores,
  /// memory.segment_bytes): what its programs are compiled for.
  const ArchDescription& arch() const override { return arch_.description; }
  bool timingOnly() const override { return machine_->options().timingOnly; }
  std::optional<ShareInfo> shareInfo() const override { return shareInfo_; }
  /// Tensors go to segment 0.
  uint64_t allocate(uint64_t bytes, const std::string& name) override;
  void release(uint64_t address) override;
  void copyIn(uint64_t address, const void* data, uint64_t bytes, int chip = -1) override;
  void copyOut(uint64_t address, void* data, uint64_t bytes, int chip = 0) const override;
  Stats stats(const LaunchReport& last) const override;

  // ---- for the Spyre runtime and its tests --------------------------------------------
  /// The architecture of this device (a share's: its cores and segments).
  const SpyreArch& spyreArch() const { return arch_; }
  /// The card's device memory, all of it (a share's window starts at
  /// partition().memoryBase).
  sim::DeviceMemory& memory() { return machine_->memory(0); }
  /// The bytes [address, address+bytes) of one allocation of this device, or nullptr.
  uint8_t* span(uint64_t address, uint64_t bytes);
  /// Runs `binary` on this device's cores (a share's together with the other shares'
  /// launches that meet it, SharedMachine); throws for a fault or a deadlock.
  sim::spyre::LaunchResult run(const spyrecode::JobBinary& binary,
                               const std::vector<int64_t>& symbols, TraceWriter* trace);
  /// Whether the latest run() ran in one simulation with other shares' launches.
  bool lastRunShared() const { return lastRunShared_; }
  /// Makes this device's SystemC context current: each device of a process elaborates its
  /// model in its own context, and a launch must run in the one its model lives in.
  void enterContext() { machine_->enterContext(); }
  /// What is allocated in this device's job address space.
  const RangeAllocator& ranges() const { return ranges_; }
  /// The cores and window of device memory this device runs on (the whole card unless a
  /// share).
  const sim::Partition& partition() const { return partition_; }

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
  SpyreDevice(std::shared_ptr<SpyreMachine> machine, SpyreMachine::View view);
  /// The device address of this device's address `address`.
  uint64_t deviceAddress(uint64_t address) const { return partition_.deviceAddress(address); }
  /// Fails unless [address, address+bytes) lies in this device's job address space.
  void checkRange(uint64_t address, uint64_t bytes) const;

  std::shared_ptr<SpyreMachine> machine_;
  SpyreArch arch_;
  sim::Partition partition_;
  RangeAllocator ranges_; ///< what is allocated in the job address space
  std::optional<ShareInfo> shareInfo_;
  std::optional<Stats> shareStats_; ///< a share's statistics of its latest launch
  bool lastRunShared_ = false;
};

} // namespace chipless::runtime
