// The scalar arithmetic shared by the Spyre engines and the TPU scalar unit: wrap-around
// instead of undefined behaviour, so no program can crash the simulator.
#include "sim/common/scalar_alu.h"

#include <gtest/gtest.h>
#include <limits>

namespace chipless::sim {
namespace {

constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

TEST(ScalarAlu, OverflowWrapsAround) {
  EXPECT_EQ(scalarAlu(ScalarAluOp::Add, kMax, 1), kMin);
  EXPECT_EQ(scalarAlu(ScalarAluOp::Sub, kMin, 1), kMax);
  EXPECT_EQ(scalarAlu(ScalarAluOp::Mul, kMax, 2), -2);
}

TEST(ScalarAlu, DivisionByMinusOneAndByZero) {
  EXPECT_EQ(scalarAlu(ScalarAluOp::Div, kMin, -1), kMin);
  EXPECT_EQ(scalarAlu(ScalarAluOp::Rem, kMin, -1), 0);
  EXPECT_EQ(scalarAlu(ScalarAluOp::Div, -7, 2), -3) << "truncates toward zero";
  EXPECT_EQ(scalarAlu(ScalarAluOp::Rem, -7, 2), -1);
  EXPECT_FALSE(scalarAlu(ScalarAluOp::Div, 1, 0).has_value());
  EXPECT_FALSE(scalarAlu(ScalarAluOp::Rem, 1, 0).has_value());
}

TEST(ScalarAlu, ShiftsUseTheLowSixBitsAndShiftRightIsArithmetic) {
  EXPECT_EQ(scalarAlu(ScalarAluOp::Shl, 1, 64), 1);
  EXPECT_EQ(scalarAlu(ScalarAluOp::Shl, 1, 63), kMin);
  EXPECT_EQ(scalarAlu(ScalarAluOp::Shr, -8, 1), -4);
}

TEST(ScalarAlu, BitwiseAndMinMax) {
  EXPECT_EQ(scalarAlu(ScalarAluOp::And, 0b1100, 0b1010), 0b1000);
  EXPECT_EQ(scalarAlu(ScalarAluOp::Or, 0b1100, 0b1010), 0b1110);
  EXPECT_EQ(scalarAlu(ScalarAluOp::Xor, 0b1100, 0b1010), 0b0110);
  EXPECT_EQ(scalarAlu(ScalarAluOp::Min, -3, 2), -3);
  EXPECT_EQ(scalarAlu(ScalarAluOp::Max, -3, 2), 2);
}

} // namespace
} // namespace chipless::sim
