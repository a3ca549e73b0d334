#pragma once
/// An emulated TPU system opened by one owner: its architecture, the HBM of each chip, the
/// elaborated SystemC model, and an allocator over the HBM address space. Every allocation
/// is made at the same address on every chip (SPMD programs use the same addresses).
#include "runtime/device_lock.h"
#include "runtime/range_allocator.h"
#include "sim/common/device_memory.h"
#include "sim/common/sim_context.h"
#include "sim/tpu/system.h"
#include "support/tpu_arch.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace chipless::runtime {

/// How to open a TPU device.
struct TpuDeviceOptions {
  int index = -1;          ///< device number; -1 picks the first free one
  bool timingOnly = false; ///< skip arithmetic and data (large what-if runs)
  int chips = 1;           ///< chips joined by ICI (ici.topology)
};

class TpuDevice {
public:
  /// Opens a device for exclusive use (a lock file per device number: "tpu:N"), so a second
  /// open of the same device, from this process or another, fails naming the owner.
  static std::unique_ptr<TpuDevice> open(const TpuArch& arch, const TpuDeviceOptions& options = {});
  ~TpuDevice();
  TpuDevice(const TpuDevice&) = delete;
  TpuDevice& operator=(const TpuDevice&) = delete;

  int index() const { return lock_.index(); }
  const TpuArch& arch() const { return arch_; }
  bool timingOnly() const { return options_.timingOnly; }
  int chips() const { return options_.chips; }
  sim::DeviceMemory& memory(int chip) { return *memories_[chip]; }
  sim::tpu::System& system() { return *system_; }

  /// Allocates `size` bytes on every chip (first fit, hbm.alignment_bytes aligned).
  uint64_t allocate(uint64_t size, const std::string& name);
  /// Where `size` bytes can go: `preferred` if that range is free, else the first free
  /// aligned range. Throws chipless::Error when HBM is full.
  uint64_t placeRange(uint64_t preferred, uint64_t size) const;
  /// Claims [address, address+size) on every chip (a plan's preparation gives addresses).
  void allocateAt(uint64_t address, uint64_t size, const std::string& name);
  /// Frees an allocation made by allocate/allocateAt.
  void release(uint64_t address);
  /// Writes the same bytes at `address` of every chip.
  void writeAll(uint64_t address, const void* data, uint64_t size);

private:
  TpuDevice(const TpuArch& arch, const TpuDeviceOptions& options, DeviceLock lock);
  TpuArch arch_;
  TpuDeviceOptions options_;
  DeviceLock lock_;
  std::vector<std::unique_ptr<sim::DeviceMemory>> memories_;
  std::unique_ptr<sim::SimContext> context_; ///< outlives the model elaborated in it
  std::unique_ptr<sim::tpu::System> system_;
  RangeAllocator ranges_; ///< what is allocated in HBM (the same on every chip)
};

} // namespace chipless::runtime
