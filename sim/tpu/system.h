#pragma once
/// The emulated TPU system: `chips` TPU chips, each with its TensorCores sharing its HBM and
/// an ICI engine, joined by ICI links (ring or torus, from the architecture description),
/// and the launch of a TPU program on them.
///
/// A System is elaborated once and runs many launches. SystemC elaborates one module
/// hierarchy per kernel context, so construct each System right after `freshSimContext()`.
#include "sim/common/arbiter.h"
#include "sim/common/device_memory.h"
#include "sim/tpu/hbm.h"
#include "sim/tpu/ici.h"
#include "sim/tpu/ici_engine.h"
#include "sim/tpu/tensor_core.h"
#include "support/stats.h"
#include "support/tpu_arch.h"
#include "support/tpuprog/program.h"
#include "support/trace.h"

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <systemc>
#include <vector>

namespace chipless::sim::tpu {

/// What one launch did.
struct LaunchResult {
  Cycles cycles = 0;      ///< from launch to the last unit or transfer finishing
  double hostSeconds = 0; ///< wall-clock time of the simulation
  uint64_t bundles = 0;   ///< issued by all TensorCores
};

class System {
public:
  /// `memories` holds each chip's HBM (owned by the caller: the runtime allocates in it).
  /// With `timingOnly`, no arithmetic is done and no bytes are moved.
  System(const TpuArch& arch, const std::vector<DeviceMemory*>& memories, bool timingOnly);
  ~System();
  System(const System&) = delete;
  System& operator=(const System&) = delete;

  /// Runs every program of `binary` on its TensorCores with the symbols bound to
  /// `symbolValues` (one per binary.symbols entry). Throws chipless::Error for a program
  /// that does not fit the system, for a fault (naming chip, core, unit, pc and address) and
  /// for a deadlock (naming every blocked unit, its pc and what it waits on). `trace` may be
  /// null.
  LaunchResult launch(const tpuprog::JobBinary& binary, const std::vector<int64_t>& symbolValues,
                      TraceWriter* trace);

  /// Adds the statistics of the last launch to `stats` (root: cycles, utilization.*,
  /// chip[c].core[k].*, chip[c].hbm.*, ici.*). Host wall-clock time is left out so that two
  /// runs give byte-identical statistics.
  void collectStats(Stats& stats, const LaunchResult& result) const;

  int chips() const { return static_cast<int>(chips_.size()); }

  // ---- for the units ----------------------------------------------------------------
  const TpuArch& arch() const { return arch_; }
  bool timingOnly() const { return timingOnly_; }
  DeviceMemory& memory(int chip) { return *memories_[chip]; }
  Hbm& hbm(int chip) { return chips_[chip]->hbm; }
  IciNetwork& ici() { return ici_; }
  const IciNetwork& ici() const { return ici_; }
  TensorCore& core(int chip, int core) { return *chips_[chip]->cores[core]; }
  IciEngine& iciEngine(int chip) { return *chips_[chip]->ici; }
  Arbiter& arbiter() { return arbiter_; }
  int64_t symbolValue(int index) const { return (*symbols_)[index]; }
  sc_core::sc_event& launchEvent() { return launchEvent_; }
  sc_core::sc_event& abortEvent() { return abortEvent_; }
  bool aborting() const { return aborting_; }
  /// Records the first fault of the launch and aborts it; `trapCode` when a program's trap
  /// instruction stopped it (the launch then throws ProgramTrap).
  void reportFault(const std::string& message, std::optional<int64_t> trapCode = std::nullopt);
  /// Notes that something finished at time t (the launch lasts at least until then).
  void noteActivity(Cycles t) { lastActivity_ = std::max(lastActivity_, t); }
  /// SystemC's current time in cycles of the launch's time frame: every launch starts at 0,
  /// so that its arithmetic on times does not depend on when it runs.
  Cycles now() const;
  /// A duration in cycles as SystemC time.
  sc_core::sc_time toScTime(Cycles c) const;
  /// Prints progress on stderr now and then during long runs (only to a terminal).
  void progress();

  // ---- tracing (no-ops without a trace) ---------------------------------------------
  bool tracing() const { return trace_ != nullptr; }
  /// Trace process of a TensorCore, and its tracks.
  int tracePid(int chip, int core) const { return chip * arch_.chip.tensorcores + core; }
  static constexpr int kTrackScalar = 0, kTrackVld = 1, kTrackVst = 2, kTrackValu = 3;
  int trackMxuWeights(int mxu) const { return 4 + 2 * mxu; }
  int trackMxuStream(int mxu) const { return 5 + 2 * mxu; }
  int trackDma(int engine) const { return 4 + 2 * arch_.mxu.count + engine; }
  int trackIci() const { return 4 + 2 * arch_.mxu.count + arch_.dma.engines; }
  void traceSpan(int pid, int track, const std::string& name, Cycles start, Cycles end, int64_t pc);
  void traceInstant(int pid, int track, const std::string& name, Cycles t, Cycles stall);
  /// Notes that a resource (an HBM channel of `chip`, or an ICI link when chip < 0) is busy
  /// over [start, start+bytes/bw); its counter shows the merged busy intervals.
  void traceResource(Cycles start, double bytes, const Timeline& resource, int chip);

private:
  struct ChipModel {
    Hbm hbm;
    std::vector<TensorCore*> cores; ///< owned by SystemC's module hierarchy
    IciEngine* ici = nullptr;
    explicit ChipModel(const TpuArch& arch, int chip) : hbm(arch, chip) {}
  };
  void assignPrograms(const tpuprog::JobBinary& binary);
  void checkProgram(const tpuprog::Program& p, size_t index) const;
  [[noreturn]] void abortLaunch(std::string message);
  double toUs(Cycles c) const { return c / (arch_.chip.clock_ghz * 1000.0); }
  void nameTraceTracks();
  void flushResourceTraces();

  TpuArch arch_;
  std::vector<DeviceMemory*> memories_;
  bool timingOnly_;
  IciNetwork ici_;
  Arbiter arbiter_;
  std::vector<std::unique_ptr<ChipModel>> chips_;
  sc_core::sc_event launchEvent_, abortEvent_;
  bool started_ = false;
  bool aborting_ = false;
  std::string fault_;
  std::optional<int64_t> faultTrap_; ///< the trap code of fault_, when a trap caused it
  const std::vector<int64_t>* symbols_ = nullptr;
  Cycles lastActivity_ = 0; ///< in the launch's time frame
  Cycles base_ = 0;         ///< SystemC time of the launch's time 0, in cycles
  double periodPs_;
  TraceWriter* trace_ = nullptr;
  struct ResourceLog {
    const Timeline* resource;
    int pid;
    std::vector<std::pair<Cycles, Cycles>> busy;
  };
  std::map<std::string, ResourceLog> resourceLog_; ///< by name: deterministic order
  bool progressToTty_;
  std::chrono::steady_clock::time_point progressStart_, progressLast_;
};

} // namespace chipless::sim::tpu
