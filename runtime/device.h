#pragma once
/// An emulated Spyre card opened by one owner: its architecture, device memory, the
/// elaborated chip model, and an allocator over the job address space (8 segments of
/// 16 GB; segment 7 holds SpyreCode).
#include "runtime/device_lock.h"
#include "runtime/range_allocator.h"
#include "sim/common/sim_context.h"
#include "sim/spyre/chip.h"
#include "sim/spyre/device_memory.h"
#include "support/spyre_arch.h"

#include <memory>
#include <string>

namespace chipless::runtime {

/// How to open a device.
struct DeviceOptions {
  int index = -1;          ///< device number; -1 picks the first free one
  bool timingOnly = false; ///< skip arithmetic and data (large what-if runs)
};

class Device {
public:
  /// Opens a device for exclusive use. Ownership is a lock file per device number (in
  /// $CHIPLESS_LOCK_DIR, else $XDG_RUNTIME_DIR, else /tmp), so a second open of the
  /// same device, from this process or another, fails with an error naming the owner.
  static std::unique_ptr<Device> open(const SpyreArch& arch, const DeviceOptions& options = {});
  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  int index() const { return lock_.index(); }
  const SpyreArch& arch() const { return arch_; }
  bool timingOnly() const { return options_.timingOnly; }
  sim::spyre::DeviceMemory& memory() { return memory_; }
  sim::spyre::Chip& chip() { return *chip_; }

  /// Allocates `size` bytes in `segment` (first fit, memory.alignment_bytes aligned).
  uint64_t allocate(int segment, uint64_t size, const std::string& name);
  /// Claims [address, address+size) exactly (SpyreCode preparation gives addresses).
  void allocateAt(uint64_t address, uint64_t size, const std::string& name);
  /// Where `size` bytes can go in `segment`: `preferred` if that range is free, else the
  /// first free aligned range. Throws chipless::Error if the segment is full.
  uint64_t placeRange(int segment, uint64_t preferred, uint64_t size) const;
  /// Frees an allocation made by allocate/allocateAt.
  void release(uint64_t address);
  /// First address of a segment.
  uint64_t segmentBase(int segment) const {
    return static_cast<uint64_t>(segment) * static_cast<uint64_t>(arch_.memory.segment_bytes);
  }

private:
  Device(const SpyreArch& arch, const DeviceOptions& options, DeviceLock lock);
  SpyreArch arch_;
  DeviceOptions options_;
  DeviceLock lock_; ///< held until the device is closed
  sim::spyre::DeviceMemory memory_;
  std::unique_ptr<sim::SimContext> context_; ///< outlives the chip elaborated in it
  std::unique_ptr<sim::spyre::Chip> chip_;
  RangeAllocator ranges_; ///< what is allocated in the job address space
};

} // namespace chipless::runtime
