#pragma once
/// The emulated Spyre card behind the devices opened on it (SharedMachine over the Spyre
/// traits): its device memory, the elaborated Chip and the device lock. A share is on cores
/// of its own and a window of the job address space of its own, cut into the same number of
/// segments as the card's.
#include "runtime/shared_machine.h"
#include "sim/spyre/chip.h"
#include "support/spyre_arch.h"

#include <memory>
#include <string>
#include <vector>

namespace chipless::runtime {

/// What SharedMachine needs to know of a Spyre card.
struct SpyreMachineTraits {
  using Arch = SpyreArch;
  using Model = sim::spyre::Chip;
  using Binary = spyrecode::JobBinary;
  using Result = sim::spyre::LaunchResult;
  static constexpr const char* kKind = "spyre";
  static constexpr const char* kCore = "core";
  static constexpr const char* kCores = "core(s)";
  static constexpr const char* kCoresKey = "chip.cores";
  static constexpr const char* kMemory = "device memory";
  static constexpr const char* kMemoryKey = "memory.segments x memory.segment_bytes";
  static constexpr const char* kOnEveryChip = "";
  static int cores(const Arch& arch) { return arch.chip.cores; }
  /// The job address space: every segment.
  static uint64_t memoryBytes(const Arch& arch) {
    return static_cast<uint64_t>(arch.memory.segments) *
           static_cast<uint64_t>(arch.memory.segment_bytes);
  }
  /// A share's window holds the same number of aligned segments.
  static uint64_t windowGranule(const Arch& arch) {
    return static_cast<uint64_t>(arch.memory.segments) *
           static_cast<uint64_t>(arch.memory.alignment_bytes);
  }
  static int memories(const DeviceOptions&) { return 1; }
  static std::unique_ptr<Model>
  elaborate(const Arch& arch, const std::vector<sim::DeviceMemory*>& memories, bool timingOnly) {
    return std::make_unique<Model>(arch, *memories.front(), timingOnly);
  }
  /// What a share's description changes of the whole card's: its cores, and segments of
  /// its window's size.
  static std::vector<std::string> shareOverrides(const Arch& arch, const sim::Partition& p) {
    return {"chip.cores=" + std::to_string(p.cores),
            "memory.segment_bytes=" +
                std::to_string(p.memoryBytes / static_cast<uint64_t>(arch.memory.segments))};
  }
};

using SpyreMachine = SharedMachine<SpyreMachineTraits>;

} // namespace chipless::runtime
