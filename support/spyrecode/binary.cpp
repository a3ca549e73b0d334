#include "support/spyrecode/binary.h"

#include "support/byte_io.h"
#include "support/error.h"

#include <algorithm>
#include <cstring>

namespace chipless::spyrecode {

namespace {

using Writer = ByteWriter;
using Reader = ByteReader;

constexpr uint8_t kNoDtype = 0xFF;

} // namespace

std::string encodeBinary(const JobBinary& bin) {
  Writer w;
  for (char c : kBinaryMagic) w.put<char>(c);
  w.put<uint32_t>(kBinaryVersion);
  w.put<uint32_t>(static_cast<uint32_t>(bin.symbols.size()));
  w.put<uint32_t>(static_cast<uint32_t>(bin.programs.size()));
  for (const auto& s : bin.symbols) w.str(s);
  for (const auto& p : bin.programs) {
    w.put<uint8_t>(static_cast<uint8_t>(p.unit));
    w.put<int8_t>(static_cast<int8_t>(p.corelet));
    w.put<uint16_t>(0);
    w.put<int32_t>(p.coreFirst);
    w.put<int32_t>(p.coreLast);
    w.put<uint32_t>(static_cast<uint32_t>(p.code.size()));
    for (const auto& ins : p.code) {
      w.put<uint16_t>(static_cast<uint16_t>(ins.op));
      w.put<uint8_t>(ins.dtype ? static_cast<uint8_t>(*ins.dtype) : kNoDtype);
      w.put<uint8_t>(static_cast<uint8_t>(ins.operands.size()));
      for (const auto& o : ins.operands) {
        w.put<int64_t>(o.imm);
        w.put<int8_t>(o.reg);
        w.put<uint8_t>(0);
        w.put<uint16_t>(0);
        w.put<int32_t>(o.sym);
      }
    }
  }
  return w.take();
}

JobBinary decodeBinary(const std::string& bytes, const std::string& path) {
  Reader r(bytes, path);
  char magic[8];
  for (char& c : magic) c = r.get<char>("the magic bytes");
  if (std::memcmp(magic, kBinaryMagic, 8) != 0)
    r.fail("not a SpyreCode job binary (bad magic; expected \"SPYRBIN\")");
  auto version = r.get<uint32_t>("the version");
  if (version != kBinaryVersion)
    r.fail("unsupported job binary version " + std::to_string(version) + " (this build reads " +
           std::to_string(kBinaryVersion) + ")");
  JobBinary bin;
  auto nsym = r.get<uint32_t>("the symbol count");
  auto nprog = r.get<uint32_t>("the program count");
  if (nsym > (1u << 20) || nprog > (1u << 20)) r.fail("implausible symbol or program count");
  for (uint32_t i = 0; i < nsym; ++i) bin.symbols.push_back(r.str("a symbol name"));
  for (uint32_t pi = 0; pi < nprog; ++pi) {
    Program p;
    std::string where = "program " + std::to_string(pi);
    auto unit = r.get<uint8_t>("a program header");
    if (unit >= kUnitCount) r.fail(where + ": unknown unit " + std::to_string(unit));
    p.unit = static_cast<Unit>(unit);
    p.corelet = r.get<int8_t>("a program header");
    r.get<uint16_t>("a program header");
    p.coreFirst = r.get<int32_t>("a program header");
    p.coreLast = r.get<int32_t>("a program header");
    if (p.coreFirst < 0 || p.coreLast < p.coreFirst)
      r.fail(where + ": bad core range " + std::to_string(p.coreFirst) + "-" +
             std::to_string(p.coreLast));
    if (p.corelet < -1) r.fail(where + ": bad corelet " + std::to_string(p.corelet));
    auto count = r.get<uint32_t>("a program header");
    if (count > (1u << 24)) r.fail(where + ": implausible instruction count");
    p.code.reserve(std::min<size_t>(count, r.remaining() / 4)); // a damaged count stays cheap
    for (uint32_t pc = 0; pc < count; ++pc) {
      std::string at = where + " (" + unitName(p.unit) + ") pc " + std::to_string(pc);
      Instruction ins;
      auto op = r.get<uint16_t>("an instruction");
      if (op >= static_cast<uint16_t>(Opcode::Count))
        r.fail(at + ": unknown opcode " + std::to_string(op));
      ins.op = static_cast<Opcode>(op);
      const OpcodeInfo& info = opcodeInfo(ins.op);
      if (!(info.unitMask & (1u << unit)))
        r.fail(at + ": " + info.mnemonic + " cannot run on the " + unitName(p.unit) + " unit");
      auto dt = r.get<uint8_t>("an instruction");
      if (dt != kNoDtype) {
        if (dt > static_cast<uint8_t>(DType::I32) || info.dtype == DtypeRule::None ||
            !(info.dtypeMask & (1u << dt)))
          r.fail(at + ": " + info.mnemonic + " does not take element type code " +
                 std::to_string(dt));
        ins.dtype = static_cast<DType>(dt);
      } else if (info.dtype != DtypeRule::None) {
        // Optional only in assembly (the assembler writes f16): executing needs a type.
        r.fail(at + ": " + info.mnemonic + " needs an element type");
      }
      auto nops = r.get<uint8_t>("an instruction");
      if (nops != info.operands.size())
        r.fail(at + ": " + info.mnemonic + " has " + std::to_string(nops) + " operands, expected " +
               std::to_string(info.operands.size()));
      for (uint8_t k = 0; k < nops; ++k) {
        Operand o;
        o.imm = r.get<int64_t>("an operand");
        o.reg = r.get<int8_t>("an operand");
        r.get<uint8_t>("an operand");
        r.get<uint16_t>("an operand");
        o.sym = r.get<int32_t>("an operand");
        const OperandDecl& decl = info.operands[k];
        if (o.reg < -1 || o.reg >= kNumRegs)
          r.fail(at + ": operand '" + decl.name + "' uses register " + std::to_string(o.reg));
        if (decl.kind == OperandKind::Reg && (o.reg < 0 || o.reg >= kNumGeneralRegs))
          r.fail(at + ": operand '" + decl.name + "' must name a register r0..r15");
        if (o.sym < -1 || o.sym >= static_cast<int32_t>(bin.symbols.size()))
          r.fail(at + ": operand '" + decl.name + "' refers to symbol " + std::to_string(o.sym) +
                 " of " + std::to_string(bin.symbols.size()));
        if ((decl.kind == OperandKind::Label || decl.kind == OperandKind::Hidden) &&
            (o.imm < 0 || o.imm > static_cast<int64_t>(count)))
          r.fail(at + ": operand '" + decl.name + "' jumps to pc " + std::to_string(o.imm) +
                 " outside the program (0.." + std::to_string(count) + ")");
        if (decl.kind == OperandKind::Enum &&
            (o.imm < 0 || o.imm >= static_cast<int64_t>(decl.choices.size())))
          r.fail(at + ": operand '" + decl.name + "' has no choice " + std::to_string(o.imm));
        ins.operands.push_back(o);
      }
      p.code.push_back(std::move(ins));
    }
    bin.programs.push_back(std::move(p));
  }
  if (!r.atEnd())
    r.fail("unexpected bytes after the last program at byte " + std::to_string(r.pos()));
  return bin;
}

} // namespace chipless::spyrecode
