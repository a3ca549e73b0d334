#pragma once
/// What every chip model does around a launch, written once for the Spyre card and the TPU
/// system: the launch prelude (symbol values, host timer, the launch's time frame), running
/// SystemC until every engine or unit is done, the abort path (a fault, a trap, a deadlock
/// report naming every blocked thread, its pc and what it waits on), progress on a terminal,
/// the trace helpers and the counter tracks of shared resources.
///
/// A chip model derives from LaunchHost and keeps only what is its own: what its engines or
/// units are (they derive from LaunchThread), how programs are assigned to them, its trace
/// track layout, its statistics and its timing.
#include "sim/common/arbiter.h"
#include "sim/common/timeline.h"
#include "support/trace.h"

#include <chrono>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <systemc>
#include <utility>
#include <vector>

namespace chipless::sim {

class LaunchThread;

/// What every launch measures; each chip's LaunchResult adds what its threads count.
struct LaunchTimes {
  Cycles cycles = 0;      ///< from launch to the last engine, unit or transfer finishing
  double hostSeconds = 0; ///< wall-clock time of the simulation
};

class LaunchHost {
public:
  /// `clockGhz` converts cycles to SystemC time and trace microseconds; with `timingOnly`, no
  /// arithmetic is done and no bytes are moved; `progressLabel` prefixes progress lines
  /// ("spyre-sim").
  LaunchHost(double clockGhz, bool timingOnly, std::string progressLabel);
  virtual ~LaunchHost();
  LaunchHost(const LaunchHost&) = delete;
  LaunchHost& operator=(const LaunchHost&) = delete;

  // ---- for the engines and units ------------------------------------------------------
  bool timingOnly() const { return timingOnly_; }
  /// Orders same-time reservations of shared resources (sim/common/arbiter.h).
  Arbiter& arbiter() { return arbiter_; }
  /// The value bound to symbol `index` for the running launch.
  int64_t symbolValue(int index) const { return (*symbols_)[index]; }
  /// The value of a float operand: its constant, or the real scalar its symbol is bound to
  /// (both hold the bits of an IEEE double).
  double floatOperand(int64_t imm, int32_t sym) const {
    return floatBits(sym >= 0 ? symbolValue(sym) : imm);
  }
  /// The IEEE double whose bits `bits` holds (a real scalar's symbol value).
  static double floatBits(int64_t bits) {
    double v;
    std::memcpy(&v, &bits, sizeof v);
    return v;
  }
  /// Notified when a launch after the first starts (threads wait on it between launches).
  sc_core::sc_event& launchEvent() { return launchEvent_; }
  /// Notified when the launch is being aborted; every wait of a thread includes it.
  sc_core::sc_event& abortEvent() { return abortEvent_; }
  bool aborting() const { return aborting_; }
  /// Records the first fault of the launch and aborts it; `trapCode` when a program's trap
  /// instruction stopped it (the launch then throws ProgramTrap).
  void reportFault(const std::string& message, std::optional<int64_t> trapCode = std::nullopt);
  /// Notes that something finished at time t (the launch lasts at least until then).
  void noteActivity(Cycles t) { lastActivity_ = std::max(lastActivity_, t); }
  /// SystemC's current time in cycles of the launch's time frame: every launch starts at 0,
  /// so its arithmetic on times (and their rounding) does not depend on when it runs. The
  /// chip retires its shared resources' reservations at the start of each launch.
  Cycles now() const;
  /// A duration in cycles as SystemC time.
  sc_core::sc_time toScTime(Cycles c) const;
  /// When the running launch started, in its time frame (0): every thread starts its
  /// program there.
  Cycles launchStart() const { return launchStart_; }
  /// Prints progress on stderr now and then during long runs: every second to a terminal,
  /// once a minute otherwise.
  void progress();

  /// Bounds every launch: `maxCycles` simulated cycles (0: none) and `timeoutSeconds` of
  /// host time (0: none). A launch that passes either stops with a report of where each
  /// engine is.
  void setLimits(Cycles maxCycles, double timeoutSeconds) {
    maxCycles_ = maxCycles;
    timeoutSeconds_ = timeoutSeconds;
  }
  Cycles maxCycles() const { return maxCycles_; }
  /// Throws chipless::Error with the engine report when `thread`, at `local`, has passed a
  /// limit; prints progress (LaunchThread::checkLimits calls it now and then).
  void checkLimits(const LaunchThread& thread, Cycles local);

  // ---- tracing (no-ops without a trace) ---------------------------------------------
  bool tracing() const { return trace_ != nullptr; }
  /// A span [start, end) on track `track` of trace process `pid`, with the pc that ran it.
  void traceSpan(int pid, int track, const std::string& name, Cycles start, Cycles end, int64_t pc);
  /// An instant at `t` where a thread waited `stall` cycles.
  void traceInstant(int pid, int track, const std::string& name, Cycles t, Cycles stall);
  /// Notes that a resource is busy over [start, start+bytes/bw); its counter in trace process
  /// `pid` shows the merged busy intervals (in GB/s) when the launch ends.
  void traceResource(Cycles start, double bytes, const Timeline& resource, int pid);

protected:
  /// Runs one launch with the symbols bound to `symbolValues` (`symbolCount` of them):
  /// starts the time frame, calls `arm` (reset the chip's counters and give every thread its
  /// program at launchStart(); it throws chipless::Error for a program that does not fit),
  /// names the trace tracks, runs SystemC until nothing is left to do, and throws for a fault
  /// (ProgramTrap for a trap) or a deadlock. `trace` may be null.
  LaunchTimes runLaunch(size_t symbolCount, const std::vector<int64_t>& symbolValues,
                        TraceWriter* trace, const std::function<void()>& arm);
  /// Names the chip's trace processes and tracks (at the start of a traced launch).
  virtual void nameTraceTracks(TraceWriter& trace) = 0;

private:
  friend class LaunchThread; ///< enrolls itself, for the deadlock report

  /// Ends the launch with `message`: lets every thread unwind, forgets the launch's fault and
  /// trace, and throws (ProgramTrap when a trap caused the fault).
  [[noreturn]] void abortLaunch(std::string message);
  /// The deadlock report of `blocked` (running threads when SystemC ran out of events).
  static std::string deadlockReport(const std::vector<const LaunchThread*>& blocked);
  /// Where every running engine is ("core 0 dma_in pc 3: at cycle 1200"), for the report of
  /// a run stopped at a limit.
  std::string enginesReport() const;
  Cycles maxCycles_ = 0;
  double timeoutSeconds_ = 0;
  double toUs(Cycles c) const { return (c - launchStart_) / (clockGhz_ * 1000.0); }
  /// Writes the busy intervals noted by traceResource as counter events.
  void flushResourceTraces();

  double clockGhz_, periodPs_;
  bool timingOnly_;
  std::string progressLabel_;
  Arbiter arbiter_;
  sc_core::sc_event launchEvent_, abortEvent_;
  std::vector<const LaunchThread*> threads_; ///< in construction order
  bool started_ = false;
  bool aborting_ = false;
  std::string fault_;
  std::optional<int64_t> faultTrap_; ///< the trap code of fault_, when a trap caused it
  const std::vector<int64_t>* symbols_ = nullptr;
  Cycles origin_ = 0;       ///< SystemC time of the launch's time 0, in cycles
  Cycles launchStart_ = 0;  ///< in the frame
  Cycles lastActivity_ = 0; ///< in the frame
  TraceWriter* trace_ = nullptr;
  struct ResourceLog {
    const Timeline* resource;
    int pid;
    std::vector<std::pair<Cycles, Cycles>> busy;
  };
  std::map<std::string, ResourceLog> resourceLog_; ///< by name: deterministic order
  bool progressToTty_;
  std::chrono::steady_clock::time_point progressStart_, progressLast_;
  double progressCycles_ = 0; ///< simulated cycles at the last progress line
};

} // namespace chipless::sim
