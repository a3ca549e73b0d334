#include "support/tpuprog/binary.h"

#include "support/byte_io.h"
#include "support/error.h"

#include <algorithm>
#include <cstring>

namespace chipless::tpuprog {

namespace {

using Writer = ByteWriter;
using Reader = ByteReader;

constexpr uint8_t kNoDtype = 0xFF;

} // namespace

std::string checkBundleSlots(const Bundle& bundle, int scalarSlots) {
  int used[kSlotCount] = {};
  int control = 0;
  for (const Op& op : bundle.ops) {
    const OpcodeInfo& info = opcodeInfo(op.op);
    int s = static_cast<int>(info.slot);
    int limit = info.slot == Slot::Scalar ? scalarSlots : 1;
    if (++used[s] > limit)
      return info.slot == Slot::Scalar
                 ? "more than " + std::to_string(scalarSlots) + " scalar operations in one bundle"
                 : std::string("two operations for the ") + slotName(info.slot) + " slot (" +
                       info.mnemonic + ") in one bundle";
    if (isControl(op.op) && ++control > 1) return "two control operations in one bundle";
  }
  return "";
}

std::string encodeBinary(const JobBinary& bin) {
  Writer w;
  for (char c : kBinaryMagic) w.put<char>(c);
  w.put<uint32_t>(kBinaryVersion);
  w.put<uint32_t>(static_cast<uint32_t>(bin.symbols.size()));
  w.put<uint32_t>(static_cast<uint32_t>(bin.programs.size()));
  for (const auto& s : bin.symbols) w.str(s);
  for (const auto& p : bin.programs) {
    w.put<int32_t>(p.chipFirst);
    w.put<int32_t>(p.chipLast);
    w.put<int32_t>(p.coreFirst);
    w.put<int32_t>(p.coreLast);
    w.put<uint32_t>(static_cast<uint32_t>(p.bundles.size()));
    for (const auto& b : p.bundles) {
      w.put<uint8_t>(static_cast<uint8_t>(b.ops.size()));
      for (const auto& op : b.ops) {
        w.put<uint16_t>(static_cast<uint16_t>(op.op));
        w.put<uint8_t>(op.dtype ? static_cast<uint8_t>(*op.dtype) : kNoDtype);
        w.put<uint8_t>(static_cast<uint8_t>(op.operands.size()));
        for (const auto& o : op.operands) {
          w.put<int64_t>(o.imm);
          w.put<int8_t>(o.reg);
          w.put<uint8_t>(0);
          w.put<uint16_t>(0);
          w.put<int32_t>(o.sym);
        }
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
    r.fail("not a TPU program binary (bad magic; expected \"TPUPROG\")");
  auto version = r.get<uint32_t>("the version");
  if (version != kBinaryVersion)
    r.fail("unsupported TPU program binary version " + std::to_string(version) +
           " (this build reads " + std::to_string(kBinaryVersion) + ")");
  JobBinary bin;
  auto nsym = r.get<uint32_t>("the symbol count");
  auto nprog = r.get<uint32_t>("the program count");
  if (nsym > (1u << 20) || nprog > (1u << 20)) r.fail("implausible symbol or program count");
  for (uint32_t i = 0; i < nsym; ++i) bin.symbols.push_back(r.str("a symbol name"));
  for (uint32_t pi = 0; pi < nprog; ++pi) {
    Program p;
    std::string where = "program " + std::to_string(pi);
    p.chipFirst = r.get<int32_t>("a program header");
    p.chipLast = r.get<int32_t>("a program header");
    p.coreFirst = r.get<int32_t>("a program header");
    p.coreLast = r.get<int32_t>("a program header");
    if (p.chipFirst < 0 || p.chipLast < p.chipFirst)
      r.fail(where + ": bad chip range " + std::to_string(p.chipFirst) + "-" +
             std::to_string(p.chipLast));
    if (p.coreFirst < 0 || p.coreLast < p.coreFirst)
      r.fail(where + ": bad core range " + std::to_string(p.coreFirst) + "-" +
             std::to_string(p.coreLast));
    auto count = r.get<uint32_t>("a program header");
    if (count > (1u << 24)) r.fail(where + ": implausible bundle count");
    p.bundles.reserve(std::min<size_t>(count, r.remaining())); // a damaged count stays cheap
    for (uint32_t bi = 0; bi < count; ++bi) {
      std::string at = where + " bundle " + std::to_string(bi);
      Bundle b;
      auto nops = r.get<uint8_t>("a bundle");
      if (nops == 0 || nops > kMaxOpsPerBundle)
        r.fail(at + ": " + std::to_string(nops) + " operations (1.." +
               std::to_string(kMaxOpsPerBundle) + " allowed)");
      for (uint8_t oi = 0; oi < nops; ++oi) {
        Op op;
        auto code = r.get<uint16_t>("an operation");
        if (code >= static_cast<uint16_t>(Opcode::Count))
          r.fail(at + ": unknown opcode " + std::to_string(code));
        op.op = static_cast<Opcode>(code);
        const OpcodeInfo& info = opcodeInfo(op.op);
        std::string what = at + " (" + info.mnemonic + ")";
        auto dt = r.get<uint8_t>("an operation");
        if (dt != kNoDtype) {
          if (dt > static_cast<uint8_t>(DType::I8) || info.dtype == DtypeRule::None ||
              !(info.dtypeMask & (1u << dt)))
            r.fail(what + ": does not take element type code " + std::to_string(dt));
          op.dtype = static_cast<DType>(dt);
        } else if (info.dtype != DtypeRule::None) {
          r.fail(what + ": needs an element type");
        }
        auto nopd = r.get<uint8_t>("an operation");
        if (nopd != info.operands.size())
          r.fail(what + ": " + std::to_string(nopd) + " operands, expected " +
                 std::to_string(info.operands.size()));
        for (uint8_t k = 0; k < nopd; ++k) {
          Operand o;
          o.imm = r.get<int64_t>("an operand");
          o.reg = r.get<int8_t>("an operand");
          r.get<uint8_t>("an operand");
          r.get<uint16_t>("an operand");
          o.sym = r.get<int32_t>("an operand");
          const OperandDecl& decl = info.operands[k];
          std::string opnd = what + ": operand '" + decl.name + "'";
          if (o.reg < -1 || o.reg >= kNumRegs)
            r.fail(opnd + " uses register " + std::to_string(o.reg));
          if (decl.kind == OperandKind::SReg && (o.reg < 0 || o.reg >= kMaxGeneralRegs))
            r.fail(opnd + " must name a register s0..s" + std::to_string(kMaxGeneralRegs - 1));
          if (decl.kind != OperandKind::SReg && decl.kind != OperandKind::Expr &&
              (o.reg != -1 || o.sym != -1))
            r.fail(opnd + " is a constant but carries a register or symbol");
          if (o.sym < -1 || o.sym >= static_cast<int32_t>(bin.symbols.size()))
            r.fail(opnd + " refers to symbol " + std::to_string(o.sym) + " of " +
                   std::to_string(bin.symbols.size()));
          if ((decl.kind == OperandKind::Label || decl.kind == OperandKind::Hidden) &&
              (o.imm < 0 || o.imm > static_cast<int64_t>(count)))
            r.fail(opnd + " jumps to bundle " + std::to_string(o.imm) +
                   " outside the program (0.." + std::to_string(count) + ")");
          if (decl.kind == OperandKind::Enum &&
              (o.imm < 0 || o.imm >= static_cast<int64_t>(decl.choices.size())))
            r.fail(opnd + " has no choice " + std::to_string(o.imm));
          if (decl.kind == OperandKind::VReg && (o.imm < 0 || o.imm >= kMaxVRegs))
            r.fail(opnd + " names vector register " + std::to_string(o.imm));
          op.operands.push_back(o);
        }
        b.ops.push_back(std::move(op));
      }
      std::string slots = checkBundleSlots(b, kMaxScalarSlots);
      if (!slots.empty()) r.fail(at + ": " + slots);
      p.bundles.push_back(std::move(b));
    }
    // Loop pairing: every loop names the bundle after its endloop and the reverse.
    for (size_t bi = 0; bi < p.bundles.size(); ++bi)
      for (const Op& op : p.bundles[bi].ops) {
        std::string at = where + " bundle " + std::to_string(bi);
        if (op.op == Opcode::Loop) {
          int64_t end = op.operands[1].imm;
          bool ok = end >= 1 && end > static_cast<int64_t>(bi);
          if (ok) {
            ok = false;
            for (const Op& e : p.bundles[static_cast<size_t>(end - 1)].ops)
              ok |= e.op == Opcode::EndLoop && e.operands[0].imm == static_cast<int64_t>(bi);
          }
          if (!ok) r.fail(at + " (loop): not paired with an endloop");
        }
        if (op.op == Opcode::EndLoop) {
          int64_t start = op.operands[0].imm;
          bool ok = start >= 0 && start < static_cast<int64_t>(bi + 1);
          if (ok) {
            ok = false;
            for (const Op& l : p.bundles[static_cast<size_t>(start)].ops)
              ok |= l.op == Opcode::Loop && l.operands[1].imm == static_cast<int64_t>(bi + 1);
          }
          if (!ok) r.fail(at + " (endloop): not paired with a loop");
        }
      }
    bin.programs.push_back(std::move(p));
  }
  if (!r.atEnd())
    r.fail("unexpected bytes after the last program at byte " + std::to_string(r.pos()));
  return bin;
}

} // namespace chipless::tpuprog
