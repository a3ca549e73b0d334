#include "support/tpuprog/disassembler.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <set>
#include <sstream>

namespace chipless::tpuprog {

namespace {

std::string formatFloat(int64_t bits) {
  double v;
  std::memcpy(&v, &bits, sizeof v);
  if (std::isnan(v)) return "nan";
  if (v == INFINITY) return "inf";
  if (v == -INFINITY) return "-inf";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string formatShape(const TensorArg& a) {
  std::string s = "[";
  for (size_t i = 0; i < a.shape.size(); ++i) {
    if (i) s += ", ";
    if (auto* v = std::get_if<int64_t>(&a.shape[i]))
      s += std::to_string(*v);
    else
      s += std::get<std::string>(a.shape[i]);
  }
  return s + "]";
}

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
    return formatFloat(o.imm);
  case OperandKind::Enum:
    return o.imm >= 0 && o.imm < static_cast<int64_t>(decl.choices.size()) ? decl.choices[o.imm]
                                                                           : "?";
  case OperandKind::Hidden:
    return "";
  case OperandKind::Expr:
    break;
  }
  std::string s;
  if (o.reg >= 0) s = regName(o.reg);
  if (o.sym >= 0) s += (s.empty() ? "@" : "+@") + bin.symbols[o.sym];
  if (o.imm != 0 || s.empty()) {
    if (!s.empty())
      s += o.imm < 0 ? "-" : "+";
    else if (o.imm < 0)
      s += "-";
    uint64_t mag = o.imm < 0 ? 0 - static_cast<uint64_t>(o.imm) : static_cast<uint64_t>(o.imm);
    // -2^63 has no positive counterpart for the assembler to negate: write it as a sum.
    s += mag == (uint64_t{1} << 63) ? "9223372036854775807-1" : std::to_string(mag);
  }
  return s;
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
  for (const auto& s : plan.scalars) out << ".scalar " << s.name << "\n";
  for (const auto& a : plan.args) {
    const char* dir = a.role == ArgRole::Input    ? ".input"
                      : a.role == ArgRole::Output ? ".output"
                                                  : ".inout";
    out << dir << " " << a.name << " " << dtypeName(a.dtype) << " " << formatShape(a);
    if (a.tile[0] != 1 || a.tile[1] != 1) out << " tile=" << a.tile[0] << "x" << a.tile[1];
    if (a.placement == Placement::Split) out << " placement=split";
    out << "\n";
  }
  for (const auto& b : plan.buffers) out << ".buffer " << b.name << " " << b.size << "\n";
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
