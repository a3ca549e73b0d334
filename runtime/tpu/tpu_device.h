#pragma once
/// An emulated TPU system opened by one owner, or a share of one (the TPU implementation of
/// runtime::Device): the architecture it presents, its view of HBM, and its allocations.
/// Every allocation is made at the same address on every chip (SPMD programs use the same
/// addresses). The system itself (HBM, model, lock) is a TpuMachine; a share sees its
/// TensorCores as cores 0.. and its HBM window as addresses 0...
#include "runtime/chip_device.h"
#include "runtime/device.h"
#include "runtime/range_allocator.h"
#include "runtime/tpu/tpu_machine.h"
#include "sim/common/partition.h"
#include "sim/tpu/system.h"
#include "support/tpu_arch.h"
#include "support/tpuprog/assembler.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace chipless::runtime {

struct TpuChip;
/// A TPU program prepared on a TPU system (runtime/tpu/tpu_job.h).
using TpuJob = PreparedJob<TpuChip>;

class TpuDevice final : public ChipDevice<TpuChip, tpuprog::Job> {
public:
  /// Opens a system of `options.chips` chips for exclusive use (a lock file per device
  /// number: "tpu:N"), or, with `options.share`, a share of it (DeviceShare).
  static std::unique_ptr<TpuDevice> open(const TpuArch& arch, const DeviceOptions& options = {});
  ~TpuDevice() override;
  TpuDevice(const TpuDevice&) = delete;
  TpuDevice& operator=(const TpuDevice&) = delete;

  // ---- runtime::Device ----------------------------------------------------------------
  ChipKind kind() const override { return ChipKind::Tpu; }
  int index() const override { return machine_->index(); }
  /// A share's description says its own TensorCores and HBM (chip.tensorcores,
  /// hbm.capacity_bytes): what its programs are compiled for.
  const ArchDescription& arch() const override { return arch_.description; }
  bool timingOnly() const override { return machine_->options().timingOnly; }
  int chips() const override { return machine_->chips(); }
  std::optional<ShareInfo> shareInfo() const override { return shareInfo_; }
  /// Allocates `bytes` on every chip (first fit, hbm.alignment_bytes aligned).
  uint64_t allocate(uint64_t bytes, const std::string& name) override;
  void release(uint64_t address) override;
  void copyIn(uint64_t address, const void* data, uint64_t bytes, int chip = -1) override;
  void copyOut(uint64_t address, void* data, uint64_t bytes, int chip = 0) const override;
  Stats stats(const LaunchReport& last) const override;

  // ---- for the TPU runtime and its tests ----------------------------------------------
  /// The architecture of this device (a share's: its TensorCores and HBM).
  const TpuArch& tpuArch() const { return arch_; }
  /// The bytes [address, address+bytes) of one allocation on `chip`, or nullptr.
  uint8_t* span(int chip, uint64_t address, uint64_t bytes);
  /// Runs `binary` on this device's TensorCores (a share's together with the other shares'
  /// launches that meet it, TpuMachine); throws for a fault, a trap or a deadlock.
  sim::tpu::LaunchResult run(const tpuprog::JobBinary& binary, const std::vector<int64_t>& symbols,
                             TraceWriter* trace);
  /// Whether the latest run() ran in one simulation with other shares' launches.
  bool lastRunShared() const { return lastRunShared_; }
  /// Makes the model's SystemC context current: each device of a process elaborates its
  /// model in its own context, and a launch must run in the one its model lives in.
  void enterContext() { machine_->enterContext(); }
  /// What is allocated in this device's HBM.
  const RangeAllocator& ranges() const { return ranges_; }
  /// Where `size` bytes can go: `preferred` if that range is free, else the first free
  /// aligned range. Throws chipless::Error when HBM is full.
  uint64_t placeRange(uint64_t preferred, uint64_t size) const;
  /// Claims [address, address+size) on every chip (a plan's preparation gives addresses).
  void allocateAt(uint64_t address, uint64_t size, const std::string& name);
  /// The cores and HBM window this device runs on (the whole system unless a share).
  const sim::Partition& partition() const { return partition_; }

private:
  TpuDevice(std::shared_ptr<TpuMachine> machine, TpuMachine::View view);
  /// Fails unless `chip` is -1 (for copyIn: every chip) or a chip of the system.
  void checkChip(int chip, bool allowAll) const;
  /// The device address of this device's HBM address `address`.
  uint64_t deviceAddress(uint64_t address) const { return partition_.memoryBase + address; }
  /// Bytes of HBM this device sees.
  uint64_t capacity() const { return static_cast<uint64_t>(arch_.hbm.capacity_bytes); }

  std::shared_ptr<TpuMachine> machine_;
  TpuArch arch_;
  sim::Partition partition_;
  RangeAllocator ranges_; ///< what is allocated in this device's HBM (the same on every chip)
  std::optional<Stats> shareStats_; ///< a share's statistics of its latest launch
  std::optional<ShareInfo> shareInfo_;
  bool lastRunShared_ = false;
};

} // namespace chipless::runtime
