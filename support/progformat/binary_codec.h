#pragma once
/// The one binary codec of both program formats (SpyreCode init.bin, TPU program.bin):
/// little-endian, packed, deterministic. Layout (docs/spyrecode.md, docs/tpu-program.md):
/// magic (8 bytes), u32 version, u32 symbol count, u32 program count, the symbols (u16
/// length + bytes), then per program the chip's program header, u32 step count and the
/// steps: an op is u16 opcode, u8 element type (0xFF: none), u8 operand count and 16 bytes
/// per operand (i64 imm, i8 reg, 3 bytes padding, i32 sym); a bundle is a u8 op count and
/// its ops. Decoding checks every op against the chip's table (operand count, registers,
/// symbols, element type, branch targets, constant kinds, where it may run), every step
/// (bundle slots) and the loop pairing. What differs per chip comes from `Chip`
/// (isa_table.h) and these hooks:
///
///   kBinaryMagic, kBinaryVersion, kBinaryTitle      the file's magic, version and name
///   writeProgramHeader(w, program), readProgramHeader(r, where, program)
///   location(where, program, pc)                    "program 0 (compute) pc 3" in errors
///   kMaxOpsPerStep                                  the most ops one bundle may hold
#include "support/progformat/byte_io.h"
#include "support/progformat/isa_table.h"
#include "support/progformat/operand.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace chipless::progformat {

/// The element-type byte of an op that has none.
constexpr uint8_t kNoDtype = 0xFF;

/// Writes a program's core or chip range: i32 first, i32 last.
void writeRange(ByteWriter& w, int32_t first, int32_t last);
/// Reads what writeRange wrote; a negative or reversed range fails naming `where` and
/// `noun` ("program 0: bad core range 3-1").
void readRange(ByteReader& r, const std::string& where, const char* noun, int32_t& first,
               int32_t& last);

/// Writes one op: opcode, element type, operand count, operands.
void writeOp(ByteWriter& w, uint16_t opcode, const std::optional<DType>& dtype,
             const std::vector<Operand>& operands);

/// Serialises a job binary.
template <typename Chip>
std::string encodeBinary(const typename Chip::JobBinary& bin) {
  ByteWriter w;
  for (int i = 0; i < 8; ++i) w.put<char>(Chip::kBinaryMagic[i]);
  w.put<uint32_t>(Chip::kBinaryVersion);
  w.put<uint32_t>(static_cast<uint32_t>(bin.symbols.size()));
  w.put<uint32_t>(static_cast<uint32_t>(bin.programs.size()));
  for (const auto& s : bin.symbols) w.str(s);
  for (const auto& p : bin.programs) {
    Chip::writeProgramHeader(w, p);
    const auto& steps = Chip::steps(p);
    w.put<uint32_t>(static_cast<uint32_t>(steps.size()));
    for (const auto& step : steps) {
      auto ops = Chip::ops(step);
      if constexpr (Chip::kBundles) w.put<uint8_t>(static_cast<uint8_t>(ops.size()));
      for (const auto& op : ops) writeOp(w, static_cast<uint16_t>(op.op), op.dtype, op.operands);
    }
  }
  return w.take();
}

/// Reads and checks one op of program `p` at `at` (a location for errors); `count` is the
/// program's step count and `symbols` the binary's symbol count.
template <typename Chip>
typename Chip::Op readOp(ByteReader& r, const std::string& at, const typename Chip::Program& p,
                         uint32_t count, size_t symbols) {
  const std::string what = std::string("an ") + Chip::kOpNoun;
  typename Chip::Op op;
  auto code = r.get<uint16_t>(what.c_str());
  if (code >= static_cast<uint16_t>(Chip::Opcode::Count))
    r.fail(at + ": unknown opcode " + std::to_string(code));
  op.op = static_cast<typename Chip::Opcode>(code);
  const auto& info = Chip::table()[op.op];
  const std::string m = info.mnemonic;
  if (std::string why = Chip::placementError(info, p); !why.empty()) r.fail(at + ": " + why);
  auto dt = r.get<uint8_t>(what.c_str());
  if (dt != kNoDtype) {
    if (dt > static_cast<uint8_t>(DType::I8) || info.dtype == DtypeRule::None ||
        !(info.dtypeMask & (1u << dt)))
      r.fail(at + ": " + m + " does not take element type code " + std::to_string(dt));
    op.dtype = static_cast<DType>(dt);
  } else if (info.dtype != DtypeRule::None) {
    // An optional suffix is optional only in assembly (the assembler writes the default
    // type): executing needs a type.
    r.fail(at + ": " + m + " needs an element type");
  }
  auto nops = r.get<uint8_t>(what.c_str());
  if (nops != info.operands.size())
    r.fail(at + ": " + m + " has " + std::to_string(nops) + " operands, expected " +
           std::to_string(info.operands.size()));
  const auto& regs = Chip::registers();
  for (uint8_t k = 0; k < nops; ++k) {
    Operand o;
    o.imm = r.get<int64_t>("an operand");
    o.reg = r.get<int8_t>("an operand");
    r.get<uint8_t>("an operand");
    r.get<uint16_t>("an operand");
    o.sym = r.get<int32_t>("an operand");
    const OperandDecl& decl = info.operands[k];
    std::string opnd = at + ": " + m + " operand '" + decl.name + "'";
    if (o.reg < -1 || o.reg >= regs.count())
      r.fail(opnd + " uses register " + std::to_string(o.reg));
    if (decl.kind == OperandKind::Reg && (o.reg < 0 || o.reg >= regs.general))
      r.fail(opnd + " must name " + regs.generalText());
    if (!mayCarryRegister(decl.kind) && o.reg != -1)
      r.fail(opnd + " is a constant but carries a register");
    if (!mayCarrySymbol(decl.kind) && o.sym != -1)
      r.fail(opnd + " is a constant but carries a symbol");
    if (decl.kind == OperandKind::Float && o.sym != -1 && o.imm != 0)
      r.fail(opnd + " is bound to a symbol but also carries a constant");
    if (o.sym < -1 || o.sym >= static_cast<int32_t>(symbols))
      r.fail(opnd + " refers to symbol " + std::to_string(o.sym) + " of " +
             std::to_string(symbols));
    if ((decl.kind == OperandKind::Label || decl.kind == OperandKind::Hidden) &&
        (o.imm < 0 || o.imm > static_cast<int64_t>(count)))
      r.fail(opnd + " jumps to " + Chip::kPcNoun + " " + std::to_string(o.imm) +
             " outside the program (0.." + std::to_string(count) + ")");
    if (decl.kind == OperandKind::Enum &&
        (o.imm < 0 || o.imm >= static_cast<int64_t>(decl.choices.size())))
      r.fail(opnd + " has no choice " + std::to_string(o.imm));
    if ((decl.kind == OperandKind::Port || decl.kind == OperandKind::VReg) &&
        !Chip::validValue(decl.kind, o.imm))
      r.fail(opnd + " holds " + std::to_string(o.imm) + ", which is not " +
             Chip::expectedText(decl.kind));
    op.operands.push_back(o);
  }
  return op;
}

/// Checks that every loop of `p` names the step after its endloop and the reverse.
template <typename Chip>
void checkLoopPairs(const ByteReader& r, const std::string& where,
                    const typename Chip::Program& p) {
  const auto& steps = Chip::steps(p);
  auto has = [&](int64_t pc, typename Chip::Opcode code, size_t operand, int64_t value) {
    for (const auto& op : Chip::ops(steps[static_cast<size_t>(pc)]))
      if (op.op == code && op.operands[operand].imm == value) return true;
    return false;
  };
  for (size_t pc = 0; pc < steps.size(); ++pc)
    for (const auto& op : Chip::ops(steps[pc])) {
      const auto at = static_cast<int64_t>(pc);
      if (op.op == Chip::Opcode::Loop) {
        int64_t end = op.operands[1].imm;
        if (!(end > at && has(end - 1, Chip::Opcode::EndLoop, 0, at)))
          r.fail(Chip::location(where, p, pc) + ": loop is not paired with an endloop");
      }
      if (op.op == Chip::Opcode::EndLoop) {
        int64_t start = op.operands[0].imm;
        if (!(start >= 0 && start <= at && has(start, Chip::Opcode::Loop, 1, at + 1)))
          r.fail(Chip::location(where, p, pc) + ": endloop is not paired with a loop");
      }
    }
}

/// Parses and validates a job binary; errors name `path` and the program and step, or the
/// byte offset.
template <typename Chip>
typename Chip::JobBinary decodeBinary(const std::string& bytes, const std::string& path) {
  ByteReader r(bytes, path);
  char magic[8];
  for (char& c : magic) c = r.get<char>("the magic bytes");
  if (std::memcmp(magic, Chip::kBinaryMagic, 8) != 0)
    r.fail(std::string("not a ") + Chip::kBinaryTitle + " (bad magic; expected \"" +
           Chip::kBinaryMagic + "\")");
  auto version = r.get<uint32_t>("the version");
  if (version != Chip::kBinaryVersion)
    r.fail(std::string("unsupported ") + Chip::kBinaryTitle + " version " +
           std::to_string(version) + " (this build reads " + std::to_string(Chip::kBinaryVersion) +
           ")");
  typename Chip::JobBinary bin;
  auto nsym = r.get<uint32_t>("the symbol count");
  auto nprog = r.get<uint32_t>("the program count");
  if (nsym > (1u << 20) || nprog > (1u << 20)) r.fail("implausible symbol or program count");
  for (uint32_t i = 0; i < nsym; ++i) bin.symbols.push_back(r.str("a symbol name"));
  for (uint32_t pi = 0; pi < nprog; ++pi) {
    typename Chip::Program p;
    std::string where = "program " + std::to_string(pi);
    Chip::readProgramHeader(r, where, p);
    auto count = r.get<uint32_t>("a program header");
    if (count > (1u << 24)) r.fail(where + ": implausible " + Chip::kStepNoun + " count");
    auto& steps = Chip::steps(p);
    steps.reserve(std::min<size_t>(count, r.remaining() / 4)); // a damaged count stays cheap
    for (uint32_t pc = 0; pc < count; ++pc) {
      std::string at = Chip::location(where, p, pc);
      std::vector<typename Chip::Op> ops;
      size_t n = 1;
      if constexpr (Chip::kBundles) {
        n = r.get<uint8_t>("a bundle");
        if (n == 0 || n > Chip::kMaxOpsPerStep)
          r.fail(at + ": " + std::to_string(n) + " operations (1.." +
                 std::to_string(Chip::kMaxOpsPerStep) + " allowed)");
      }
      for (size_t oi = 0; oi < n; ++oi) ops.push_back(readOp<Chip>(r, at, p, count, nsym));
      auto step = Chip::makeStep(std::move(ops));
      if (std::string why = Chip::stepError(step, nullptr); !why.empty()) r.fail(at + ": " + why);
      steps.push_back(std::move(step));
    }
    checkLoopPairs<Chip>(r, where, p);
    bin.programs.push_back(std::move(p));
  }
  if (!r.atEnd())
    r.fail("unexpected bytes after the last program at byte " + std::to_string(r.pos()));
  return bin;
}

} // namespace chipless::progformat
