#pragma once
/// The common part of every engine: a SystemC thread that interprets one SpyreCode
/// program per launch (scalar arithmetic, counted loops, branches, tokens) and hands the
/// engine's own instructions to the unit (DMA, ring, load, compute, store).
///
/// Timing: each engine keeps its own notion of the current time (`local_`, in cycles),
/// never earlier than SystemC's. Work private to the engine advances `local_` by the
/// latency of a whole operation; the SystemC kernel only advances when an engine must
/// touch a shared resource (ring links, DRAM channels) in time order, or waits for
/// another engine. Nothing ticks every cycle.
#include "sim/spyre/timeline.h"
#include "support/spyrecode/program.h"
#include "support/stats.h"

#include <string>
#include <systemc>
#include <vector>

namespace chipless::sim::spyre {

class Chip;
class Core;

/// Thrown inside engines to unwind when the launch is being aborted.
struct LaunchAborted {};

class Engine : public sc_core::sc_module {
public:
  SC_HAS_PROCESS(Engine);
  Engine(sc_core::sc_module_name name, Chip& chip, Core& core, spyrecode::Unit unit, int corelet);

  /// What an engine is doing when the simulation stops.
  enum class State { Idle, Running, Done, Failed, Aborted };

  /// Gives the engine its program for the next launch (nullptr: nothing to do).
  void arm(const spyrecode::Program* program, Cycles start);
  State state() const { return state_; }
  /// "core 3 load0", "core 0 dma_in": how errors and reports name this engine.
  const std::string& label() const { return label_; }
  spyrecode::Unit unit() const { return unit_; }
  int corelet() const { return corelet_; }
  size_t pc() const { return pc_; }
  /// What the engine is blocked on (for deadlock reports).
  const std::string& blockedOn() const { return blockedOn_; }
  Cycles localTime() const { return local_; }
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
  /// Stops the launch with an error naming this engine, its pc and the instruction.
  [[noreturn]] void fault(const std::string& message) const;
  /// Blocks until `event` (or an abort); records `what` for deadlock reports.
  void block(sc_core::sc_event& event, const std::string& what);
  /// Waits in SystemC time until it reaches local_, then runs `reserve` through the chip's
  /// arbiter: shared resources are reserved in simulated-time order, and requests made at
  /// the same time in a fixed engine order.
  void reserveShared(const std::function<void()>& reserve);
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
  Cycles local_ = 0;
  Counters counters_;
  const spyrecode::Instruction* current_ = nullptr;

private:
  void syncToLocal();
  void thread();
  void run();
  bool scalarOp(const spyrecode::Instruction& ins);

  std::string label_;
  int track_;
  const spyrecode::Program* program_ = nullptr;
  bool armed_ = false;
  State state_ = State::Idle;
  size_t pc_ = 0;
  int64_t regs_[spyrecode::kNumRegs] = {};
  struct LoopFrame {
    size_t body;
    int64_t remaining;
  };
  std::vector<LoopFrame> loops_;
  std::string blockedOn_;
  sc_core::sc_event granted_;
  int order_; ///< arbitration priority: position of this engine on the chip
};

} // namespace chipless::sim::spyre
