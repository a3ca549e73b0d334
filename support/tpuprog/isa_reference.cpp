#include "support/tpuprog/isa_reference.h"

#include "support/dtype.h"
#include "support/isa_doc.h"
#include "support/tpuprog/isa.h"

#include <cstdio>
#include <cstring>
#include <sstream>
#include <vector>

namespace chipless::tpuprog {

namespace {

using Group = isadoc::Group<OpcodeInfo>;

const std::vector<Group>& groups() {
  static const std::vector<Group> g = {
      {"Scalar slot: control",
       "Control operations take effect after the other operations of their bundle. A bundle "
       "holds at most one control operation. Loops nest up to 16 deep at run time.",
       [](const OpcodeInfo& i) { return isControl(i.op) || i.op == Opcode::Nop; }},
      {"Scalar slot: synchronisation and traps",
       "Semaphores are counting semaphores of the TensorCore (0..scalar.semaphores-1) whose "
       "tokens carry the simulated time from which they may be taken. Asynchronous operations "
       "(MXU folds, DMAs, ICI transfers and collectives) add a token to their `sem` operand "
       "when they complete; -1 means none.",
       [](const OpcodeInfo& i) {
         return i.slot == Slot::Scalar && (isadoc::startsWith(i.mnemonic, "sem.") ||
                                           i.op == Opcode::Fence || i.op == Opcode::Trap);
       }},
      {"Scalar slot: ALU and SMEM",
       "Scalar registers s0..s(scalar.registers-1) are 64-bit and zero at launch; `core`, "
       "`ncores`, `chip`, `nchips` and `nmxu` are read-only. Operations of one bundle run in "
       "the order written, so a later one sees an earlier one's result.",
       [](const OpcodeInfo& i) { return i.slot == Slot::Scalar; }},
      {"Vector load and store slots",
       "Vector registers v0..v(vpu.registers-1) hold vpu.sublanes x vpu.lanes 32-bit values "
       "(f32 or i32). `n` counts consecutive registers. Addresses and strides are VMEM bytes; "
       "a row is `lanes` elements of the suffix type.",
       [](const OpcodeInfo& i) { return i.slot == Slot::VLoad || i.slot == Slot::VStore; }},
      {"Vector ALU slot",
       "Element-wise operations on n consecutive registers (vd+i from va+i, vb+i), in f32 or "
       "i32 as the suffix says. Transcendental operations run on the slower pipeline "
       "(vpu.transcendental_latency_cycles, one register every "
       "vpu.transcendental_interval_cycles).",
       [](const OpcodeInfo& i) { return i.slot == Slot::VAlu; }},
      {"MXU slot",
       "Each TensorCore has mxu.count weight-stationary systolic arrays of mxu.rows x "
       "mxu.cols. One operation is one fold.",
       [](const OpcodeInfo& i) { return i.slot == Slot::Mxu; }},
      {"DMA slot: local DMA",
       "DMA engines (dma.engines per TensorCore) copy between HBM and VMEM or SMEM. "
       "Addresses, run sizes and strides are bytes, multiples of dma.alignment_bytes.",
       [](const OpcodeInfo& i) { return isadoc::startsWith(i.mnemonic, "dma."); }},
      {"DMA slot: ICI",
       "Transfers between chips over the ICI links (ici.topology). Collectives are issued by "
       "every chip of the system with the same operands; they run on the chip's ICI engine "
       "and move real data step by step around a ring of the chips.",
       [](const OpcodeInfo& i) { return isadoc::startsWith(i.mnemonic, "ici."); }},
      {"Other", "Opcodes not covered by the groups above.", [](const OpcodeInfo&) { return true; }},
  };
  return g;
}

std::string dtypeList(uint32_t mask) {
  std::string s;
  for (int t = 0; t <= static_cast<int>(DType::I8); ++t)
    if (mask & (1u << t))
      s += (s.empty() ? "" : ", ") + std::string(dtypeName(static_cast<DType>(t)));
  return s;
}

std::string headingOf(const OpcodeInfo& info) {
  std::string m = info.mnemonic;
  return info.dtype == DtypeRule::Required ? m + ".T" : m;
}

std::string kindOf(const OperandDecl& d) {
  switch (d.kind) {
  case OperandKind::SReg:
    return "scalar register";
  case OperandKind::Expr:
    return "expression";
  case OperandKind::VReg:
    return "vector register";
  case OperandKind::Label:
    return "label";
  case OperandKind::Float:
    return "float";
  case OperandKind::Enum: {
    std::string s = "one of";
    for (size_t i = 0; i < d.choices.size(); ++i)
      s += std::string(i ? ", " : " ") + "`" + d.choices[i] + "`";
    return s;
  }
  case OperandKind::Hidden:
    return "hidden (bundle index, set by the assembler)";
  }
  return "?";
}

std::string defaultOf(const OperandDecl& d) {
  if (d.kind == OperandKind::Hidden) return "—";
  if (!d.optional) return "required";
  switch (d.kind) {
  case OperandKind::Enum:
    return d.defaultValue >= 0 && d.defaultValue < static_cast<int64_t>(d.choices.size())
               ? "`" + d.choices[static_cast<size_t>(d.defaultValue)] + "`"
               : "?";
  case OperandKind::Float: {
    double v;
    std::memcpy(&v, &d.defaultValue, sizeof v);
    char buf[40];
    std::snprintf(buf, sizeof buf, "%g", v);
    return std::string("`") + buf + "`";
  }
  default:
    return d.defaultValue == -1 && std::strstr(d.name, "stride")
               ? "packed (`-1`)"
               : "`" + std::to_string(d.defaultValue) + "`";
  }
}

void writeOpcode(std::ostringstream& out, const OpcodeInfo& info) {
  out << "#### `" << headingOf(info) << "`\n\n";
  out << isadoc::escape(info.summary) << "\n\n";
  out << "- Syntax: `" << isadoc::syntaxOf(info, headingOf(info)) << "`\n";
  out << "- Slot: " << slotName(info.slot) << (info.async ? " (asynchronous)" : "") << "\n";
  if (info.dtype == DtypeRule::Required)
    out << "- Element type T: required suffix, one of " << dtypeList(info.dtypeMask) << "\n";
  else
    out << "- Element type: none (no suffix)\n";
  out << "- Opcode: " << static_cast<unsigned>(info.op) << "\n\n";
  isadoc::writeOperandTable(out, info, kindOf, defaultOf);
}

} // namespace

std::string isaReferenceMarkdown() {
  std::ostringstream out;
  out << "Generated from the opcode table (support/tpuprog/isa.cpp) by `tpu-as "
         "--isa-reference`; do not edit by hand.\n\n";
  out << "Operands may be written positionally in the order of the table, or as name=value in "
         "any order after the positional ones; optional operands may be left out. The syntax "
         "line shows how the disassembler writes them. `#` is the operand's index in the "
         "binary encoding. Operand kinds: a *scalar register* names s0..s63; an *expression* "
         "is the sum of at most one scalar register (or `core`, `ncores`, `chip`, `nchips`, "
         "`nmxu`), at most one @symbol and constants; a *vector register* is v0..v255; a "
         "*label* is a branch target (a bundle index in the binary); a *float* is a number, "
         "inf, -inf or nan; *hidden* operands are filled in by the assembler.\n\n";
  return isadoc::writeGroups(out, groups(), allOpcodes(), "operation", headingOf, writeOpcode);
}

} // namespace chipless::tpuprog
