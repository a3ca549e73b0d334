#pragma once
/// The emulated chip behind the devices opened on it, written once for both chips over their
/// traits (TpuMachineTraits, SpyreMachineTraits): its device memory (one per chip of a TPU
/// system), the elaborated SystemC model and the device lock. A device with one owner is the
/// one view of its machine; a device served with --share has one view per share, each on its
/// own cores and window of device memory, whose launches meet at the machine's gate and run
/// in one simulation. The definitions are in shared_machine_impl.h, instantiated once per
/// chip.
#include "runtime/co_launch_gate.h"
#include "runtime/device.h"
#include "runtime/device_lock.h"
#include "runtime/range_allocator.h"
#include "sim/common/device_memory.h"
#include "sim/common/partition.h"
#include "sim/common/sim_context.h"

#include <memory>
#include <mutex>
#include <optional>
#include <vector>

namespace chipless::runtime {

/// `Traits` says per chip: `Arch`, `Model` (the elaborated chip or system), `Binary`,
/// `Result` (a launch's), `kKind` ("tpu"), `kCores` ("TensorCore(s)"), `kCoresKey`,
/// `kMemory` ("HBM"), `kMemoryKey`, and `cores(arch)`, `memoryBytes(arch)`,
/// `windowGranule(arch)`, `memories(options)`, `elaborate(arch, memories, timingOnly)`,
/// `shareOverrides(arch, partition)`.
template <typename Traits>
class SharedMachine {
public:
  using Arch = typename Traits::Arch;
  using Model = typename Traits::Model;
  using Binary = typename Traits::Binary;
  using Result = typename Traits::Result;

  /// Elaborates the model of `arch` (with `options.chips` chips where the chip has several),
  /// held by `lock`; `shared` when its devices are shares.
  SharedMachine(const Arch& arch, const DeviceOptions& options, DeviceLock lock, bool shared);
  ~SharedMachine();
  SharedMachine(const SharedMachine&) = delete;
  SharedMachine& operator=(const SharedMachine&) = delete;

  /// The machine of device `options.index`, elaborated for `options` (one owner: the lock
  /// says whether it is free; a share: this process's shared machine of that device, made on
  /// first use, which a share must ask for on the architecture it models).
  static std::shared_ptr<SharedMachine> open(const Arch& arch, const DeviceOptions& options);

  const Arch& arch() const { return arch_; }
  const DeviceOptions& options() const { return options_; }
  int index() const { return lock_.index(); }
  int chips() const { return static_cast<int>(memories_.size()); }
  bool shared() const { return shared_; }
  sim::DeviceMemory& memory(int chip) { return *memories_[static_cast<size_t>(chip)]; }
  const sim::DeviceMemory& memory(int chip) const { return *memories_[static_cast<size_t>(chip)]; }
  Model& model() { return *model_; }
  const Model& model() const { return *model_; }
  /// Makes the model's SystemC context current (a launch must run in it).
  void enterContext() { context_->enter(); }
  /// Held while device memory or the model is used: the shares' requests come from several
  /// threads of the device server's worker.
  std::mutex& mutex() const { return mutex_; }
  CoLaunchGate& gate() { return gate_; }

  /// Claims `cores` cores (the lowest free ones side by side) and `bytes` of device memory
  /// (0: the cores' part of it) for a share; throws naming what is taken.
  sim::Partition claimShare(int cores, uint64_t bytes);
  /// Gives a share's cores and memory back.
  void releaseShare(const sim::Partition& partition);

  /// What a device opened on this machine sees: its architecture (a share's: `arch` with the
  /// share's overrides), partition and share.
  struct View {
    Arch arch;
    sim::Partition partition;
    std::optional<ShareInfo> share;
  };
  /// The whole machine on `arch`, or a new share of it when `options` ask for one (claimed
  /// here: the view's device gives it back).
  View view(const Arch& arch, const DeviceOptions& options);

  /// What a launch of a share did.
  struct ShareRun {
    Result result;
    Stats stats;           ///< its statistics, with its share's (a share only)
    bool together = false; ///< whether other shares' launches ran in its simulation
  };
  /// Runs `binary` with `symbols` on `partition`: at once on a machine with one owner, or at
  /// the gate with the launches of the other shares that meet it. Throws for a fault, a trap
  /// or a deadlock.
  ShareRun run(const sim::Partition& partition, const Binary& binary,
               const std::vector<int64_t>& symbols, TraceWriter* trace);

private:
  /// One launch waiting at the gate (CoLaunchGate::Arrival::launch).
  struct Launch {
    const Binary* binary = nullptr;
    const std::vector<int64_t>* symbols = nullptr;
    TraceWriter* trace = nullptr;
    sim::Partition partition;
    ShareRun run;
  };
  /// Runs a round of the shares' launches (the gate's runner).
  void runRound(const std::vector<CoLaunchGate::Arrival*>& arrivals);

  Arch arch_;
  DeviceOptions options_;
  DeviceLock lock_;
  bool shared_;
  std::vector<std::unique_ptr<sim::DeviceMemory>> memories_;
  std::unique_ptr<sim::SimContext> context_; ///< outlives the model elaborated in it
  std::unique_ptr<Model> model_;
  mutable std::mutex mutex_;
  std::vector<bool> coreTaken_; ///< by a share
  RangeAllocator windows_;      ///< the shares' windows of device memory
  CoLaunchGate gate_;
};

} // namespace chipless::runtime
