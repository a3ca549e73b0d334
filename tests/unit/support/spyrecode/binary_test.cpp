// Tests for support/spyrecode/binary.h: init.bin encodes and decodes without loss, and every
// malformed file is rejected with chipless::Error naming the file, the program and the pc.
#include "support/spyrecode/binary.h"
#include "support/spyrecode/traits.h"
#include "tests/unit/util/spyrecode_test_util.h"

#include <gtest/gtest.h>
#include <string>

namespace chipless::spyrecode {
namespace {

using testing::errorOf;

/// An instruction with the declared defaults (required operands: zero, registers r0).
Instruction make(Opcode op, std::optional<DType> dtype = std::nullopt) {
  Instruction ins;
  ins.op = op;
  ins.dtype = dtype;
  for (const auto& d : opcodeInfo(op).operands) {
    Operand o{d.optional ? d.defaultValue : 0, -1, -1};
    if (d.kind == OperandKind::Reg) o.reg = 0;
    ins.operands.push_back(o);
  }
  return ins;
}

Program program(Unit unit, std::vector<Instruction> code) {
  Program p;
  p.unit = unit;
  p.code = std::move(code);
  return p;
}

/// A small valid binary: program 0 on dma_in, program 1 on compute with three instructions;
/// tests damage instruction 2 of program 1.
JobBinary small() {
  JobBinary bin;
  bin.symbols = {"A", "A.d0"};
  Instruction li = make(Opcode::Li);
  li.operands[1] = Operand{64, 3, 0};
  bin.programs.push_back(program(Unit::DmaIn, {li, make(Opcode::Nop)}));
  Program c = program(Unit::Compute,
                      {make(Opcode::Nop), make(Opcode::SfuAdd, DType::F16), make(Opcode::Jmp)});
  c.corelet = 1;
  c.coreFirst = 2;
  c.coreLast = kAllCores;
  bin.programs.push_back(c);
  return bin;
}

std::string decodeError(const JobBinary& bin) {
  return errorOf([&] { decodeBinary(encodeBinary(bin), "prog.bin"); });
}

/// Expects decoding `bin` to fail in program 1 (compute) at pc 2 with `words`.
void expectInstructionError(const JobBinary& bin, std::initializer_list<std::string> words) {
  std::string msg = decodeError(bin);
  EXPECT_EQ(msg.rfind("prog.bin: program 1 (compute) pc 2: ", 0), 0u) << msg;
  for (const auto& w : words) EXPECT_NE(msg.find(w), std::string::npos) << msg << "\n" << w;
}

/// small() with instruction 2 of program 1 replaced.
JobBinary withInstruction(const Instruction& ins) {
  JobBinary bin = small();
  bin.programs[1].code[2] = ins;
  return bin;
}

TEST(Binary, RoundTrip) {
  for (const JobBinary& bin : {small(), testing::syntheticBinary(), JobBinary{}}) {
    std::string bytes = encodeBinary(bin);
    EXPECT_EQ(bytes.compare(0, 8, std::string(Traits::kBinaryMagic, 8)), 0);
    JobBinary back = decodeBinary(bytes, "prog.bin");
    EXPECT_EQ(back, bin);
    EXPECT_EQ(encodeBinary(back), bytes);
  }
  for (const auto& file : testing::kernelFiles()) {
    Job job = assemble(readFile(file), file, testing::defaultOptions());
    EXPECT_EQ(decodeBinary(encodeBinary(job.binary), file), job.binary) << file;
  }
}

TEST(Binary, LayoutOfTheHeader) {
  JobBinary bin = small();
  std::string b = encodeBinary(bin);
  auto u32 = [&](size_t at) {
    uint32_t v;
    std::memcpy(&v, b.data() + at, 4);
    return v;
  };
  EXPECT_EQ(std::string(b.data(), 7), "SPYRBIN");
  EXPECT_EQ(b[7], '\0');
  EXPECT_EQ(u32(8), Traits::kBinaryVersion);
  EXPECT_EQ(u32(12), 2u); // symbols
  EXPECT_EQ(u32(16), 2u); // programs
  // Symbol table: u16 length + bytes.
  EXPECT_EQ(static_cast<uint8_t>(b[20]), 1);
  EXPECT_EQ(b[22], 'A');
  EXPECT_EQ(static_cast<uint8_t>(b[23]), 4);
  EXPECT_EQ(b.substr(25, 4), "A.d0");
  // Program header (16 bytes) then instructions: u16 op, u8 dtype, u8 count, 16 bytes each.
  size_t p = 29;
  EXPECT_EQ(static_cast<uint8_t>(b[p]), static_cast<uint8_t>(Unit::DmaIn));
  EXPECT_EQ(static_cast<int8_t>(b[p + 1]), -1);
  EXPECT_EQ(u32(p + 12), 2u);
  size_t ins = p + 16;
  EXPECT_EQ(static_cast<uint8_t>(b[ins]), static_cast<uint8_t>(Opcode::Li));
  EXPECT_EQ(static_cast<uint8_t>(b[ins + 2]), 0xFF); // no element type
  EXPECT_EQ(static_cast<uint8_t>(b[ins + 3]), 2);    // operands
  int64_t imm;
  std::memcpy(&imm, b.data() + ins + 4 + 16, 8);
  EXPECT_EQ(imm, 64);
  EXPECT_EQ(static_cast<int8_t>(b[ins + 4 + 16 + 8]), 3); // register
  EXPECT_EQ(u32(ins + 4 + 16 + 12), 0u);                  // symbol
  EXPECT_EQ(b.size(), 29 + 2 * 16 + (4 + 2 * 16) + (4 + 16) + (4 + 16) + (4 + 4 * 16) + (4 + 16));
}

TEST(Binary, BadMagic) {
  std::string b = encodeBinary(small());
  b[0] = 'X';
  EXPECT_ERROR_PARTS([&] { decodeBinary(b, "prog.bin"); },
                     "prog.bin: ", "not a SpyreCode job binary (bad magic");
  EXPECT_ERROR_PARTS([&] { decodeBinary("{\"format\": \"spyrecode\"}", "prog.bin"); }, "bad magic");
}

TEST(Binary, WrongVersion) {
  std::string b = encodeBinary(small());
  b[8] = 2;
  EXPECT_ERROR_PARTS([&] { decodeBinary(b, "prog.bin"); },
                     "prog.bin: ", "unsupported SpyreCode job binary version 2",
                     "this build reads 1");
}

TEST(Binary, TruncatedAnywhere) {
  std::vector<JobBinary> bins = {small(), testing::syntheticBinary()};
  for (const auto& file : testing::kernelFiles())
    bins.push_back(assemble(readFile(file), file, testing::defaultOptions()).binary);
  for (const JobBinary& bin : bins) {
    std::string b = encodeBinary(bin);
    for (size_t n = 0; n < b.size(); ++n) {
      try {
        decodeBinary(b.substr(0, n), "prog.bin");
        ADD_FAILURE() << "a file cut at byte " << n << " of " << b.size() << " was accepted";
      } catch (const Error& e) {
        std::string msg = e.what();
        if (msg.rfind("prog.bin: ", 0) != 0 || msg.find("truncated") == std::string::npos)
          ADD_FAILURE() << "cut at " << n << ": " << msg;
      } catch (const std::exception& e) {
        ADD_FAILURE() << "cut at " << n << ": not a chipless::Error: " << e.what();
      }
    }
  }
}

TEST(Binary, DamagedBytesNeverCrash) {
  std::string good = encodeBinary(small());
  for (size_t i = 0; i < good.size(); ++i)
    for (int v : {0x00, 0x01, 0x7F, 0x80, 0xFF}) {
      std::string b = good;
      b[i] = static_cast<char>(v);
      try {
        decodeBinary(b, "prog.bin");
      } catch (const Error&) {
      } catch (const std::exception& e) {
        ADD_FAILURE() << "byte " << i << " = " << v << ": not a chipless::Error: " << e.what();
      }
    }
}

TEST(Binary, ImplausibleCounts) {
  std::string b = encodeBinary(small());
  std::string s = b;
  s[15] = '\x7F'; // symbol count
  EXPECT_ERROR_PARTS([&] { decodeBinary(s, "prog.bin"); }, "implausible symbol or program count");
  std::string p = b;
  p[19] = '\x7F'; // program count
  EXPECT_ERROR_PARTS([&] { decodeBinary(p, "prog.bin"); }, "implausible symbol or program count");
  std::string c = b;
  c[29 + 15] = '\x7F'; // instruction count of program 0
  EXPECT_ERROR_PARTS([&] { decodeBinary(c, "prog.bin"); }, "program 0: implausible instruction");
  std::string t = b;
  t[20] = '\x40'; // symbol 0 is 64 bytes long
  EXPECT_ERROR_PARTS([&] { decodeBinary(t.substr(0, 40), "prog.bin"); },
                     "truncated inside a symbol name");
}

TEST(Binary, UnknownUnit) {
  JobBinary bin = small();
  bin.programs[1].unit = static_cast<Unit>(9);
  EXPECT_ERROR_PARTS([&] { decodeBinary(encodeBinary(bin), "prog.bin"); },
                     "prog.bin: program 1: unknown unit 9");
}

TEST(Binary, BadCoreRangeOrCorelet) {
  JobBinary bin = small();
  bin.programs[1].coreFirst = 5;
  bin.programs[1].coreLast = 2;
  EXPECT_ERROR_PARTS([&] { decodeBinary(encodeBinary(bin), "prog.bin"); },
                     "prog.bin: program 1: bad core range 5-2");
  bin.programs[1].coreFirst = -1;
  EXPECT_ERROR_PARTS([&] { decodeBinary(encodeBinary(bin), "prog.bin"); }, "bad core range -1-2");
  JobBinary let = small();
  let.programs[1].corelet = -5;
  EXPECT_ERROR_PARTS([&] { decodeBinary(encodeBinary(let), "prog.bin"); },
                     "prog.bin: program 1: bad corelet -5");
}

TEST(Binary, UnknownOpcode) {
  Instruction ins = make(Opcode::Nop);
  ins.op = static_cast<Opcode>(999);
  expectInstructionError(withInstruction(ins), {"unknown opcode 999"});
  ins.op = Opcode::Count;
  expectInstructionError(withInstruction(ins), {"unknown opcode"});
}

TEST(Binary, OpcodeNotAllowedOnTheUnit) {
  expectInstructionError(withInstruction(make(Opcode::DmaLoad)),
                         {"dma.load cannot run on the compute unit"});
  JobBinary bin = small();
  bin.programs[0].code[1] = make(Opcode::SfuAdd, DType::F16);
  EXPECT_ERROR_PARTS([&] { decodeBinary(encodeBinary(bin), "prog.bin"); },
                     "prog.bin: program 0 (dma_in) pc 1: sfu.add cannot run on the dma_in unit");
}

TEST(Binary, ElementTypes) {
  expectInstructionError(withInstruction(make(Opcode::SfuExp, DType::I32)),
                         {"sfu.exp does not take element type code 3"});
  expectInstructionError(withInstruction(make(Opcode::Nop, DType::F16)),
                         {"nop does not take element type code 0"});
  expectInstructionError(withInstruction(make(Opcode::SfuAdd, static_cast<DType>(4))),
                         {"sfu.add does not take element type code 4"});
  expectInstructionError(withInstruction(make(Opcode::SfuAdd)), {"sfu.add needs an element type"});
  // ring.send's suffix is optional in assembly only; the binary always carries the type.
  JobBinary ring = small();
  ring.programs[0].unit = Unit::Ring;
  ring.programs[0].code[1] = make(Opcode::RingSend);
  EXPECT_ERROR_PARTS([&] { decodeBinary(encodeBinary(ring), "prog.bin"); },
                     "prog.bin: program 0 (ring) pc 1: ring.send needs an element type");
  ring.programs[0].code[1].dtype = DType::I32;
  EXPECT_EQ(decodeBinary(encodeBinary(ring), "prog.bin"), ring);
}

TEST(Binary, WrongOperandCount) {
  Instruction ins = make(Opcode::Jmp);
  ins.operands.push_back(Operand{});
  expectInstructionError(withInstruction(ins), {"jmp has 2 operands, expected 1"});
  ins.operands.clear();
  expectInstructionError(withInstruction(ins), {"jmp has 0 operands, expected 1"});
}

TEST(Binary, Registers) {
  Instruction li = make(Opcode::Li);
  li.operands[1].reg = kNumRegs;
  expectInstructionError(withInstruction(li), {"operand 'a' uses register 19"});
  li.operands[1].reg = -2;
  expectInstructionError(withInstruction(li), {"operand 'a' uses register -2"});
  li.operands[1].reg = kRegNumCores; // read-only registers are fine in expressions
  EXPECT_NO_THROW(decodeBinary(encodeBinary(withInstruction(li)), "prog.bin"));
  Instruction rd = make(Opcode::Li);
  rd.operands[0].reg = -1;
  expectInstructionError(withInstruction(rd), {"operand 'rd' must name a register r0..r15"});
  rd.operands[0].reg = kRegCore;
  expectInstructionError(withInstruction(rd), {"operand 'rd' must name a register r0..r15"});
}

TEST(Binary, SymbolIndex) {
  Instruction li = make(Opcode::Li);
  li.operands[1].sym = 2;
  expectInstructionError(withInstruction(li), {"operand 'a' refers to symbol 2 of 2"});
  li.operands[1].sym = -2;
  expectInstructionError(withInstruction(li), {"operand 'a' refers to symbol -2 of 2"});
}

TEST(Binary, LabelsAndHiddenPcs) {
  Instruction jmp = make(Opcode::Jmp);
  jmp.operands[0].imm = 3; // == program size: the end, allowed
  EXPECT_NO_THROW(decodeBinary(encodeBinary(withInstruction(jmp)), "prog.bin"));
  jmp.operands[0].imm = 4;
  expectInstructionError(withInstruction(jmp),
                         {"operand 'target' jumps to pc 4 outside the program (0..3)"});
  jmp.operands[0].imm = -1;
  expectInstructionError(withInstruction(jmp), {"operand 'target' jumps to pc -1"});
  Instruction loop = make(Opcode::Loop);
  loop.operands[1].imm = 9;
  expectInstructionError(withInstruction(loop), {"operand 'end' jumps to pc 9"});
  Instruction end = make(Opcode::EndLoop);
  end.operands[0].imm = -3;
  expectInstructionError(withInstruction(end), {"operand 'start' jumps to pc -3"});
}

TEST(Binary, EnumOutOfRange) {
  JobBinary bin = small();
  bin.programs[0].unit = Unit::Ring;
  Instruction ring = make(Opcode::RingSend, DType::F16);
  ring.operands[4].imm = 3;
  bin.programs[0].code[1] = ring;
  EXPECT_ERROR_PARTS([&] { decodeBinary(encodeBinary(bin), "prog.bin"); },
                     "prog.bin: program 0 (ring) pc 1: ring.send operand 'dir' has no choice 3");
  Instruction mm = make(Opcode::PtMm, DType::F16);
  mm.operands[8].imm = -1;
  expectInstructionError(withInstruction(mm), {"operand 'out' has no choice -1"});
}

TEST(Binary, TrailingBytes) {
  std::string b = encodeBinary(small());
  size_t size = b.size();
  b += '\0';
  EXPECT_ERROR_PARTS([&] { decodeBinary(b, "prog.bin"); }, "prog.bin: ",
                     "unexpected bytes after the last program at byte " + std::to_string(size));
}

} // namespace
} // namespace chipless::spyrecode
