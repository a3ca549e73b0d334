#pragma once
/// The common part of every engine: a SystemC thread (a LaunchThread of the chip) that
/// interprets one SpyreCode program per launch (scalar arithmetic, counted loops, branches,
/// tokens) and hands the engine's own instructions to the unit (DMA, ring, load, compute,
/// store).
///
/// Timing: each engine keeps its own notion of the current time (`local_`, in cycles),
/// never earlier than SystemC's. Work private to the engine advances `local_` by the
/// latency of a whole operation; the SystemC kernel only advances when an engine must
/// touch a shared resource (ring links, DRAM channels) in time order, or waits for
/// another engine. Nothing ticks every cycle.
#include "sim/common/launch_host.h"
#include "sim/common/launch_thread.h"
#include "sim/common/partition.h"
#include "sim/common/scalar_control.h"
#include "sim/common/timeline.h"
#include "support/spyrecode/program.h"
#include "support/stats.h"

#include <algorithm>
#include <string>
#include <systemc>
#include <vector>

namespace chipless::sim::spyre {

class Chip;
class Core;

class Engine : public LaunchThread {
public:
  SC_HAS_PROCESS(Engine);
  /// Labelled "core 3 load0", "core 0 dma_in" in errors and reports.
  Engine(sc_core::sc_module_name name, Chip& chip, Core& core, spyrecode::Unit unit, int corelet);

  /// Gives the engine its program for the next launch (nullptr: nothing to do), run in
  /// `partition` (its cores numbered from 0, its addresses in its window) with `symbols`
  /// bound (one per symbol of its binary).
  void arm(const spyrecode::Program* program, Cycles start, const Partition& partition,
           const std::vector<int64_t>* symbols);
  /// When this engine's last instruction, or the last transfer it started, finished.
  Cycles finishedAt() const { return std::max(local_, lastAsyncDone_); }
  spyrecode::Unit unit() const { return unit_; }
  int corelet() const { return corelet_; }
  size_t pc() const { return pc_; }
  /// "core 3 load0 pc 5".
  std::string where() const override;
  /// Track number of this engine inside its core's trace process.
  int traceTrack() const { return track_; }

  /// Counters of the current launch.
  struct Counters {
    uint64_t instructions = 0;
    Cycles busy = 0;  ///< executing operations
    Cycles stall = 0; ///< waiting for data, space or tokens
  };
  const Counters& counters() const { return counters_; }
  /// Adds this unit's own statistics (bytes moved, MACs, sticks) under `prefix`.
  virtual void addUnitStats(Stats& stats, const std::string& prefix) const {}

protected:
  /// Runs one instruction that belongs to this unit (not scalar/control/token).
  virtual void executeUnitOp(const spyrecode::Instruction& ins) = 0;
  /// Resets unit state at the start of a launch.
  virtual void resetUnit() {}

  /// Value of operand `index` of `ins`: constant + register + launch-bound symbol.
  int64_t arg(const spyrecode::Instruction& ins, size_t index) const;
  /// The value of a float operand: its constant, or the real scalar its symbol is bound to.
  double floatOperand(int64_t imm, int32_t sym) const {
    return LaunchHost::floatBits(sym >= 0 ? (*symbols_)[static_cast<size_t>(sym)] : imm);
  }
  /// The partition of the launch: the cores and window of device memory this engine's
  /// program may use.
  const Partition& partition() const { return partition_; }
  /// The core that core `core` of the program is (the partition's cores are 0..); faults
  /// naming `what` when the partition has no such core.
  int physicalCore(int64_t core, const std::string& what) const;
  /// Notes that work this engine started ends at `t` (a transfer landing).
  void noteAsyncDone(Cycles t);
  /// Stops the launch with an error naming this engine, its pc and the instruction.
  [[noreturn]] void fault(const std::string& message) const;
  /// Moves local_ forward to `t` (if later), counting the gap as a stall.
  void stallUntil(Cycles t);
  /// Records busy time [start, end) and a trace span for it.
  void busySpan(const char* name, Cycles start, Cycles end);
  /// Records a trace span without counting it as busy time.
  void traceSpan(const std::string& name, Cycles start, Cycles end);

  Chip& chip_;
  Core& core_;
  spyrecode::Unit unit_;
  int corelet_;
  Counters counters_;
  const spyrecode::Instruction* current_ = nullptr;

private:
  void runProgram() override;
  bool scalarOp(const spyrecode::Instruction& ins);

  int track_;
  const spyrecode::Program* program_ = nullptr;
  size_t pc_ = 0;
  int64_t regs_[spyrecode::kNumRegs] = {};
  Partition partition_;
  const std::vector<int64_t>* symbols_ = nullptr;
  Cycles lastAsyncDone_ = 0;
  ScalarControl control_; ///< jumps, branches and the loop stack
};

} // namespace chipless::sim::spyre
