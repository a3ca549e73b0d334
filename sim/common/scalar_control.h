#pragma once
/// The control flow of the scalar programs both chips run (SpyreCode engines, the TPU scalar
/// unit): `jmp target`, `beq/bne/blt/bge x, y, target` and counted loops (`loop count, end`
/// runs the body that follows it `count` times, skipping to `end` when count <= 0; `endloop`
/// closes the innermost loop). Both ISAs name these opcodes and lay out their operands alike;
/// what an instruction costs and how the next pc is taken stay with each chip.
#include <cstddef>
#include <cstdint>
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

  /// Forgets every open loop (at the start of a launch).
  void reset() { loops_.clear(); }

  /// Runs `op` at `pc` if it is a control instruction; `arg(i)` is the value of operand i
  /// (called in operand order, once each) and `imm(i)` its constant (a target pc).
  template <typename Opcode, typename Arg, typename Imm>
  ControlStep step(Opcode op, size_t pc, Arg&& arg, Imm&& imm) {
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
      else
        loops_.push_back({pc + 1, count});
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
  struct LoopFrame {
    size_t body;       ///< pc of the loop's first instruction
    int64_t remaining; ///< iterations left, this one included
  };
  std::vector<LoopFrame> loops_;
};

} // namespace chipless::sim
