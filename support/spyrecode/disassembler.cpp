#include "support/spyrecode/disassembler.h"

#include "support/asm_source.h"

#include <cstdio>
#include <cstring>
#include <set>
#include <sstream>

namespace chipless::spyrecode {

namespace {

bool isDefault(const OperandDecl& d, const Operand& o) {
  return d.optional && o.reg < 0 && o.sym < 0 && o.imm == d.defaultValue;
}

} // namespace

std::string formatOperand(const JobBinary& bin, const OperandDecl& decl, const Operand& o) {
  switch (decl.kind) {
  case OperandKind::Reg:
    return regName(o.reg);
  case OperandKind::Port:
    return portName(o.imm);
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

std::string formatInstruction(const JobBinary& bin, const Instruction& ins) {
  const OpcodeInfo& info = opcodeInfo(ins.op);
  std::string s = info.mnemonic;
  if (ins.dtype && info.dtype == DtypeRule::Required) s += std::string(".") + dtypeName(*ins.dtype);
  if (ins.dtype && info.dtype == DtypeRule::Optional && *ins.dtype != DType::F16)
    s += std::string(".") + dtypeName(*ins.dtype);
  std::string ops;
  int printedPositional = 0;
  for (size_t i = 0; i < info.operands.size(); ++i) {
    const OperandDecl& d = info.operands[i];
    if (d.kind == OperandKind::Hidden) continue;
    const Operand& o = ins.operands[i];
    bool positional = printedPositional < info.positional;
    if (positional) ++printedPositional;
    if (!positional && isDefault(d, o)) continue;
    ops += ops.empty() ? " " : ", ";
    if (!positional) ops += std::string(d.name) + "=";
    ops += formatOperand(bin, d, o);
  }
  return s + ops;
}

std::string disassemble(const Job& job) {
  std::ostringstream out;
  const JobPlan& plan = job.plan;
  out << "; SpyreCode job '" << plan.kernel << "' (disassembled)\n";
  out << ".kernel " << plan.kernel << "\n";
  for (const auto& s : plan.scalars) out << ".scalar " << scalarArgAsm(s) << "\n";
  for (const auto& a : plan.args) {
    const char* dir = a.role == ArgRole::Input    ? ".input"
                      : a.role == ArgRole::Output ? ".output"
                                                  : ".inout";
    out << dir << " " << a.name << " " << dtypeName(a.dtype) << " " << asmtext::formatShape(a.shape)
        << (a.layout == Layout::RowMajor ? " row_major" : "") << "\n";
  }
  for (const auto& b : plan.buffers) out << ".buffer " << b.name << " " << b.size << "\n";
  for (const auto& p : job.binary.programs) {
    out << "\n.program " << unitName(p.unit) << " cores=";
    if (p.coreLast == kAllCores && p.coreFirst == 0)
      out << "all";
    else if (p.coreFirst == p.coreLast)
      out << p.coreFirst;
    else
      out << p.coreFirst << "-" << p.coreLast;
    if (isCoreletUnit(p.unit)) {
      if (p.corelet < 0)
        out << " corelet=all";
      else
        out << " corelet=" << p.corelet;
    }
    out << "\n";
    std::set<int64_t> targets;
    for (const auto& ins : p.code) {
      const OpcodeInfo& info = opcodeInfo(ins.op);
      for (size_t i = 0; i < info.operands.size(); ++i)
        if (info.operands[i].kind == OperandKind::Label) targets.insert(ins.operands[i].imm);
    }
    int indent = 1;
    for (size_t pc = 0; pc <= p.code.size(); ++pc) {
      if (targets.count(static_cast<int64_t>(pc))) out << "L" << pc << ":\n";
      if (pc == p.code.size()) break;
      const Instruction& ins = p.code[pc];
      if (ins.op == Opcode::EndLoop) --indent;
      std::string text = std::string(2 * indent + 2, ' ') + formatInstruction(job.binary, ins);
      if (text.size() < 60) text.resize(60, ' ');
      out << text << " ; pc " << pc << "\n";
      if (ins.op == Opcode::Loop) ++indent;
    }
    out << ".end\n";
  }
  return out.str();
}

} // namespace chipless::spyrecode
