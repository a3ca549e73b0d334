#include "support/tpuprog/disassembler.h"

#include "support/asm_source.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <set>
#include <sstream>

namespace chipless::tpuprog {

namespace {

bool isDefault(const OperandDecl& d, const Operand& o) {
  return d.optional && o.reg < 0 && o.sym < 0 && o.imm == d.defaultValue;
}

std::string formatRange(int32_t first, int32_t last) {
  if (first == 0 && last == kAll) return "all";
  if (first == last) return std::to_string(first);
  return std::to_string(first) + "-" + std::to_string(last);
}

} // namespace

std::string formatOperand(const JobBinary& bin, const OperandDecl& decl, const Operand& o) {
  switch (decl.kind) {
  case OperandKind::SReg:
    return regName(o.reg);
  case OperandKind::VReg:
    return vregName(o.imm);
  case OperandKind::Label:
    return "L" + std::to_string(o.imm);
  case OperandKind::Float:
    return asmtext::formatFloatBits(o.imm);
  case OperandKind::Enum:
    return o.imm >= 0 && o.imm < static_cast<int64_t>(decl.choices.size()) ? decl.choices[o.imm]
                                                                           : "?";
  case OperandKind::Hidden:
    return "";
  case OperandKind::Expr:
    break;
  }
  return asmtext::formatExpression(o.reg >= 0 ? regName(o.reg) : "",
                                   o.sym >= 0 ? bin.symbols[o.sym] : "", o.imm);
}

std::string formatOp(const JobBinary& bin, const Op& op) {
  const OpcodeInfo& info = opcodeInfo(op.op);
  std::string s = info.mnemonic;
  if (op.dtype && info.dtype == DtypeRule::Required) s += std::string(".") + dtypeName(*op.dtype);
  std::string ops;
  int printedPositional = 0;
  for (size_t i = 0; i < info.operands.size(); ++i) {
    const OperandDecl& d = info.operands[i];
    if (d.kind == OperandKind::Hidden) continue;
    const Operand& o = op.operands[i];
    bool positional = printedPositional < info.positional;
    if (positional) ++printedPositional;
    if (!positional && isDefault(d, o)) continue;
    ops += ops.empty() ? " " : ", ";
    if (!positional) ops += std::string(d.name) + "=";
    ops += formatOperand(bin, d, o);
  }
  return s + ops;
}

std::string formatBundle(const JobBinary& bin, const Bundle& bundle) {
  std::string s;
  for (const Op& op : bundle.ops) s += (s.empty() ? "" : " | ") + formatOp(bin, op);
  return s;
}

std::string disassemble(const Job& job) {
  std::ostringstream out;
  const JobPlan& plan = job.plan;
  out << "; TPU program '" << plan.kernel << "' (disassembled)\n";
  out << ".kernel " << plan.kernel << "\n";
  for (const auto& s : plan.scalars) out << ".scalar " << scalarArgAsm(s) << "\n";
  for (const auto& a : plan.args) {
    const char* dir = a.role == ArgRole::Input    ? ".input"
                      : a.role == ArgRole::Output ? ".output"
                                                  : ".inout";
    out << dir << " " << a.name << " " << dtypeName(a.dtype) << " "
        << asmtext::formatShape(a.shape);
    if (a.tile[0] != 1 || a.tile[1] != 1) out << " tile=" << a.tile[0] << "x" << a.tile[1];
    if (a.placement == Placement::Split) out << " placement=split";
    out << "\n";
  }
  for (const auto& b : plan.buffers) out << ".buffer " << b.name << " " << b.size << "\n";
  for (const auto& t : plan.traps) out << ".trap " << t.code << " \"" << t.message << "\"\n";
  for (const auto& p : job.binary.programs) {
    out << "\n.program chips=" << formatRange(p.chipFirst, p.chipLast)
        << " cores=" << formatRange(p.coreFirst, p.coreLast) << "\n";
    std::set<int64_t> targets;
    for (const auto& b : p.bundles)
      for (const auto& op : b.ops) {
        const OpcodeInfo& info = opcodeInfo(op.op);
        for (size_t i = 0; i < info.operands.size(); ++i)
          if (info.operands[i].kind == OperandKind::Label) targets.insert(op.operands[i].imm);
      }
    int indent = 1;
    for (size_t pc = 0; pc <= p.bundles.size(); ++pc) {
      if (targets.count(static_cast<int64_t>(pc))) out << "L" << pc << ":\n";
      if (pc == p.bundles.size()) break;
      const Bundle& b = p.bundles[pc];
      bool opens = false, closes = false;
      for (const Op& op : b.ops) {
        opens |= op.op == Opcode::Loop;
        closes |= op.op == Opcode::EndLoop;
      }
      if (closes) --indent;
      std::string text = std::string(2 * indent + 2, ' ') + formatBundle(job.binary, b);
      if (text.size() < 60) text.resize(60, ' ');
      out << text << " ; pc " << pc << "\n";
      if (opens) ++indent;
    }
    out << ".end\n";
  }
  return out.str();
}

} // namespace chipless::tpuprog
