#pragma once
/// An emulated TPU system opened by one owner (the TPU implementation of runtime::Device):
/// its architecture, the HBM of each chip, the elaborated SystemC model, and an allocator
/// over the HBM address space. Every allocation is made at the same address on every chip
/// (SPMD programs use the same addresses).
#include "runtime/chip_device.h"
#include "runtime/device.h"
#include "runtime/device_lock.h"
#include "runtime/range_allocator.h"
#include "sim/common/device_memory.h"
#include "sim/common/sim_context.h"
#include "sim/tpu/system.h"
#include "support/tpu_arch.h"
#include "support/tpuprog/assembler.h"

#include <memory>
#include <string>
#include <vector>

namespace chipless::runtime {

struct TpuChip;
/// A TPU program prepared on a TPU system (runtime/tpu/tpu_job.h).
using TpuJob = PreparedJob<TpuChip>;

class TpuDevice final : public ChipDevice<TpuChip, tpuprog::Job> {
public:
  /// Opens a system of `options.chips` chips for exclusive use (a lock file per device
  /// number: "tpu:N").
  static std::unique_ptr<TpuDevice> open(const TpuArch& arch, const DeviceOptions& options = {});
  ~TpuDevice() override;
  TpuDevice(const TpuDevice&) = delete;
  TpuDevice& operator=(const TpuDevice&) = delete;

  // ---- runtime::Device ----------------------------------------------------------------
  ChipKind kind() const override { return ChipKind::Tpu; }
  int index() const override { return lock_.index(); }
  const ArchDescription& arch() const override { return arch_.description; }
  bool timingOnly() const override { return options_.timingOnly; }
  int chips() const override { return options_.chips; }
  /// Allocates `bytes` on every chip (first fit, hbm.alignment_bytes aligned).
  uint64_t allocate(uint64_t bytes, const std::string& name) override;
  void release(uint64_t address) override;
  void copyIn(uint64_t address, const void* data, uint64_t bytes, int chip = -1) override;
  void copyOut(uint64_t address, void* data, uint64_t bytes, int chip = 0) const override;
  Stats stats(const LaunchReport& last) const override;

  // ---- for the TPU runtime and its tests ----------------------------------------------
  const TpuArch& tpuArch() const { return arch_; }
  sim::DeviceMemory& memory(int chip) { return *memories_[chip]; }
  sim::tpu::System& system() { return *system_; }
  /// Makes this device's SystemC context current: each device of a process elaborates its
  /// model in its own context, and a launch must run in the one its model lives in.
  void enterContext() { context_->enter(); }
  /// What is allocated in device memory.
  const RangeAllocator& ranges() const { return ranges_; }

  /// Where `size` bytes can go: `preferred` if that range is free, else the first free
  /// aligned range. Throws chipless::Error when HBM is full.
  uint64_t placeRange(uint64_t preferred, uint64_t size) const;
  /// Claims [address, address+size) on every chip (a plan's preparation gives addresses).
  void allocateAt(uint64_t address, uint64_t size, const std::string& name);

private:
  TpuDevice(const TpuArch& arch, const DeviceOptions& options, DeviceLock lock);
  /// Fails unless `chip` is -1 (for copyIn: every chip) or a chip of the system.
  void checkChip(int chip, bool allowAll) const;
  TpuArch arch_;
  DeviceOptions options_;
  DeviceLock lock_;
  std::vector<std::unique_ptr<sim::DeviceMemory>> memories_;
  std::unique_ptr<sim::SimContext> context_; ///< outlives the model elaborated in it
  std::unique_ptr<sim::tpu::System> system_;
  RangeAllocator ranges_; ///< what is allocated in HBM (the same on every chip)
};

} // namespace chipless::runtime
