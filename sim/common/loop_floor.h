#pragma once
/// The least time one iteration of a counted loop must take, read from the program: a loop
/// whose count times that floor passes --max-cycles can be refused when it starts, as a
/// transfer whose footprint cannot end in time is, instead of after hours of simulation.
/// Written once over both instruction sets: each chip says what a program step is to control
/// flow and whether it takes at least one step's time.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace chipless::sim {

/// What one program step (a SpyreCode instruction, a TPU bundle) does to control flow.
struct StepControl {
  enum class Kind {
    Other,   ///< goes on at the next step
    Jump,    ///< goes on at `target`
    Branch,  ///< goes on at `target` or at the next step
    Loop,    ///< opens a counted loop whose step after its endloop is `target`
    EndLoop, ///< closes the innermost loop
    Leave    ///< may end the program (a trap)
  };
  Kind kind = Kind::Other;
  size_t target = 0;
  bool timed = true; ///< the step takes at least one step's time (cycles per instruction)
};

/// What control operation `op` is (both instruction sets name these opcodes and lay out their
/// operands alike: the target last, a loop's end second); Kind::Other for any other.
template <typename Op>
StepControl controlOf(const Op& op) {
  using Opcode = decltype(op.op);
  StepControl c;
  switch (op.op) {
  case Opcode::Jmp:
    c.kind = StepControl::Kind::Jump;
    c.target = static_cast<size_t>(op.operands[0].imm);
    break;
  case Opcode::Beq:
  case Opcode::Bne:
  case Opcode::Blt:
  case Opcode::Bge:
    c.kind = StepControl::Kind::Branch;
    c.target = static_cast<size_t>(op.operands[2].imm);
    break;
  case Opcode::Loop:
    c.kind = StepControl::Kind::Loop;
    c.target = static_cast<size_t>(op.operands[1].imm);
    break;
  case Opcode::EndLoop:
    c.kind = StepControl::Kind::EndLoop;
    break;
  default:
    break;
  }
  return c;
}

/// The fewest timed steps one iteration of the loop that opens at step `loop`, with its
/// endloop at `end - 1`, issues on any path that stays in the loop, its endloop included;
/// 0 when a path may leave the loop (a jump or branch out of it, a trap). `at(p)` tells what
/// step p is. A jump or branch back inside the body counts as nothing more than itself, so
/// the floor stays a lower bound without following cycles.
template <typename At>
int64_t loopIterationFloor(size_t loop, size_t end, const At& at) {
  static constexpr int64_t kLeaves = -1;
  if (end <= loop + 1) return 0;
  const size_t last = end - 1; // the endloop
  std::vector<int64_t> fewest(end - loop, 0);
  auto from = [&](size_t p) { return fewest[p - loop]; };
  auto join = [](int64_t a, int64_t b) {
    return a == kLeaves || b == kLeaves ? kLeaves : std::min(a, b);
  };
  // The path from a target: later in the body, the rest of it; earlier, at least nothing more
  // (it comes back past here); outside the body, out of the loop.
  auto via = [&](size_t p, size_t target) -> int64_t {
    if (target <= loop || target > last) return kLeaves;
    return target > p ? from(target) : 0;
  };
  for (size_t p = last + 1; p-- > loop + 1;) {
    const StepControl c = at(p);
    int64_t rest = 0;
    if (p == last) {
      rest = 0;
    } else {
      switch (c.kind) {
      case StepControl::Kind::Other:
      case StepControl::Kind::EndLoop:
        rest = from(p + 1);
        break;
      case StepControl::Kind::Jump:
        rest = via(p, c.target);
        break;
      case StepControl::Kind::Branch:
        rest = join(from(p + 1), via(p, c.target));
        break;
      case StepControl::Kind::Loop: // an inner loop may be skipped
        rest = join(from(p + 1), via(p, c.target));
        break;
      case StepControl::Kind::Leave:
        rest = kLeaves;
        break;
      }
    }
    fewest[p - loop] = rest == kLeaves ? kLeaves : rest + (c.timed ? 1 : 0);
  }
  return std::max<int64_t>(from(loop + 1), 0);
}

} // namespace chipless::sim
