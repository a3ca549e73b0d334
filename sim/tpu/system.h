#pragma once
/// The emulated TPU system: `chips` TPU chips, each with its TensorCores sharing its HBM and
/// an ICI engine, joined by ICI links (ring or torus, from the architecture description),
/// and the launch of a TPU program on them.
///
/// A System is elaborated once and runs many launches. SystemC elaborates one module
/// hierarchy per kernel context, so construct each System right after `freshSimContext()`.
#include "sim/common/device_memory.h"
#include "sim/common/launch_host.h"
#include "sim/common/partition.h"
#include "sim/tpu/hbm.h"
#include "sim/tpu/ici.h"
#include "sim/tpu/ici_engine.h"
#include "sim/tpu/tensor_core.h"
#include "support/stats.h"
#include "support/tpu_arch.h"
#include "support/tpuprog/program.h"
#include "support/trace.h"

#include <memory>
#include <string>
#include <systemc>
#include <vector>

namespace chipless::sim::tpu {

/// What one launch did: cycles (from launch to the last unit or transfer finishing), host
/// seconds, and the bundles issued by all TensorCores.
struct LaunchResult : LaunchTimes {
  uint64_t bundles = 0; ///< issued by all TensorCores
};

/// A program's part of a launch that runs several programs at once (runLaunchParts).
using TpuLaunchPart = LaunchPart<tpuprog::JobBinary>;

/// The launch prelude, abort path, faults and traps, symbols, progress and trace helpers come
/// from LaunchHost (sim/common/launch_host.h); the System adds the chips (TensorCores, HBM, ICI
/// engine) and ICI links, the assignment and checking of programs, the trace layout and the
/// statistics. Every launch starts at time 0.
class System : public LaunchHost {
public:
  /// `memories` holds each chip's HBM (owned by the caller: the runtime allocates in it).
  /// With `timingOnly`, no arithmetic is done and no bytes are moved.
  System(const TpuArch& arch, const std::vector<DeviceMemory*>& memories, bool timingOnly);
  ~System();

  /// Runs every program of `binary` on its TensorCores with the symbols bound to
  /// `symbolValues` (one per binary.symbols entry). Throws chipless::Error for a program
  /// that does not fit the system, for a fault (naming chip, core, unit, pc and address) and
  /// for a deadlock (naming every blocked unit, its pc and what it waits on). `trace` may be
  /// null.
  LaunchResult launch(const tpuprog::JobBinary& binary, const std::vector<int64_t>& symbolValues,
                      TraceWriter* trace);
  /// Runs several binaries in one simulation, each on its partition (disjoint TensorCores,
  /// HBM windows), so that they contend for HBM channels and ICI links as programs running
  /// side by side on the chip do. Returns each part's result: cycles until its own cores and
  /// transfers finished, and the bundles they issued. A fault in any part ends the whole
  /// launch (the error names the core). `trace` (optional) shows every part.
  std::vector<LaunchResult> launch(const std::vector<TpuLaunchPart>& parts, TraceWriter* trace);

  /// Adds the statistics of the last launch to `stats` (root: cycles, utilization.*,
  /// chip[c].core[k].*, chip[c].hbm.*, ici.*). Host wall-clock time is left out so that two
  /// runs give byte-identical statistics.
  void collectStats(Stats& stats, const LaunchResult& result) const;

  int chips() const { return static_cast<int>(chips_.size()); }

  // ---- for the units (and what LaunchHost offers them) --------------------------------
  const TpuArch& arch() const { return arch_; }
  DeviceMemory& memory(int chip) { return *memories_[chip]; }
  Hbm& hbm(int chip) { return chips_[chip]->hbm; }
  IciNetwork& ici() { return ici_; }
  const IciNetwork& ici() const { return ici_; }
  TensorCore& core(int chip, int core) { return *chips_[chip]->cores[core]; }
  IciEngine& iciEngine(int chip) { return *chips_[chip]->ici; }

  // ---- trace layout -----------------------------------------------------------------
  /// Trace process of a TensorCore, and its tracks.
  int tracePid(int chip, int core) const { return chip * arch_.chip.tensorcores + core; }
  static constexpr int kTrackScalar = 0, kTrackVld = 1, kTrackVst = 2, kTrackValu = 3;
  int trackMxuWeights(int mxu) const { return 4 + 2 * mxu; }
  int trackMxuStream(int mxu) const { return 5 + 2 * mxu; }
  int trackDma(int engine) const { return 4 + 2 * arch_.mxu.count + engine; }
  int trackIci() const { return 4 + 2 * arch_.mxu.count + arch_.dma.engines; }
  /// Trace processes of the HBM channels' counters of `chip` and of the ICI links' counters
  /// (traceResource).
  int hbmTracePid(int chip) const { return chips() * arch_.chip.tensorcores + chip; }
  int iciTracePid() const { return chips() * arch_.chip.tensorcores + chips(); }

private:
  struct ChipModel {
    Hbm hbm;
    std::vector<TensorCore*> cores; ///< owned by SystemC's module hierarchy
    IciEngine* ici = nullptr;
    explicit ChipModel(const TpuArch& arch, int chip) : hbm(arch, chip) {}
  };
  /// Gives every TensorCore its part's program (relocated onto the part's partition), or
  /// nothing; throws for a program that does not fit its partition or for parts that overlap.
  void assignPrograms(const std::vector<TpuLaunchPart>& parts);
  void checkProgram(const tpuprog::Program& p, size_t index) const;
  /// Clears the HBM channels' and ICI links' counters and reservations (before a launch).
  void resetShared();
  void nameTraceTracks(TraceWriter& trace) override;

  TpuArch arch_;
  std::vector<DeviceMemory*> memories_;
  IciNetwork ici_;
  std::vector<std::unique_ptr<ChipModel>> chips_;
};

} // namespace chipless::sim::tpu
