#pragma once
/// The control flow of the scalar programs both chips run (SpyreCode engines, the TPU scalar
/// unit): `jmp target`, `beq/bne/blt/bge x, y, target` and counted loops (`loop count, end`
/// runs the body that follows it `count` times, skipping to `end` when count <= 0; `endloop`
/// closes the innermost loop). Both ISAs name these opcodes and lay out their operands alike;
/// what an instruction costs and how the next pc is taken stay with each chip.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace chipless::sim {

/// What a control instruction did.
struct ControlStep {
  bool control = false;       ///< the opcode is a control instruction (the rest is unset if not)
  std::optional<size_t> jump; ///< where the program goes on, when not at the next instruction
  std::string fault;          ///< what is wrong with the program (empty: nothing)
};

/// The loop stack of one running program, and the control instructions that use it.
class ScalarControl {
public:
  /// How deep counted loops may nest.
  static constexpr size_t kMaxLoopDepth = 16;

  /// Forgets every open loop (at the start of a launch) and sets the launch's bound:
  /// `maxCycles` (0: none), the cycles each timed step takes and what errors call those
  /// steps ("scalar instructions", "bundles").
  void reset(double maxCycles = 0, double cyclesPerStep = 1, const char* steps = "steps") {
    loops_.clear();
    maxCycles_ = maxCycles;
    cyclesPerStep_ = cyclesPerStep;
    stepNoun_ = steps;
  }

  /// Runs `op` at `pc` if it is a control instruction; `arg(i)` is the value of operand i
  /// (called in operand order, once each) and `imm(i)` its constant (a target pc).
  /// `cyclesLeft` is what the launch has left before --max-cycles; a loop whose count times
  /// `floor(pc, end)` (the fewest timed steps of one iteration, loopIterationFloor) needs
  /// more faults when it starts. The floor is only read for a count that could pass.
  template <typename Opcode, typename Arg, typename Imm, typename Floor>
  ControlStep step(Opcode op, size_t pc, Arg&& arg, Imm&& imm, double cyclesLeft, Floor&& floor) {
    ControlStep s;
    s.control = true;
    switch (op) {
    case Opcode::Jmp:
      s.jump = static_cast<size_t>(imm(0));
      return s;
    case Opcode::Beq:
    case Opcode::Bne:
    case Opcode::Blt:
    case Opcode::Bge: {
      int64_t x = arg(0), y = arg(1);
      bool taken = op == Opcode::Beq   ? x == y
                   : op == Opcode::Bne ? x != y
                   : op == Opcode::Blt ? x < y
                                       : x >= y;
      if (taken) s.jump = static_cast<size_t>(imm(2));
      return s;
    }
    case Opcode::Loop: {
      int64_t count = arg(0);
      if (count <= 0)
        s.jump = static_cast<size_t>(imm(1));
      else if (loops_.size() >= kMaxLoopDepth)
        s.fault = "loops nested deeper than " + std::to_string(kMaxLoopDepth);
      else if (mayPass(count, pc, static_cast<size_t>(imm(1)), cyclesLeft))
        s.fault = tooLong(count, floor(pc, static_cast<size_t>(imm(1))), cyclesLeft);
      if (s.fault.empty() && count > 0) loops_.push_back({pc + 1, count});
      return s;
    }
    case Opcode::EndLoop:
      if (loops_.empty())
        s.fault = "endloop without an active loop";
      else if (--loops_.back().remaining > 0)
        s.jump = loops_.back().body;
      else
        loops_.pop_back();
      return s;
    default:
      return ControlStep{};
    }
  }

private:
  /// Whether `count` iterations of the loop at `pc` could pass the bound even if every step
  /// of its body ran each time (the floor is computed only then).
  bool mayPass(int64_t count, size_t pc, size_t end, double cyclesLeft) const {
    return maxCycles_ > 0 && end > pc &&
           static_cast<double>(count) * static_cast<double>(end - pc) * cyclesPerStep_ > cyclesLeft;
  }
  /// The fault of a loop whose `count` iterations of at least `steps` timed steps need more
  /// than `cyclesLeft`; empty when they do not.
  std::string tooLong(int64_t count, int64_t steps, double cyclesLeft) const {
    const double least = static_cast<double>(count) * static_cast<double>(steps) * cyclesPerStep_;
    if (steps <= 0 || least <= cyclesLeft) return {};
    char text[200];
    std::snprintf(text, sizeof text,
                  "count = %lld: each iteration issues at least %lld %s (%.4g cycles), so the "
                  "loop takes at least %.4g cycles, past --max-cycles %.0f",
                  static_cast<long long>(count), static_cast<long long>(steps), stepNoun_,
                  static_cast<double>(steps) * cyclesPerStep_, least, maxCycles_);
    return text;
  }

  struct LoopFrame {
    size_t body;       ///< pc of the loop's first instruction
    int64_t remaining; ///< iterations left, this one included
  };
  std::vector<LoopFrame> loops_;
  double maxCycles_ = 0;
  double cyclesPerStep_ = 1;
  const char* stepNoun_ = "steps";
};

} // namespace chipless::sim
