/// Tests of the scalars of SpyreCode assembly: `.scalar` with the values a program accepts
/// (multiple_of, min, max), real scalars (`type=f16`) read by float operands, an integer
/// scalar as a float (`@N.f16`), and the errors of each, located at the line.
#include "support/spyrecode/assembler.h"
#include "support/spyrecode/disassembler.h"
#include "tests/unit/util/spyrecode_test_util.h"

#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace chipless::spyrecode {
namespace {

using testing::as;
using testing::expectError;

TEST(AssemblerDirectives, ScalarConstraints) {
  Job job = as(".kernel k\n.equ CHUNK 4096\n"
               ".scalar n multiple_of=CHUNK min=0 max=CHUNK*1024\n"
               ".scalar lo min=-8\n"
               ".input A f16 [n]\n.program dma_in cores=0\n nop\n.end\n");
  ASSERT_EQ(job.plan.scalars.size(), 2u);
  EXPECT_EQ(job.plan.scalars[0], (ScalarArg{"n", 4096, 0, 4194304}));
  EXPECT_EQ(job.plan.scalars[1], (ScalarArg{"lo", 1, -8, std::nullopt}));
  std::string text = disassemble(job);
  EXPECT_NE(text.find(".scalar n multiple_of=4096 min=0 max=4194304\n"), std::string::npos) << text;
  EXPECT_NE(text.find(".scalar lo min=-8\n"), std::string::npos) << text;
  EXPECT_TRUE(as(text).plan == job.plan);
}

TEST(AssemblerDirectives, RealScalarsFeedFloatOperands) {
  // `.scalar eps type=f32` is a real scalar: sfu.splat takes it as @eps, the binary binds
  // the float operand to the symbol, and disassembly gives the same job back.
  Job job = as(".kernel k\n.scalar eps type=f32\n.scalar N\n"
               ".program compute cores=0 corelet=0\n"
               "  sfu.splat.f32 v0, @eps\n"
               "  sfu.splat.f16 v1, -1.5\n"
               "  sfu.splat.f16 v2, @N.f16\n" // the integer scalar N as an f16
               ".end\n");
  ASSERT_EQ(job.plan.scalars.size(), 2u);
  EXPECT_EQ(job.binary.symbols, (std::vector<std::string>{"eps", "N.f16"}));
  EXPECT_EQ(job.plan.scalars[0].real, DType::F32);
  EXPECT_FALSE(job.plan.scalars[1].real);
  const auto& code = job.binary.programs.at(0).code;
  EXPECT_EQ(code[0].operands[1].sym, 0);
  EXPECT_EQ(code[0].operands[1].imm, 0);
  EXPECT_EQ(code[1].operands[1].sym, -1);
  std::string text = disassemble(job);
  EXPECT_NE(text.find(".scalar eps type=f32\n"), std::string::npos) << text;
  EXPECT_NE(text.find("sfu.splat.f32 v0, @eps"), std::string::npos) << text;
  Job again = as(text);
  EXPECT_TRUE(again.plan == job.plan);
  EXPECT_TRUE(again.binary == job.binary);
}

TEST(AssemblerErrors, RealScalarsOnlyInFloatOperands) {
  const std::string head = ".kernel k\n.scalar eps type=f16\n.scalar N\n.input A f16 [64]\n";
  expectError(head + ".program compute cores=0 corelet=0\n sfu.splat.f16 v0, @N\n.end\n", 6,
              {"sfu.splat operand 'value': '@N' is not a real scalar"});
  expectError(head + ".program compute cores=0 corelet=0\n sfu.splat.f16 v0, @A\n.end\n", 6,
              {"'@A' is not a real scalar"});
  expectError(head + ".program dma_in cores=0\n li r1, @eps\n.end\n", 6,
              {"'@eps' is a real scalar; only a float operand can take it"});
  expectError(head + ".program dma_in cores=0\n li r1, @N.f32\n.end\n", 6,
              {"'@N.f32' is a real scalar; only a float operand can take it"});
  expectError(
      head + ".program compute cores=0 corelet=0\n sfu.splat.f16 v0, @N.i32\n.end\n", 6,
      {"'N' is not a tensor argument (it is a scalar: N.f16, N.bf16 or N.f32 is its value as a "
       "float)"});
  expectError(head + ".program compute cores=0 corelet=0\n sfu.splat.f16 v0, @eps.f16\n.end\n", 6,
              {"'eps' is not a tensor argument or an integer scalar"});
  expectError(".kernel k\n.scalar eps type=i32\n", 2,
              {".scalar eps: type= takes f16, bf16 or f32 (a real scalar), got 'i32'"});
  expectError(".kernel k\n.scalar eps type=f16 max=4\n", 2,
              {".scalar eps: a real scalar takes no multiple_of, min or max"});
  expectError(".kernel k\n.scalar eps type=f16\n.input A f16 [eps]\n"
              ".program dma_in cores=0\n nop\n.end\n",
              3, {"dimension 'eps' is a real scalar and cannot size a tensor"});
}

TEST(AssemblerErrors, BadScalarConstraints) {
  expectError(".kernel k\n.scalar n step=4\n", 2,
              {".scalar n: expected multiple_of=, min=, max= or type=, got 'step=4'"});
  expectError(".kernel k\n.scalar n max=4 max=8\n", 2, {".scalar n: max given twice"});
  expectError(".kernel k\n.scalar n multiple_of=0\n", 2,
              {".scalar n: multiple_of must be positive, got 0"});
  expectError(".kernel k\n.scalar n min=5 max=4\n", 2, {".scalar n: min 5 is greater than max 4"});
  expectError(".kernel k\n.scalar n max=LOTS\n", 2, {"LOTS"});
  expectError(".kernel k\n.scalar\n", 2, {".scalar needs a name"});
}

} // namespace
} // namespace chipless::spyrecode
