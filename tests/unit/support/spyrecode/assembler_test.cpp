// Tests for support/spyrecode/assembler.h: directives, expressions, operands, element-type
// suffixes, labels, loops, program placement, and one test per error the assembler reports.
#include "support/spyrecode/assembler.h"
#include "support/spyrecode/binary.h"
#include "support/spyrecode/disassembler.h"
#include "tests/unit/util/spyrecode_test_util.h"

#include <gtest/gtest.h>
#include <string>

namespace chipless::spyrecode {
namespace {

using testing::as;
using testing::errorOf;
using testing::expectError;

/// Six declaration lines; a program built by program() starts on line 7.
const std::string kHead = ".kernel k\n"           // 1
                          ".scalar N\n"           // 2
                          ".input A f16 [4, N]\n" // 3
                          ".output C f32 [N]\n"   // 4
                          ".buffer tmp 256\n"     // 5
                          ".equ T 64\n";          // 6
constexpr int kFirstBodyLine = 8;

/// kHead, then `.program UNIT cores=0` on line 7, the body from line 8, and `.end`.
std::string program(const std::string& unit, const std::string& body) {
  return kHead + ".program " + unit + " cores=0\n" + body + ".end\n";
}

/// The first instruction of the only program.
Instruction firstOf(const std::string& unit, const std::string& body) {
  Job job = as(program(unit, body));
  EXPECT_EQ(job.binary.programs.size(), 1u);
  EXPECT_FALSE(job.binary.programs.at(0).code.empty());
  return job.binary.programs.at(0).code.at(0);
}

/// An error in the first body line of a dma_in program.
void expectBodyError(const std::string& line, std::initializer_list<std::string> words,
                     const std::string& unit = "dma_in") {
  SCOPED_TRACE(line);
  expectError(program(unit, line + "\n"), kFirstBodyLine, words);
}

int64_t floatBits(double v) {
  int64_t bits;
  std::memcpy(&bits, &v, sizeof v);
  return bits;
}

// ---- directives --------------------------------------------------------------------------

TEST(AssemblerDirectives, DeclarationsFillThePlan) {
  Job job = as(".kernel my_kernel\n"
               ".scalar N\n"
               ".scalar M\n"
               ".equ TILE 64\n"
               ".input A f16 [4, N]\n"
               ".input B bf16 [TILE*2, 0x10]\n"
               ".output C f32 [M]\n"
               ".inout D i32 [2, 3, 4]\n"
               ".buffer tmp 64*128\n"
               ".buffer acc TILE\n"
               ".program dma_in cores=0\n"
               "  nop\n"
               ".end\n");
  const JobPlan& p = job.plan;
  EXPECT_EQ(p.kernel, "my_kernel");
  EXPECT_EQ(p.binaryFile, "init.bin");
  ASSERT_EQ(p.scalars.size(), 2u);
  EXPECT_EQ(p.scalars[0].name, "N");
  EXPECT_EQ(p.scalars[1].name, "M");
  ASSERT_EQ(p.args.size(), 4u);
  EXPECT_EQ(p.args[0],
            (TensorArg{"A", ArgRole::Input, DType::F16, {int64_t{4}, std::string("N")}}));
  EXPECT_EQ(p.args[1], (TensorArg{"B", ArgRole::Input, DType::BF16, {int64_t{128}, int64_t{16}}}));
  EXPECT_EQ(p.args[2], (TensorArg{"C", ArgRole::Output, DType::F32, {std::string("M")}}));
  EXPECT_EQ(p.args[3],
            (TensorArg{"D", ArgRole::InOut, DType::I32, {int64_t{2}, int64_t{3}, int64_t{4}}}));
  ASSERT_EQ(p.buffers.size(), 2u);
  EXPECT_EQ(p.buffers[0], (Buffer{"tmp", 8192}));
  EXPECT_EQ(p.buffers[1], (Buffer{"acc", 64}));
}

TEST(AssemblerDirectives, LayoutWordsAfterTheShape) {
  Job job = as(".kernel k\n.input A f16 [100, 200] padded_rows=128\n"
               ".input B f16 [4, 64] stick padded_rows=8\n.output C f32 [8] row_major\n"
               ".program dma_in cores=0\n nop\n.end\n");
  EXPECT_EQ(job.plan.args[0].layout, Layout::Stick);
  EXPECT_EQ(job.plan.args[0].paddedRows, 128);
  EXPECT_EQ(job.plan.args[1].paddedRows, 8);
  EXPECT_EQ(job.plan.args[2].layout, Layout::RowMajor);
  EXPECT_EQ(job.plan.args[2].paddedRows, 0);
  const std::string text = disassemble(job);
  EXPECT_NE(text.find(".input A f16 [100, 200] padded_rows=128\n"), std::string::npos) << text;
  EXPECT_NE(text.find(".output C f32 [8] row_major\n"), std::string::npos) << text;
  expectError(".kernel k\n.input A f16 [4, 64] padded_rows=0\n", 2,
              {"padded_rows must be positive"});
  expectError(".kernel k\n.input A f16 [4, 64] row_major padded_rows=8\n", 2,
              {"padded_rows applies to the stick layout only"});
  expectError(".kernel k\n.input A f16 [4, 64] tiled\n", 2,
              {"unexpected 'tiled' after the shape (expected stick, row_major or padded_rows=N)"});
}

TEST(AssemblerDirectives, StandardStepsPlaceTheProgramAndBuffers) {
  std::string text = ".kernel k\n.input A f16 [64]\n.output C f16 [64]\n.inout D f16 [64]\n"
                     ".buffer one 100\n.buffer two 300\n"
                     ".program dma_in cores=0\n nop\n.end\n";
  Job job = as(text);
  const int64_t size = static_cast<int64_t>(encodeBinary(job.binary).size());
  const auto& prep = job.plan.prepare;
  ASSERT_EQ(prep.size(), 4u);
  EXPECT_EQ(prep[0].kind, PlanCommand::Kind::Allocate);
  EXPECT_EQ(prep[0].name, "program");
  EXPECT_EQ(prep[0].size, size);
  EXPECT_EQ(prep[0].devPtr, "0x1C00000000");
  EXPECT_EQ(prep[1].kind, PlanCommand::Kind::InitTransfer);
  EXPECT_EQ(prep[1].filePath, "init.bin");
  EXPECT_EQ(prep[1].size, size);
  EXPECT_EQ(prep[1].devPtr, "0x1C00000000");
  const uint64_t one = (0x1C00000000ull + size + 127) / 128 * 128;
  EXPECT_EQ(prep[2].name, "one");
  EXPECT_EQ(prep[2].devPtr, formatDevPtr(one));
  EXPECT_EQ(prep[3].name, "two");
  EXPECT_EQ(prep[3].devPtr, formatDevPtr(one + 128));
  const auto& ex = job.plan.execute;
  ASSERT_EQ(ex.size(), 5u);
  EXPECT_EQ(ex[0].kind, PlanCommand::Kind::DataTransfer);
  EXPECT_EQ(ex[0].direction, 0);
  EXPECT_EQ(ex[0].hostHandle, "A");
  EXPECT_EQ(ex[0].devPtr, "@A");
  EXPECT_EQ(ex[1].hostHandle, "D");
  EXPECT_EQ(ex[1].direction, 0);
  EXPECT_EQ(ex[2].kind, PlanCommand::Kind::ComputeOnDevice);
  EXPECT_EQ(ex[2].devPtr, "0x1C00000000");
  EXPECT_EQ(ex[3].hostHandle, "C");
  EXPECT_EQ(ex[3].direction, 1);
  EXPECT_EQ(ex[4].hostHandle, "D");
  EXPECT_EQ(ex[4].direction, 1);

  AssembleOptions options = testing::defaultOptions();
  options.programPtr = 0x1C00001000ull;
  options.alignment = 4096;
  Job moved = as(text, options);
  EXPECT_EQ(moved.plan.prepare[0].devPtr, "0x1C00001000");
  EXPECT_EQ(moved.plan.prepare[2].devPtr, "0x1C00002000");
  EXPECT_EQ(moved.plan.prepare[3].devPtr, "0x1C00003000");
  EXPECT_EQ(moved.plan.execute[2].devPtr, "0x1C00001000");
  EXPECT_EQ(moved.binary, job.binary);
}

TEST(AssemblerDirectives, ProgramPlacement) {
  Job job = as(".kernel k\n"
               ".program dma_in cores=all\n.end\n"
               ".program dma_out cores=3-7\n.end\n"
               ".program ring cores=5\n.end\n"
               ".program load cores=0-31 corelet=1\n.end\n"
               ".program compute cores=all corelet=all\n.end\n"
               ".program store cores=0x2\n.end\n"
               ".program load corelet=0 cores=4-4\n.end\n");
  const auto& p = job.binary.programs;
  ASSERT_EQ(p.size(), 7u);
  auto expect = [&](size_t i, Unit unit, int first, int last, int corelet) {
    SCOPED_TRACE(i);
    EXPECT_EQ(p[i].unit, unit);
    EXPECT_EQ(p[i].coreFirst, first);
    EXPECT_EQ(p[i].coreLast, last);
    EXPECT_EQ(p[i].corelet, corelet);
    EXPECT_TRUE(p[i].code.empty());
  };
  expect(0, Unit::DmaIn, 0, kAllCores, -1);
  expect(1, Unit::DmaOut, 3, 7, -1);
  expect(2, Unit::Ring, 5, 5, -1);
  expect(3, Unit::Load, 0, 31, 1);
  expect(4, Unit::Compute, 0, kAllCores, -1);
  expect(5, Unit::Store, 2, 2, -1);
  expect(6, Unit::Load, 4, 4, 0);
}

TEST(AssemblerDirectives, CommentsAndBlankLines) {
  Job job = as("; a comment\n"
               "# another\n"
               "// and another\n"
               "\n"
               "   \t\n"
               ".kernel k ; trailing\n"
               ".program dma_in cores=0 # trailing\n"
               "\tli r1, 5 // trailing\n"
               "  ; li r2, 6\n"
               ".end\n");
  EXPECT_EQ(job.plan.kernel, "k");
  ASSERT_EQ(job.binary.programs.at(0).code.size(), 1u);
  EXPECT_EQ(job.binary.programs[0].code[0].operands[1].imm, 5);
}

TEST(AssemblerDirectives, EquNamesAreConstantsNotScalars) {
  Job job = as(".kernel k\n.equ ROWS 2*3\n.equ COLS ROWS*64\n.input A f16 [ROWS, COLS]\n"
               ".program dma_in cores=0\n li r1, COLS\n.end\n");
  EXPECT_EQ(job.plan.args[0].shape, (std::vector<Dim>{int64_t{6}, int64_t{384}}));
  EXPECT_TRUE(job.plan.scalars.empty());
  EXPECT_EQ(job.binary.programs[0].code[0].operands[1].imm, 384);
}

// ---- expressions -------------------------------------------------------------------------

TEST(AssemblerExpressions, ConstantsRegistersAndSymbols) {
  struct Case {
    const char* text;
    int64_t imm;
    int reg;
    const char* sym;
  };
  const Case cases[] = {
      {"42", 42, -1, nullptr},
      {"0", 0, -1, nullptr},
      {"+5", 5, -1, nullptr},
      {"0x100", 256, -1, nullptr},
      {"0X1c", 28, -1, nullptr},
      {"-5", -5, -1, nullptr},
      {"T", 64, -1, nullptr},
      {"-T", -64, -1, nullptr},
      {"64*128", 8192, -1, nullptr},
      {"T*2*3", 384, -1, nullptr},
      {"1+2-3+0x10", 16, -1, nullptr},
      {"r2", 0, 2, nullptr},
      {"r15+1", 1, 15, nullptr},
      {"core", 0, kRegCore, nullptr},
      {"corelet+2", 2, kRegCorelet, nullptr},
      {"ncores", 0, kRegNumCores, nullptr},
      {"r3-T*2", -128, 3, nullptr},
      {"r2+@A+64", 64, 2, "A"},
      {"@A + r2 - 8", -8, 2, "A"},
      {"64+@A+r2", 64, 2, "A"},
      {"@A.d1", 0, -1, "A.d1"},
      {"@N", 0, -1, "N"},
      {"@tmp+128", 128, -1, "tmp"},
      {"@C", 0, -1, "C"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    Job job = as(program("dma_in", std::string("li r1, ") + c.text + "\n"));
    const Operand& o = job.binary.programs[0].code[0].operands[1];
    EXPECT_EQ(o.imm, c.imm);
    EXPECT_EQ(o.reg, c.reg);
    if (c.sym) {
      ASSERT_GE(o.sym, 0);
      EXPECT_EQ(job.binary.symbols.at(static_cast<size_t>(o.sym)), c.sym);
    } else {
      EXPECT_EQ(o.sym, -1);
    }
  }
}

TEST(AssemblerExpressions, SymbolsAreNumberedInOrderOfFirstUse) {
  Job job = as(program("dma_in", "li r1, @N\n"
                                 "li r2, @A\n"
                                 "li r3, @A.d1\n"
                                 "li r4, @N+1\n"
                                 "li r5, @A\n"));
  EXPECT_EQ(job.binary.symbols, (std::vector<std::string>{"N", "A", "A.d1"}));
  const auto& code = job.binary.programs[0].code;
  EXPECT_EQ(code[3].operands[1].sym, 0);
  EXPECT_EQ(code[4].operands[1].sym, 1);
}

TEST(AssemblerExpressions, ExpressionErrors) {
  expectBodyError("li r1, r2+r3", {"li operand 'a'", "at most one register"});
  expectBodyError("li r1, @A+@N", {"at most one symbol"});
  expectBodyError("li r1, -@A", {"a symbol cannot be subtracted"});
  expectBodyError("li r1, 4-r2", {"a register cannot be subtracted"});
  expectBodyError("li r1, 2*r2", {"expected an integer, register, @symbol or .equ name", "'r2'"});
  expectBodyError("li r1, FOO", {"expected an integer", "'FOO'"});
  expectBodyError("li r1, 12abc", {"'12abc'"});
  expectBodyError("li r1, 1++2", {"missing term"});
  expectBodyError("li r1, 99999999999999999999", {"expected an integer"});
  expectBodyError("li r1, 3*", {"expected an integer"});
}

// ---- operands ------------------------------------------------------------------------------

TEST(AssemblerOperands, PositionalAndNamed) {
  Instruction a = firstOf("dma_in", "add r1, r2, 3\n");
  Instruction b = firstOf("dma_in", "add b=3, rd=r1, a=r2\n");
  Instruction c = firstOf("dma_in", "add r1, b=3, a=r2\n");
  Instruction d = firstOf("dma_in", "add   r1 ,r2,   3\n");
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, c);
  EXPECT_EQ(a, d);
  EXPECT_EQ(a.op, Opcode::Add);
  EXPECT_EQ(a.operands[0].reg, 1);
  EXPECT_EQ(a.operands[1].reg, 2);
  EXPECT_EQ(a.operands[2].imm, 3);
  // Operands the disassembler prints as name=value may still be written positionally.
  Instruction e = firstOf("dma_in", "dma.load 0, @A, 128, 2\n");
  Instruction f = firstOf("dma_in", "dma.load sp=0, mem=@A, bytes=128, n1=2\n");
  EXPECT_EQ(e, f);
  EXPECT_EQ(e.operands[3].imm, 2);
}

TEST(AssemblerOperands, DefaultsComeFromTheTable) {
  for (const char* text : {"dma.load sp=0, mem=@A, bytes=128", "nop", "tsend 3"}) {
    SCOPED_TRACE(text);
    Instruction ins = firstOf("dma_in", std::string(text) + "\n");
    const OpcodeInfo& info = opcodeInfo(ins.op);
    ASSERT_EQ(ins.operands.size(), info.operands.size());
    for (size_t i = 0; i < info.operands.size(); ++i) {
      if (info.operands[i].optional) {
        EXPECT_EQ(ins.operands[i], (Operand{info.operands[i].defaultValue, -1, -1}))
            << info.operands[i].name;
      }
    }
  }
  Instruction nop = firstOf("dma_in", "nop\n");
  EXPECT_EQ(nop.operands[0].imm, 1);
  Instruction ld = firstOf("load", "ld.stream 4, in0, 0\n");
  EXPECT_EQ(ld.operands[3].imm, 128);       // s0
  EXPECT_EQ(ld.operands[8].imm, kPortNone); // fifo_b
  Instruction ring = firstOf("ring", "ring.send 1, 0, 0, 128\n");
  EXPECT_EQ(ring.operands[4].imm, 0); // dir=short
  EXPECT_EQ(ring.operands[5].imm, 0); // op=none
  EXPECT_EQ(ring.operands[6].imm, -1);
  Instruction mm = firstOf("compute", "pt.mm.f16 8, 64, 64, in0, in1\n");
  EXPECT_EQ(mm.operands[5].imm, kPortNone);
  EXPECT_EQ(mm.operands[7].imm, 1); // emit
}

TEST(AssemblerOperands, StreamStridesDefaultToOneStickOfTheArchitecture) {
  const std::string body = "ld.stream 4, in0, 0\n";
  EXPECT_EQ(firstOf("load", body).operands[3].imm, 128); // s0, the bundled card's stick
  SpyreArch wide = SpyreArch::load(SpyreArch::defaultFile(), {"chip.stick_bytes=256"});
  Job job = as(program("load", body), AssembleOptions::forArch(wide));
  const Instruction& ld = job.binary.programs.at(0).code.at(0);
  EXPECT_EQ(ld.operands[3].imm, 256);  // s0
  EXPECT_EQ(ld.operands[10].imm, 256); // sb0
  EXPECT_EQ(ld.operands[4].imm, 0);    // s1

  // The disassembler leaves the stride out only where it knows the stick.
  EXPECT_EQ(disassemble(job).find("s0="), std::string::npos);
  Job unknown = job;
  unknown.arch.reset();
  EXPECT_NE(disassemble(unknown).find("s0=256"), std::string::npos);
  EXPECT_NE(formatInstruction(job.binary, ld).find("s0=256"), std::string::npos);
  EXPECT_EQ(formatInstruction(job.binary, ld, job.arch).find("s0="), std::string::npos);
}

TEST(AssemblerErrors, ArchitectureDefaultWithoutAnArchitecture) {
  AssembleOptions bare = testing::defaultOptions();
  bare.arch.reset();
  EXPECT_ERROR_PARTS([&] { as(program("load", "ld.stream 4, in0, 0\n"), bare); }, "t.s:8",
                     "operand 's0' defaults to chip.stick_bytes", "no architecture");
  // Written out, it needs none.
  EXPECT_NO_THROW(as(program("load", "ld.stream 4, in0, 0, s0=128, sb0=128\n"), bare));
}

TEST(AssemblerOperands, PortsEnumsAndFloats) {
  Instruction add = firstOf("compute", "sfu.add.f16 8, out1, in3, v15\n");
  EXPECT_EQ(add.operands[1].imm, kPortOut + 1);
  EXPECT_EQ(add.operands[2].imm, kPortIn + 3);
  EXPECT_EQ(add.operands[3].imm, kPortReg + 15);
  Instruction none = firstOf("compute", "pt.mm.bf16 8, 64, 64, in0, in1, dst=none, emit=0\n");
  EXPECT_EQ(none.operands[5].imm, kPortNone);
  Instruction ring =
      firstOf("ring", "ring.send core=1, src=0, dst=128, bytes=256, dir=ccw, op=max, token=3\n");
  EXPECT_EQ(ring.operands[4].imm, 2);
  EXPECT_EQ(ring.operands[5].imm, 2);
  EXPECT_EQ(ring.operands[6].imm, 3);
  Instruction out = firstOf("compute", "pt.mm.f16 8, 64, 64, in0, in1, dst=out0, out=f32\n");
  EXPECT_EQ(out.operands[8].imm, 2);
  for (auto [text, value] : std::vector<std::pair<std::string, double>>{{"1.5", 1.5},
                                                                        {"-0.25", -0.25},
                                                                        {"1e-3", 1e-3},
                                                                        {"7", 7.0},
                                                                        {"inf", INFINITY},
                                                                        {"+inf", INFINITY},
                                                                        {"-inf", -INFINITY}}) {
    SCOPED_TRACE(text);
    Instruction s = firstOf("compute", "sfu.splat.f32 v2, " + text + "\n");
    EXPECT_EQ(s.operands[0].imm, kPortReg + 2);
    EXPECT_EQ(s.operands[1].imm, floatBits(value));
  }
  Instruction nan = firstOf("compute", "sfu.splat.f32 v2, nan\n");
  double v;
  std::memcpy(&v, &nan.operands[1].imm, sizeof v);
  EXPECT_TRUE(std::isnan(v));
}

TEST(AssemblerOperands, ElementTypeSuffixes) {
  EXPECT_EQ(firstOf("compute", "sfu.add.bf16 1, out0, in0, in1\n").dtype, DType::BF16);
  EXPECT_EQ(firstOf("compute", "sfu.add.i32 1, out0, in0, in1\n").dtype, DType::I32);
  EXPECT_EQ(firstOf("compute", "sfu.acc.max.f32 1, v0, in0\n").dtype, DType::F32);
  // Optional: f16 unless given.
  EXPECT_EQ(firstOf("ring", "ring.send 1, 0, 0, 128\n").dtype, DType::F16);
  EXPECT_EQ(firstOf("ring", "ring.send.i32 1, 0, 0, 128, op=add\n").dtype, DType::I32);
  // None: no element type at all.
  EXPECT_EQ(firstOf("dma_in", "li r1, 1\n").dtype, std::nullopt);
  expectBodyError("sfu.add 1, out0, in0, in1",
                  {"sfu.add needs an element type suffix", "sfu.add.f16"}, "compute");
  expectBodyError("sfu.exp.i32 1, out0, in0", {"sfu.exp does not support i32"}, "compute");
  expectBodyError("pt.mm.f32 8, 64, 64, in0, in1", {"pt.mm does not support f32"}, "compute");
  expectBodyError("li.f16 r1, 1", {"li takes no element type suffix"});
  expectBodyError("dma.load.f16 0, @A, 128", {"dma.load takes no element type suffix"});
}

// ---- labels and loops ----------------------------------------------------------------------

TEST(AssemblerLabels, ForwardBackwardAndEnd) {
  Job job = as(program("dma_in", "  jmp fwd\n"         // pc 0
                                 "back: nop\n"         // pc 1
                                 "  beq r1, 0, back\n" // pc 2
                                 "fwd:\n"
                                 "  bne r1, r2, fwd\n"            // pc 3
                                 "  blt r1, 5, done\n"            // pc 4
                                 "  bge a=r1, b=5, target=back\n" // pc 5
                                 "done:\n"));
  const auto& code = job.binary.programs[0].code;
  ASSERT_EQ(code.size(), 6u);
  EXPECT_EQ(code[0].operands[0].imm, 3);
  EXPECT_EQ(code[2].operands[2].imm, 1);
  EXPECT_EQ(code[3].operands[2].imm, 3);
  EXPECT_EQ(code[4].operands[2].imm, 6); // a label after the last instruction: the end
  EXPECT_EQ(code[5].operands[2].imm, 1);
}

TEST(AssemblerLabels, LabelsAreLocalToTheirProgram) {
  Job job = as(".kernel k\n"
               ".program dma_in cores=0\n nop\ntop: nop\n jmp top\n.end\n"
               ".program dma_out cores=0\ntop: jmp top\n.end\n");
  EXPECT_EQ(job.binary.programs[0].code[2].operands[0].imm, 1);
  EXPECT_EQ(job.binary.programs[1].code[0].operands[0].imm, 0);
  expectError(".kernel k\n"                // 1
              ".program dma_in cores=0\n"  // 2
              "top: nop\n"                 // 3
              ".end\n"                     // 4
              ".program dma_out cores=0\n" // 5
              "  jmp top\n"                // 6
              ".end\n",
              6, {"undefined label 'top'", "local to their .program"});
}

TEST(AssemblerLoops, PairsSetHiddenOperands) {
  Job job = as(program("dma_in", "loop 4\n"     // pc 0
                                 " loop r1\n"   // pc 1
                                 "  nop\n"      // pc 2
                                 " endloop\n"   // pc 3
                                 " nop\n"       // pc 4
                                 "endloop\n"    // pc 5
                                 "loop 2\n"     // pc 6
                                 "endloop\n")); // pc 7
  const auto& code = job.binary.programs[0].code;
  ASSERT_EQ(code.size(), 8u);
  EXPECT_EQ(code[0].operands[0].imm, 4);
  EXPECT_EQ(code[0].operands[1].imm, 6); // end: the pc after the matching endloop
  EXPECT_EQ(code[1].operands[0].reg, 1);
  EXPECT_EQ(code[1].operands[1].imm, 4);
  EXPECT_EQ(code[3].operands[0].imm, 1); // start: the pc of the matching loop
  EXPECT_EQ(code[5].operands[0].imm, 0);
  EXPECT_EQ(code[6].operands[1].imm, 8);
  EXPECT_EQ(code[7].operands[0].imm, 6);
}

TEST(AssemblerLoops, HiddenOperandsCannotBeWritten) {
  expectBodyError("loop count=3, end=5", {"loop has no operand 'end'", "(operands: count)"});
  expectBodyError("loop 3, 5", {"loop takes at most 1 operand"});
  expectError(program("dma_in", "loop 1\nendloop 0\n"), kFirstBodyLine + 1,
              {"endloop takes at most 0 operands"});
}

// ---- errors -------------------------------------------------------------------------------

TEST(AssemblerErrors, UnknownInstruction) {
  expectBodyError("frob r1", {"unknown instruction 'frob'"});
  expectBodyError("frob.f16 r1", {"unknown instruction 'frob.f16'"});
}

TEST(AssemblerErrors, UnknownElementType) {
  expectBodyError("sfu.add.q8 1, out0, in0, in1",
                  {"unknown element type 'q8'", "sfu.add.q8", "f16, bf16, f32 or i32"}, "compute");
}

TEST(AssemblerErrors, OpcodeOnTheWrongUnit) {
  expectBodyError("dma.store sp=0, mem=@A, bytes=128", {"dma.store cannot run on the dma_in unit"});
  expectBodyError("sfu.add.f16 1, out0, in0, in1", {"sfu.add cannot run on the load unit"}, "load");
  expectBodyError("ld.stream 1, in0, 0", {"ld.stream cannot run on the store unit"}, "store");
}

TEST(AssemblerErrors, MissingOperand) {
  expectBodyError("add r1, 2", {"add: missing operand 'b'"});
  expectBodyError("dma.load sp=0, bytes=128", {"dma.load: missing operand 'mem'"});
}

TEST(AssemblerErrors, UnknownOperandNameListsTheOperands) {
  expectBodyError("add r1, 2, c=3", {"add has no operand 'c'", "(operands: rd, a, b)"});
}

TEST(AssemblerErrors, DuplicatedOperand) {
  expectBodyError("add r1, 2, a=3", {"operand 'a' given twice"});
  expectBodyError("add rd=r1, rd=r2, a=1, b=2", {"operand 'rd' given twice"});
}

TEST(AssemblerErrors, PositionalAfterKeyword) {
  expectBodyError("add rd=r1, 2, 3", {"positional operand '2' after name=value operands"});
}

TEST(AssemblerErrors, TooManyOrEmptyOperands) {
  expectBodyError("li r1, 2, 3", {"li takes at most 2 operands"});
  expectBodyError("add r1, , 2", {"empty operand"});
  expectBodyError("add r1, 2,", {"empty operand"});
}

TEST(AssemblerErrors, BadRegister) {
  expectBodyError("add r16, 1, 2", {"add operand 'rd'", "expected a register r0..r15, got 'r16'"});
  expectBodyError("add core, 1, 2", {"expected a register r0..r15, got 'core'"});
  expectBodyError("add 5, 1, 2", {"got '5'"});
}

TEST(AssemblerErrors, BadPort) {
  expectBodyError("sfu.add.f16 1, out9x, in0, in1",
                  {"sfu.add operand 'dst'", "expected in0.., out0.., v0.. or none, got 'out9x'"},
                  "compute");
  expectBodyError("sfu.add.f16 1, out0, in16, in1", {"got 'in16'"}, "compute");
}

TEST(AssemblerErrors, BadEnumAndFloatAndLabel) {
  expectBodyError("ring.send 1, 0, 0, 128, dir=up",
                  {"ring.send operand 'dir'", "expected one of short, cw, ccw, got 'up'"}, "ring");
  expectBodyError("sfu.splat.f16 v0, abc", {"sfu.splat operand 'value'", "expected a number"},
                  "compute");
  expectBodyError("sfu.splat.f16 v0, 1.5x", {"expected a number"}, "compute");
  expectBodyError("jmp 5", {"jmp operand 'target'", "expected a label, got '5'"});
}

TEST(AssemblerErrors, UndefinedLabel) {
  expectError(program("dma_in", "nop\njmp nowhere\n"), kFirstBodyLine + 1,
              {"undefined label 'nowhere'"});
}

TEST(AssemblerErrors, LabelDefinedTwice) {
  expectError(program("dma_in", "x: nop\nx: nop\n"), kFirstBodyLine + 1,
              {"label 'x' defined twice"});
}

TEST(AssemblerErrors, LabelOutsideAProgram) {
  expectError(".kernel k\nx:\n", 2, {"label 'x' outside a .program"});
}

TEST(AssemblerErrors, LoopWithoutEndloop) {
  // Reported at the .end of the program, naming the line of the loop.
  expectError(program("dma_in", "nop\nloop 3\nnop\n"), kFirstBodyLine + 3,
              {"loop opened at line 9 has no endloop"});
}

TEST(AssemblerErrors, EndloopWithoutLoop) {
  expectError(program("dma_in", "nop\nendloop\n"), kFirstBodyLine + 1, {"endloop without loop"});
  expectError(program("dma_in", "loop 2\nendloop\nendloop\n"), kFirstBodyLine + 2,
              {"endloop without loop"});
}

TEST(AssemblerErrors, InstructionOutsideAProgram) {
  expectError(".kernel k\nnop\n", 2, {"instruction outside a .program ... .end block"});
  expectError(".kernel k\n.program dma_in cores=0\n.end\nnop\n", 4, {"instruction outside"});
}

TEST(AssemblerErrors, ProgramWithoutEnd) {
  expectError(".kernel k\n.program dma_in cores=0\nnop\nnop\n", 4,
              {"program started at line 2 has no .end"});
  expectError(".kernel k\n.program dma_in cores=0\n.program load cores=0\n", 3,
              {".program inside a .program (missing .end?)"});
}

TEST(AssemblerErrors, EndWithoutProgram) {
  expectError(".kernel k\n.end\n", 2, {".end without .program"});
}

TEST(AssemblerErrors, UnknownDirective) {
  expectError(".kernel k\n.frob x\n", 2, {"unknown directive '.frob'", ".kernel", ".equ"});
}

TEST(AssemblerErrors, UndeclaredSymbol) {
  expectBodyError("li r1, @Z",
                  {"li operand 'a'", "'@Z': 'Z' is not a declared argument, scalar or buffer"});
  expectBodyError("li r1, @T", {"'@T': 'T' is not a declared"}); // .equ names are not symbols
  expectBodyError("li r1, @", {"'@': '' is not a declared"});
}

TEST(AssemblerErrors, BadDimensionSymbol) {
  expectBodyError("li r1, @A.d2", {"'@A.d2'", "expected A.d0 .. A.d1"});
  expectBodyError("li r1, @A.x", {"expected A.d0 .. A.d1"});
  expectBodyError("li r1, @A.d", {"expected A.d0 .. A.d1"});
  expectBodyError("li r1, @A.d1x", {"expected A.d0 .. A.d1"});
  expectBodyError("li r1, @A.d99999999999999999999999", {"expected A.d0 .. A.d1"});
  expectBodyError("li r1, @N.d0", {"'@N.d0'", "'N' is not a tensor argument"});
  expectBodyError("li r1, @Z.d0", {"'Z' is not a tensor argument"});
}

TEST(AssemblerErrors, UndeclaredScalarDimension) {
  expectError(".kernel k\n.input A f16 [4, M]\n.program dma_in cores=0\n.end\n", 2,
              {"dimension 'M' is not a declared .scalar"});
  // A scalar may be declared after the tensor that uses it.
  Job job = as(".kernel k\n.input A f16 [M]\n.scalar M\n.program dma_in cores=0\n.end\n");
  EXPECT_EQ(job.plan.args[0].shape, (std::vector<Dim>{std::string("M")}));
  // A name that is a buffer is not a scalar.
  expectError(".kernel k\n.buffer M 128\n.input A f16 [M]\n.program dma_in cores=0\n.end\n", 3,
              {"dimension 'M' is not a declared .scalar"});
}

TEST(AssemblerErrors, NameDeclaredTwice) {
  expectError(".kernel k\n.input A f16 [4]\n.scalar A\n", 3, {"name 'A' is declared twice"});
  expectError(".kernel k\n.buffer b 128\n.output b f16 [4]\n", 3, {"name 'b' is declared twice"});
  expectError(".kernel k\n.scalar N\n.buffer N 128\n", 3, {"name 'N' is declared twice"});
  expectError(".kernel k\n.equ X 1\n.equ X 2\n", 3, {".equ 'X' defined twice"});
}

TEST(AssemblerErrors, MissingKernel) {
  expectError(".program dma_in cores=0\nnop\n.end\n", 1, {"missing .kernel NAME directive"});
  expectError(".kernel\n", 1, {".kernel needs a name"});
  expectError(".kernel 9lives\n", 1, {".kernel needs a name"});
}

TEST(AssemblerErrors, NoProgram) {
  expectError(".kernel k\n.input A f16 [4]\n", 1, {"no .program in the file"});
  expectError("", 1, {"missing .kernel"});
}

TEST(AssemblerErrors, BadProgramDirective) {
  expectError(".kernel k\n.program gpu cores=0\n", 2,
              {"unknown unit 'gpu'", "dma_in, dma_out, ring, load, compute, store"});
  expectError(".kernel k\n.program dma_in\n", 2, {".program needs cores=FIRST-LAST or cores=all"});
  expectError(".kernel k\n.program dma_in cores=5-2\n", 2, {"bad core range '5-2'"});
  expectError(".kernel k\n.program dma_in cores=x\n", 2, {"cores", "'x'"});
  expectError(".kernel k\n.program dma_in cores=0 corelet=1\n", 2,
              {"corelet= only applies to load, compute and store programs"});
  expectError(".kernel k\n.program load cores=0 corelet=-2\n", 2, {"bad corelet '-2'"});
  expectError(".kernel k\n.program load cores=0 corelet=300\n", 2, {"bad corelet '300'"});
  expectError(".kernel k\n.program load cores=0-4294967296\n", 2, {"bad core range"});
  expectError(".kernel k\n.program load cores=0 lanes=2\n", 2, {".program: unknown key 'lanes'"});
  expectError(".kernel k\n.program load cores=0 fast\n", 2,
              {".program: expected key=value, got 'fast'"});
}

TEST(AssemblerErrors, BadDeclarations) {
  expectError(".kernel k\n.input A f16 4, 4\n", 2, {"missing the shape in brackets"});
  expectError(".kernel k\n.input A f64 [4]\n", 2,
              {".input A: unknown element type 'f64'", "f16, bf16, f32 or i32"});
  expectError(".kernel k\n.output 1A f16 [4]\n", 2, {".output needs a name"});
  expectError(".kernel k\n.input A f16 [4, 0]\n", 2, {"dimensions must be positive, got 0"});
  expectError(".kernel k\n.input A f16 [4, -2]\n", 2, {"dimensions must be positive"});
  expectError(".kernel k\n.input A f16 [4,, 2]\n", 2, {"empty dimension"});
  expectError(".kernel k\n.input A f16 []\n", 2, {"at least one dimension"});
  expectError(".kernel k\n.scalar\n", 2, {".scalar needs a name"});
  expectError(".kernel k\n.buffer\n", 2, {".buffer needs a name and a size"});
  expectError(".kernel k\n.buffer b 0\n", 2, {".buffer size must be positive"});
  expectError(".kernel k\n.buffer b lots\n", 2, {".buffer size", "'lots'"});
  expectError(".kernel k\n.equ\n", 2, {".equ needs a name and a value"});
  expectError(".kernel k\n.equ X\n", 2, {".equ value: expected a number"});
  expectError(".kernel k\n.equ X r1\n", 2, {".equ value", "'r1'"});
}

TEST(AssemblerErrors, MessagesNameTheFile) {
  std::string msg =
      errorOf([] { assemble(".kernel k\nfrob\n", "dir/my kernel.s", testing::defaultOptions()); });
  EXPECT_EQ(msg.rfind("dir/my kernel.s:2: ", 0), 0u) << msg;
}

} // namespace
} // namespace chipless::spyrecode
