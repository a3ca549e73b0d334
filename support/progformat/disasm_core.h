#pragma once
/// The one disassembler of both program formats: a job printed back as assembly that
/// assembles to the same plan and binary, with the program counter of every step in a
/// comment so simulator errors ("pc 12") can be found. What differs per chip comes from
/// `Chip` (isa_table.h) and these hooks:
///
///   kTitle                       the first comment line: "SpyreCode job", "TPU program"
///   argSuffix(arg)               the options after a tensor's shape (" row_major")
///   planDirectives(plan)         directive lines after the buffers (TPU: .trap)
///   programHeader(program)       the words after ".program"
#include "support/progformat/asm_source.h"
#include "support/progformat/isa_table.h"
#include "support/progformat/operand.h"
#include "support/progformat/plan.h"
#include "support/scalar_arg.h"

#include <set>
#include <sstream>
#include <string>

namespace chipless::progformat {

/// One operand value as assembly ("r1+@A+64", "in0", "v3", "cw", "1.5"); labels of branch
/// targets are "L<pc>".
template <typename Chip>
std::string formatOperand(const typename Chip::JobBinary& bin, const OperandDecl& decl,
                          const Operand& o) {
  switch (decl.kind) {
  case OperandKind::Reg:
    return Chip::registers().name(o.reg);
  case OperandKind::Port:
  case OperandKind::VReg:
    return Chip::formatValue(decl.kind, o.imm);
  case OperandKind::Label:
    return "L" + std::to_string(o.imm);
  case OperandKind::Float:
    if (o.sym >= 0) return "@" + bin.symbols[o.sym];
    return asmtext::formatFloatBits(o.imm);
  case OperandKind::Enum:
    return o.imm >= 0 && o.imm < static_cast<int64_t>(decl.choices.size()) ? decl.choices[o.imm]
                                                                           : "?";
  case OperandKind::Hidden:
    return "";
  case OperandKind::Expr:
    break;
  }
  return asmtext::formatExpression(o.reg >= 0 ? Chip::registers().name(o.reg) : "",
                                   o.sym >= 0 ? bin.symbols[o.sym] : "", o.imm);
}

/// One op: the mnemonic with its suffix (an optional one only when it is not the chip's
/// default), the positional operands, then the others as name=value unless they hold
/// their default.
template <typename Chip>
std::string formatOp(const typename Chip::JobBinary& bin, const typename Chip::Op& op,
                     const std::optional<ArchDescription>& arch) {
  const auto& info = Chip::table()[op.op];
  std::string s = info.mnemonic;
  if (op.dtype && (info.dtype == DtypeRule::Required ||
                   (info.dtype == DtypeRule::Optional && *op.dtype != Chip::kDefaultDtype)))
    s += std::string(".") + dtypeName(*op.dtype);
  std::string ops;
  int printedPositional = 0;
  for (size_t i = 0; i < info.operands.size(); ++i) {
    const OperandDecl& d = info.operands[i];
    if (d.kind == OperandKind::Hidden) continue;
    const Operand& o = op.operands[i];
    bool positional = printedPositional < info.positional;
    if (positional) ++printedPositional;
    if (!positional && isDefaultOperand(d, o, arch)) continue;
    ops += ops.empty() ? " " : ", ";
    if (!positional) ops += std::string(d.name) + "=";
    ops += formatOperand<Chip>(bin, d, o);
  }
  return s + ops;
}

/// One step: its ops joined by " | ".
template <typename Chip>
std::string formatStep(const typename Chip::JobBinary& bin, const typename Chip::Step& step,
                       const std::optional<ArchDescription>& arch) {
  std::string s;
  for (const auto& op : Chip::ops(step))
    s += (s.empty() ? "" : " | ") + formatOp<Chip>(bin, op, arch);
  return s;
}

/// The whole job as assembly text.
template <typename Chip>
std::string disassemble(const typename Chip::Job& job) {
  std::ostringstream out;
  const auto& plan = job.plan;
  out << "; " << Chip::kTitle << " '" << plan.kernel << "' (disassembled)\n";
  out << ".kernel " << plan.kernel << "\n";
  for (const auto& s : plan.scalars) out << ".scalar " << scalarArgAsm(s) << "\n";
  for (const auto& a : plan.args) {
    const char* dir = a.role == ArgRole::Input    ? ".input"
                      : a.role == ArgRole::Output ? ".output"
                                                  : ".inout";
    out << dir << " " << a.name << " " << dtypeName(a.dtype) << " " << asmtext::formatShape(a.shape)
        << Chip::argSuffix(a) << "\n";
  }
  for (const auto& b : plan.buffers) out << ".buffer " << b.name << " " << b.size << "\n";
  out << Chip::planDirectives(plan);
  for (const auto& p : job.binary.programs) {
    out << "\n.program " << Chip::programHeader(p) << "\n";
    const auto& steps = Chip::steps(p);
    std::set<int64_t> targets;
    for (const auto& st : steps)
      for (const auto& op : Chip::ops(st)) {
        const auto& info = Chip::table()[op.op];
        for (size_t i = 0; i < info.operands.size(); ++i)
          if (info.operands[i].kind == OperandKind::Label) targets.insert(op.operands[i].imm);
      }
    int indent = 1;
    for (size_t pc = 0; pc <= steps.size(); ++pc) {
      if (targets.count(static_cast<int64_t>(pc))) out << "L" << pc << ":\n";
      if (pc == steps.size()) break;
      bool opens = false, closes = false;
      for (const auto& op : Chip::ops(steps[pc])) {
        opens |= op.op == Chip::Opcode::Loop;
        closes |= op.op == Chip::Opcode::EndLoop;
      }
      if (closes) --indent;
      std::string text =
          std::string(2 * indent + 2, ' ') + formatStep<Chip>(job.binary, steps[pc], job.arch);
      if (text.size() < 60) text.resize(60, ' ');
      out << text << " ; pc " << pc << "\n";
      if (opens) ++indent;
    }
    out << ".end\n";
  }
  return out.str();
}

} // namespace chipless::progformat
