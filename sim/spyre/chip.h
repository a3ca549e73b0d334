#pragma once
/// The emulated Spyre card: cores and DRAM channel ports on a bidirectional ring, device
/// memory, and the launch of a job binary on them.
///
/// A Chip is elaborated once and runs many launches. SystemC elaborates one module
/// hierarchy per kernel context, so construct each Chip right after `freshSimContext()`.
#include "sim/common/device_memory.h"
#include "sim/common/launch_host.h"
#include "sim/common/partition.h"
#include "sim/common/sim_context.h"
#include "sim/spyre/core.h"
#include "sim/spyre/dram.h"
#include "sim/spyre/ring.h"
#include "support/numerics.h"
#include "support/spyre_arch.h"
#include "support/spyrecode/program.h"
#include "support/stats.h"
#include "support/trace.h"

#include <memory>
#include <string>
#include <systemc>
#include <vector>

namespace chipless::sim::spyre {

using sim::freshSimContext; // sim/common/sim_context.h

/// What one launch did: cycles (from launch to the last engine or transfer finishing), host
/// seconds, and the instructions executed by all engines.
struct LaunchResult : LaunchTimes {
  uint64_t instructions = 0; ///< executed by all engines
};

/// One binary's part of a launch of several (the shares of a card, runtime/device.h): its
/// programs run on the partition's cores and address its window of device memory.
using SpyreLaunchPart = LaunchPart<spyrecode::JobBinary>;

/// The launch prelude, abort path, faults, symbols, progress and trace helpers come from
/// LaunchHost (sim/common/launch_host.h); the Chip adds the cores, ring and DRAM, the
/// assignment of programs to engines, the trace layout and the statistics. Every launch
/// starts at time 0, so repeated launches give the same cycles.
class Chip : public LaunchHost {
public:
  /// `memory` is the card's device memory (owned by the caller: the runtime allocates in
  /// it). With `timingOnly`, no arithmetic is done and no bytes are moved.
  Chip(const SpyreArch& arch, DeviceMemory& memory, bool timingOnly);

  /// Runs every program of `binary` on its engines with the symbols bound to
  /// `symbolValues` (one per binary.symbols entry). Throws chipless::Error for a program
  /// that does not fit the chip, for a fault (naming engine, pc and address) and for a
  /// deadlock (naming every blocked engine, its pc and what it waits on). `trace` may be
  /// null.
  LaunchResult launch(const spyrecode::JobBinary& binary, const std::vector<int64_t>& symbolValues,
                      TraceWriter* trace);
  /// Runs several binaries at once, each on its partition (disjoint cores), in one
  /// simulation: they contend for the ring and the DRAM channels. Returns each part's result:
  /// its cycles until its own engines and transfers finished. A fault in any part stops
  /// them all.
  std::vector<LaunchResult> launch(const std::vector<SpyreLaunchPart>& parts, TraceWriter* trace);

  /// Adds the statistics of the last launch under "chip." to `stats`. Host wall-clock time
  /// is left out so that two runs give byte-identical statistics.
  void collectStats(Stats& stats, const LaunchResult& result) const;

  // ---- for the engines (and what LaunchHost offers them) ------------------------------
  const SpyreArch& arch() const { return arch_; }
  /// How on-device fp16 rounds (numerics.fp16_format).
  Fp16Format fp16Format() const { return fp16Format_; }
  DeviceMemory& memory() { return memory_; }
  Ring& ring() { return ring_; }
  Dram& dram() { return dram_; }
  Core& core(int i) { return *cores_[i]; }
  /// Latency of a small message between two cores over the ring (shortest way).
  Cycles ringLatency(int fromCore, int toCore) const;
  /// Trace processes of the ring links' and the DRAM channels' counters (traceResource).
  int ringTracePid() const { return arch_.chip.cores; }
  int dramTracePid() const { return arch_.chip.cores + 1; }

private:
  void assignPrograms(const std::vector<SpyreLaunchPart>& parts);
  /// Every launch starts at time 0 with the ring and DRAM free and their counters at zero.
  void resetShared();
  void nameTraceTracks(TraceWriter& trace) override;

  SpyreArch arch_;
  DeviceMemory& memory_;
  Fp16Format fp16Format_;
  Ring ring_;
  Dram dram_;
  std::vector<std::unique_ptr<Core>> cores_;
};

} // namespace chipless::sim::spyre
