#pragma once
/// The emulated Spyre card: cores and DRAM channel ports on a bidirectional ring, device
/// memory, and the launch of a job binary on them.
///
/// A Chip is elaborated once and runs many launches. SystemC elaborates one module
/// hierarchy per kernel context, so construct each Chip right after `freshSimContext()`.
#include "sim/common/sim_context.h"
#include "sim/spyre/arbiter.h"
#include "sim/spyre/core.h"
#include "sim/spyre/device_memory.h"
#include "sim/spyre/dram.h"
#include "sim/spyre/ring.h"
#include "support/numerics.h"
#include "support/spyre_arch.h"
#include "support/spyrecode/program.h"
#include "support/stats.h"
#include "support/trace.h"

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <systemc>
#include <vector>

namespace chipless::sim::spyre {

using sim::freshSimContext; // sim/common/sim_context.h

/// What one launch did.
struct LaunchResult {
  Cycles cycles = 0;         ///< from launch to the last engine or transfer finishing
  double hostSeconds = 0;    ///< wall-clock time of the simulation
  uint64_t instructions = 0; ///< executed by all engines
};

class Chip {
public:
  /// `memory` is the card's device memory (owned by the caller: the runtime allocates in
  /// it). With `timingOnly`, no arithmetic is done and no bytes are moved.
  Chip(const SpyreArch& arch, DeviceMemory& memory, bool timingOnly);
  ~Chip();
  Chip(const Chip&) = delete;
  Chip& operator=(const Chip&) = delete;

  /// Runs every program of `binary` on its engines with the symbols bound to
  /// `symbolValues` (one per binary.symbols entry). Throws chipless::Error for a program
  /// that does not fit the chip, for a fault (naming engine, pc and address) and for a
  /// deadlock (naming every blocked engine, its pc and what it waits on). `trace` may be
  /// null.
  LaunchResult launch(const spyrecode::JobBinary& binary, const std::vector<int64_t>& symbolValues,
                      TraceWriter* trace);

  /// Adds the statistics of the last launch under "chip." to `stats`. Host wall-clock time
  /// is left out so that two runs give byte-identical statistics.
  void collectStats(Stats& stats, const LaunchResult& result) const;

  // ---- for the engines ------------------------------------------------------------
  const SpyreArch& arch() const { return arch_; }
  bool timingOnly() const { return timingOnly_; }
  /// How on-device fp16 rounds (numerics.fp16_format).
  Fp16Format fp16Format() const { return fp16Format_; }
  DeviceMemory& memory() { return memory_; }
  Ring& ring() { return ring_; }
  Dram& dram() { return dram_; }
  Core& core(int i) { return *cores_[i]; }
  Arbiter& arbiter() { return arbiter_; }
  int64_t symbolValue(int index) const { return (*symbols_)[index]; }
  sc_core::sc_event& launchEvent() { return launchEvent_; }
  sc_core::sc_event& abortEvent() { return abortEvent_; }
  bool aborting() const { return aborting_; }
  /// Records the first fault of the launch and aborts it.
  void reportFault(const std::string& message);
  /// Notes that something finished at time t (the launch lasts at least until then).
  void noteActivity(Cycles t) { lastActivity_ = std::max(lastActivity_, t); }
  /// SystemC's current time in cycles.
  Cycles now() const;
  sc_core::sc_time toScTime(Cycles c) const;
  /// Latency of a small message between two cores over the ring (shortest way).
  Cycles ringLatency(int fromCore, int toCore) const;
  /// Prints progress on stderr now and then during long runs (only to a terminal).
  void progress();

  // ---- tracing (no-ops without a trace) ---------------------------------------------
  bool tracing() const { return trace_ != nullptr; }
  void traceSpan(int core, int track, const std::string& name, Cycles start, Cycles end,
                 int64_t pc);
  void traceInstant(int core, int track, const std::string& name, Cycles t, Cycles stall);
  /// Notes that a resource is busy over [start, start+bytes/bw); its counter track shows
  /// the merged busy intervals when the launch ends.
  void traceResource(Cycles start, double bytes, const Timeline& resource, bool isDram);

private:
  void assignPrograms(const spyrecode::JobBinary& binary);
  [[noreturn]] void abortLaunch(std::string message);
  double toUs(Cycles c) const { return (c - launchStart_) / (arch_.chip.clock_ghz * 1000.0); }
  void nameTraceTracks();
  /// Writes the busy intervals noted by traceResource as counter events.
  void flushResourceTraces();

  SpyreArch arch_;
  DeviceMemory& memory_;
  bool timingOnly_;
  Fp16Format fp16Format_;
  Ring ring_;
  Dram dram_;
  Arbiter arbiter_;
  std::vector<std::unique_ptr<Core>> cores_;
  sc_core::sc_event launchEvent_, abortEvent_;
  bool started_ = false;
  bool aborting_ = false;
  std::string fault_;
  const std::vector<int64_t>* symbols_ = nullptr;
  Cycles launchStart_ = 0, lastActivity_ = 0;
  double periodPs_;
  TraceWriter* trace_ = nullptr;
  struct ResourceLog {
    const Timeline* resource;
    bool isDram;
    std::vector<std::pair<Cycles, Cycles>> busy;
  };
  std::map<std::string, ResourceLog> resourceLog_; ///< by name: deterministic order
  bool progressToTty_;
  std::chrono::steady_clock::time_point progressStart_, progressLast_;
};

} // namespace chipless::sim::spyre
