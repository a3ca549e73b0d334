/// Tests of loopIterationFloor: the fewest timed steps one iteration of a counted loop takes,
/// over forward branches, skipped inner loops, untimed steps and paths that leave the loop.
#include "sim/common/loop_floor.h"

#include <gtest/gtest.h>
#include <vector>

namespace chipless::sim {
namespace {

using Kind = StepControl::Kind;

/// A program of steps; the floor of the loop that opens at `loop` (its end read from it).
int64_t floorOf(const std::vector<StepControl>& program, size_t loop) {
  return loopIterationFloor(loop, program[loop].target, [&](size_t p) { return program[p]; });
}

StepControl other(bool timed = true) {
  return {Kind::Other, 0, timed};
}
StepControl to(Kind kind, size_t target) {
  return {kind, target, true};
}
StepControl endloop() {
  return {Kind::EndLoop, 0, true};
}

TEST(LoopFloor, EveryTimedStepOfAStraightBodyCounts) {
  // 0: loop (end 4); 1, 2: work; 3: endloop.
  EXPECT_EQ(floorOf({to(Kind::Loop, 4), other(), other(), endloop()}, 0), 3);
}

TEST(LoopFloor, UntimedStepsDoNotCount) {
  EXPECT_EQ(floorOf({to(Kind::Loop, 4), other(false), other(false), endloop()}, 0), 1);
}

TEST(LoopFloor, AForwardBranchTakesTheShorterWay) {
  // 1: branch to 4, skipping 2 and 3.
  EXPECT_EQ(
      floorOf({to(Kind::Loop, 6), to(Kind::Branch, 4), other(), other(), other(), endloop()}, 0),
      3);
  // An unconditional jump over 2..3 leaves only the jump, 4 and the endloop.
  EXPECT_EQ(
      floorOf({to(Kind::Loop, 6), to(Kind::Jump, 4), other(), other(), other(), endloop()}, 0), 3);
}

TEST(LoopFloor, AnInnerLoopMayBeSkipped) {
  // 1: inner loop (end 4) over 2 and its endloop 3; 4: work; 5: the outer endloop.
  const std::vector<StepControl> program = {to(Kind::Loop, 6), to(Kind::Loop, 4), other(),
                                            endloop(),         other(),           endloop()};
  EXPECT_EQ(floorOf(program, 0), 3);
  EXPECT_EQ(floorOf(program, 1), 2);
}

TEST(LoopFloor, ABackwardBranchCountsOnlyItself) {
  // 3 branches back to 1: the way back is not followed (it cannot be shorter than the steps
  // it leads to before it comes back), so the floor stays a lower bound.
  EXPECT_EQ(floorOf({to(Kind::Loop, 5), other(), other(), to(Kind::Branch, 1), endloop()}, 0), 3);
}

TEST(LoopFloor, ALoopThatMayBeLeftHasNoFloor) {
  // A branch past the endloop, a jump before the loop, a trap.
  EXPECT_EQ(
      floorOf({to(Kind::Loop, 4), to(Kind::Branch, 5), other(), endloop(), other(), other()}, 0),
      0);
  EXPECT_EQ(floorOf({other(), to(Kind::Loop, 4), to(Kind::Jump, 0), endloop()}, 1), 0);
  EXPECT_EQ(floorOf({to(Kind::Loop, 3), {Kind::Leave, 0, true}, endloop()}, 0), 0);
  // A way out anywhere in the body is enough, even off the shortest way.
  EXPECT_EQ(floorOf({to(Kind::Loop, 5), other(), to(Kind::Branch, 6), other(), endloop(), other(),
                     other()},
                    0),
            0);
}

TEST(LoopFloor, AnEmptyBodyIsItsEndloop) {
  EXPECT_EQ(floorOf({to(Kind::Loop, 2), endloop()}, 0), 1);
}

} // namespace
} // namespace chipless::sim
