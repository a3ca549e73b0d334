// Round trips through the assembly text: assemble -> disassemble -> assemble must give the
// same plan and the same binary, for every kernel in models/kernels and for a synthetic job
// that uses every opcode of the table with non-default operands.
#include "support/spyrecode/assembler.h"
#include "support/spyrecode/binary.h"
#include "support/spyrecode/disassembler.h"
#include "tests/unit/util/spyrecode_test_util.h"

#include <gtest/gtest.h>
#include <limits>
#include <set>
#include <string>

namespace chipless::spyrecode {
namespace {

using testing::kernelFiles;
using testing::syntheticJob;

/// Disassembles `job`, assembles the text again and checks that nothing changed.
void expectRoundTrip(const Job& job, const std::string& what) {
  SCOPED_TRACE(what);
  std::string text = disassemble(job);
  Job again;
  try {
    again = assemble(text, what + " (disassembled)", testing::defaultOptions());
  } catch (const Error& e) {
    FAIL() << "the disassembly does not assemble: " << e.what() << "\n" << text;
  }
  EXPECT_EQ(again.binary.symbols, job.binary.symbols);
  ASSERT_EQ(again.binary.programs.size(), job.binary.programs.size());
  for (size_t p = 0; p < job.binary.programs.size(); ++p) {
    const Program& a = job.binary.programs[p];
    const Program& b = again.binary.programs[p];
    EXPECT_EQ(b.unit, a.unit) << "program " << p;
    EXPECT_EQ(b.corelet, a.corelet) << "program " << p;
    EXPECT_EQ(b.coreFirst, a.coreFirst) << "program " << p;
    EXPECT_EQ(b.coreLast, a.coreLast) << "program " << p;
    ASSERT_EQ(b.code.size(), a.code.size()) << "program " << p;
    for (size_t pc = 0; pc < a.code.size(); ++pc)
      EXPECT_EQ(b.code[pc], a.code[pc])
          << "program " << p << " pc " << pc << ": " << formatInstruction(job.binary, a.code[pc])
          << " came back as " << formatInstruction(again.binary, b.code[pc]);
  }
  EXPECT_TRUE(again.binary == job.binary);
  EXPECT_TRUE(again.plan == job.plan);
  EXPECT_EQ(encodeBinary(again.binary), encodeBinary(job.binary));
  // The disassembly is a fixed point.
  EXPECT_EQ(disassemble(again), text);
}

TEST(RoundTrip, EveryKernelInModels) {
  auto files = kernelFiles();
  ASSERT_FALSE(files.empty()) << "no models/kernels/*.s found";
  for (const auto& file : files) {
    Job job;
    try {
      job = assemble(readFile(file), file, testing::defaultOptions());
    } catch (const Error& e) {
      ADD_FAILURE() << e.what();
      continue;
    }
    EXPECT_FALSE(job.binary.programs.empty()) << file;
    expectRoundTrip(job, file);
  }
}

TEST(RoundTrip, SyntheticJobCoversEveryOpcode) {
  Job job = syntheticJob();
  std::set<Opcode> used;
  for (const auto& p : job.binary.programs)
    for (const auto& ins : p.code) used.insert(ins.op);
  EXPECT_EQ(used.size(), allOpcodes().size());
  EXPECT_EQ(job.binary.symbols.size(), testing::syntheticSymbols().size()) << "every symbol used";
  // Every opcode runs on every unit that may run it.
  for (const auto& info : allOpcodes())
    for (const auto& p : job.binary.programs)
      if (info.unitMask & (1u << static_cast<unsigned>(p.unit))) {
        bool found = false;
        for (const auto& ins : p.code) found |= ins.op == info.op;
        EXPECT_TRUE(found) << info.mnemonic << " on " << unitName(p.unit);
      }
  // The binary is valid.
  EXPECT_EQ(decodeBinary(encodeBinary(job.binary), "synthetic"), job.binary);
}

TEST(RoundTrip, SyntheticJobWithNonDefaultOperands) {
  expectRoundTrip(syntheticJob(), "synthetic");
}

TEST(RoundTrip, EdgeValues) {
  // Values that are easy to print wrongly: large and negative constants, registers with
  // negative offsets, symbols with negative offsets, special floats, the last core.
  Job job;
  job.binary.symbols = {"A", "A.d0"};
  Program dma;
  dma.unit = Unit::DmaIn;
  dma.coreFirst = 3;
  dma.coreLast = kAllCores;
  auto li = [](int64_t imm, int reg, int sym) {
    Instruction ins;
    ins.op = Opcode::Li;
    ins.operands = {Operand{0, 1, -1}, Operand{imm, static_cast<int8_t>(reg), sym}};
    return ins;
  };
  for (int64_t v :
       {int64_t{0}, int64_t{-1}, int64_t{1} << 40, -(int64_t{1} << 40), int64_t{0x7FFFFFFFFFFFFFFF},
        -int64_t{0x7FFFFFFFFFFFFFFF}, std::numeric_limits<int64_t>::min()})
    for (int reg : {-1, 0, kRegCore, kRegNumCores})
      for (int sym : {-1, 0, 1}) dma.code.push_back(li(v, reg, sym));
  job.binary.programs.push_back(dma);
  Program compute;
  compute.unit = Unit::Compute;
  compute.corelet = 1;
  compute.coreFirst = compute.coreLast = 31;
  for (double v : {0.0, -0.0, 1.0 / 3.0, 1e-300, -1e300, 65504.0, 5.96e-8,
                   static_cast<double>(INFINITY), -static_cast<double>(INFINITY)}) {
    Instruction ins;
    ins.op = Opcode::SfuSplat;
    ins.dtype = DType::F32;
    Operand f;
    std::memcpy(&f.imm, &v, sizeof v);
    ins.operands = {Operand{kPortReg + 63, -1, -1}, f};
    compute.code.push_back(ins);
  }
  job.binary.programs.push_back(compute);
  job.plan.kernel = "edges";
  job.plan.args.push_back({"A", ArgRole::InOut, DType::I32, {int64_t{1}}});
  addStandardSteps(job.plan, 0x1C00000000ull, static_cast<int64_t>(encodeBinary(job.binary).size()),
                   128);
  expectRoundTrip(job, "edges");
}

TEST(Disassembler, FormatsOperandsAndInstructions) {
  JobBinary bin;
  bin.symbols = {"A", "N"};
  const OperandDecl expr{"a", OperandKind::Expr, false, 0, {}};
  EXPECT_EQ(formatOperand(bin, expr, Operand{0, -1, -1}), "0");
  EXPECT_EQ(formatOperand(bin, expr, Operand{-5, -1, -1}), "-5");
  EXPECT_EQ(formatOperand(bin, expr, Operand{0, 3, -1}), "r3");
  EXPECT_EQ(formatOperand(bin, expr, Operand{-8, 3, -1}), "r3-8");
  EXPECT_EQ(formatOperand(bin, expr, Operand{64, 2, 0}), "r2+@A+64");
  EXPECT_EQ(formatOperand(bin, expr, Operand{-128, -1, 1}), "@N-128");
  EXPECT_EQ(formatOperand(bin, expr, Operand{0, kRegCore, -1}), "core");
  EXPECT_EQ(formatOperand(bin, expr, Operand{std::numeric_limits<int64_t>::min(), 1, -1}),
            "r1-9223372036854775807-1");
  const OperandDecl port{"dst", OperandKind::Port, false, 0, {}};
  EXPECT_EQ(formatOperand(bin, port, Operand{kPortOut + 1, -1, -1}), "out1");
  const OperandDecl dir{"dir", OperandKind::Enum, true, 0, kRingDirections};
  EXPECT_EQ(formatOperand(bin, dir, Operand{1, -1, -1}), "cw");

  Instruction add;
  add.op = Opcode::Add;
  add.operands = {Operand{0, 1, -1}, Operand{0, 2, -1}, Operand{3, -1, -1}};
  EXPECT_EQ(formatInstruction(bin, add), "add r1, r2, 3");
  Instruction dma;
  dma.op = Opcode::DmaLoad;
  for (const auto& d : opcodeInfo(Opcode::DmaLoad).operands)
    dma.operands.push_back(Operand{d.defaultValue, -1, -1});
  dma.operands[1] = Operand{0, -1, 0};
  dma.operands[2] = Operand{256, -1, -1};
  dma.operands[12] = Operand{4, -1, -1};
  // Positional operands first, then only the operands that differ from their defaults.
  EXPECT_EQ(formatInstruction(bin, dma), "dma.load sp=0, mem=@A, bytes=256, done=4");
  Instruction ring;
  ring.op = Opcode::RingSend;
  ring.dtype = DType::F16;
  for (const auto& d : opcodeInfo(Opcode::RingSend).operands)
    ring.operands.push_back(Operand{d.defaultValue, -1, -1});
  EXPECT_EQ(formatInstruction(bin, ring).rfind("ring.send core=", 0), 0u); // f16 is implied
  ring.dtype = DType::I32;
  EXPECT_EQ(formatInstruction(bin, ring).rfind("ring.send.i32 ", 0), 0u);
}

TEST(Disassembler, ListsDeclarationsAndProgramCounters) {
  Job job = assemble(".kernel k\n.scalar N\n.input A f16 [4, N]\n.output B f32 [N]\n"
                     ".buffer tmp 256\n"
                     ".program load cores=2-3 corelet=1\n"
                     " loop 2\n  jmp x\nx: endloop\n.end\n",
                     "t.s", testing::defaultOptions());
  std::string text = disassemble(job);
  for (const char* part :
       {".kernel k\n", ".scalar N\n", ".input A f16 [4, N]\n", ".output B f32 [N]\n",
        ".buffer tmp 256\n", ".program load cores=2-3 corelet=1\n", "; pc 0\n", "; pc 2\n", "L2:\n",
        "jmp L2", ".end\n"})
    EXPECT_NE(text.find(part), std::string::npos) << part << "\n" << text;
}

} // namespace
} // namespace chipless::spyrecode
