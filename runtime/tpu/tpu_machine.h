#pragma once
/// The emulated TPU system behind the devices opened on it: the HBM of each chip, the
/// elaborated SystemC model and the device lock. A device with one owner is the one view of
/// its machine; a device served with --share has one view (a TpuDevice) per share, each on
/// its own TensorCores and HBM window, whose launches meet at the machine's gate and run in
/// one simulation.
#include "runtime/co_launch_gate.h"
#include "runtime/device.h"
#include "runtime/device_lock.h"
#include "runtime/range_allocator.h"
#include "sim/common/device_memory.h"
#include "sim/common/partition.h"
#include "sim/common/sim_context.h"
#include "sim/tpu/system.h"
#include "support/tpu_arch.h"

#include <memory>
#include <mutex>
#include <vector>

namespace chipless::runtime {

class TpuMachine {
public:
  /// Elaborates the model of `arch` with `options.chips` chips, held by `lock`; `shared`
  /// when its devices are shares.
  TpuMachine(const TpuArch& arch, const DeviceOptions& options, DeviceLock lock, bool shared);
  ~TpuMachine();
  TpuMachine(const TpuMachine&) = delete;
  TpuMachine& operator=(const TpuMachine&) = delete;

  /// The shared machine of device `index` in this process, elaborated on first use (-1: the
  /// first shared one, else the first free device). A share must ask for the architecture
  /// the machine models.
  static std::shared_ptr<TpuMachine> openShared(const TpuArch& arch, const DeviceOptions& options);

  const TpuArch& arch() const { return arch_; }
  const DeviceOptions& options() const { return options_; }
  int index() const { return lock_.index(); }
  int chips() const { return options_.chips; }
  bool shared() const { return shared_; }
  sim::DeviceMemory& memory(int chip) { return *memories_[static_cast<size_t>(chip)]; }
  const sim::DeviceMemory& memory(int chip) const { return *memories_[static_cast<size_t>(chip)]; }
  sim::tpu::System& system() { return *system_; }
  /// Makes the model's SystemC context current (a launch must run in it).
  void enterContext() { context_->enter(); }
  /// Held while device memory or the model is used: the shares' requests come from several
  /// threads of the device server's worker.
  std::mutex& mutex() const { return mutex_; }
  CoLaunchGate& gate() { return gate_; }

  /// Claims `cores` TensorCores (the lowest free ones) and `bytes` of HBM (0: the cores'
  /// part of it) for a share; throws naming what is taken.
  sim::Partition claimShare(int cores, uint64_t bytes);
  /// Gives a share's cores and HBM back.
  void releaseShare(const sim::Partition& partition);

private:
  /// Runs a round of the shares' launches (the gate's runner).
  void runRound(const std::vector<CoLaunchGate::Arrival*>& arrivals);

  TpuArch arch_;
  DeviceOptions options_;
  DeviceLock lock_;
  bool shared_;
  std::vector<std::unique_ptr<sim::DeviceMemory>> memories_;
  std::unique_ptr<sim::SimContext> context_; ///< outlives the model elaborated in it
  std::unique_ptr<sim::tpu::System> system_;
  mutable std::mutex mutex_;
  std::vector<bool> coreTaken_; ///< by a share
  RangeAllocator windows_;      ///< the shares' HBM windows
  CoLaunchGate gate_;
};

/// One launch of a share waiting at its machine's gate (CoLaunchGate::Arrival::launch).
struct TpuShareLaunch {
  const tpuprog::JobBinary* binary = nullptr;
  const std::vector<int64_t>* symbols = nullptr;
  TraceWriter* trace = nullptr;
  sim::Partition partition;
  sim::tpu::LaunchResult result;
  Stats stats;         ///< the launch's statistics, with its share's
  size_t together = 0; ///< the launches that ran in its simulation, itself included
};

} // namespace chipless::runtime
