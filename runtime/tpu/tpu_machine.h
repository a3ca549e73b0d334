#pragma once
/// The emulated TPU system behind the devices opened on it (SharedMachine over the TPU's
/// traits): the HBM of each chip, the elaborated System and the device lock. A share is on
/// the same TensorCores of every chip and the same HBM window of every chip.
#include "runtime/shared_machine.h"
#include "sim/tpu/system.h"
#include "support/tpu_arch.h"

#include <memory>
#include <string>
#include <vector>

namespace chipless::runtime {

/// What SharedMachine needs to know of a TPU system.
struct TpuMachineTraits {
  using Arch = TpuArch;
  using Model = sim::tpu::System;
  using Binary = tpuprog::JobBinary;
  using Result = sim::tpu::LaunchResult;
  static constexpr const char* kKind = "tpu";
  static constexpr const char* kCore = "TensorCore";
  static constexpr const char* kCores = "TensorCore(s)";
  static constexpr const char* kCoresKey = "chip.tensorcores";
  static constexpr const char* kMemory = "HBM";
  static constexpr const char* kMemoryKey = "hbm.capacity_bytes";
  static constexpr const char* kOnEveryChip = " (on every chip)";
  static int cores(const Arch& arch) { return arch.chip.tensorcores; }
  /// Bytes of HBM per chip.
  static uint64_t memoryBytes(const Arch& arch) {
    return static_cast<uint64_t>(arch.hbm.capacity_bytes);
  }
  /// A share's window is a whole number of these.
  static uint64_t windowGranule(const Arch& arch) {
    return static_cast<uint64_t>(arch.hbm.alignment_bytes);
  }
  static int memories(const DeviceOptions& options) { return options.chips; }
  static std::unique_ptr<Model>
  elaborate(const Arch& arch, const std::vector<sim::DeviceMemory*>& memories, bool timingOnly) {
    return std::make_unique<Model>(arch, memories, timingOnly);
  }
  /// What a share's description changes of the whole system's.
  static std::vector<std::string> shareOverrides(const Arch&, const sim::Partition& p) {
    return {"chip.tensorcores=" + std::to_string(p.cores),
            "hbm.capacity_bytes=" + std::to_string(p.memoryBytes)};
  }
};

using TpuMachine = SharedMachine<TpuMachineTraits>;

} // namespace chipless::runtime
