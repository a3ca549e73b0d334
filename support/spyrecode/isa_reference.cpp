#include "support/spyrecode/isa_reference.h"

#include "support/dtype.h"
#include "support/isa_doc.h"
#include "support/spyrecode/isa.h"

#include <cstdio>
#include <cstring>
#include <sstream>
#include <vector>

namespace chipless::spyrecode {

namespace {

constexpr uint32_t kAllUnitsMask = (1u << kUnitCount) - 1;

uint32_t unitBit(Unit u) {
  return 1u << static_cast<unsigned>(u);
}

using Group = isadoc::Group<OpcodeInfo>;

const std::vector<Group>& groups() {
  static const std::vector<Group> g = {
      {"Scalar, control and tokens (every engine)",
       "Every engine runs these. Each engine has its own registers r0..r15 (64-bit, zero at "
       "launch) and the read-only registers `core`, `corelet` (0 on per-core engines) and "
       "`ncores`. Tokens are counting semaphores of the core (ids 0..sync.tokens_per_core-1); "
       "a token carries the simulated time from which it may be taken.",
       [](const OpcodeInfo& i) { return i.unitMask == kAllUnitsMask; }},
      {"DMA engines",
       "One `dma_in` engine (device memory to scratchpad) and one `dma_out` engine (scratchpad "
       "to device memory) per core. Addresses, sizes and strides are bytes: whole sticks for "
       "`dma.load` and `dma.store`, any bytes for the byte-granular `dma.loadb` and "
       "`dma.storeb`.",
       [](const OpcodeInfo& i) {
         return (i.unitMask & ~(unitBit(Unit::DmaIn) | unitBit(Unit::DmaOut))) == 0;
       }},
      {"Ring engine",
       "One `ring` engine per core moves scratchpad data to other cores over the ring, "
       "optionally combining it with the data at the destination.",
       [](const OpcodeInfo& i) { return i.unitMask == unitBit(Unit::Ring); }},
      {"Load and store units",
       "One `load` and one `store` unit per corelet stream sticks between the scratchpad and "
       "the compute unit's FIFOs: load pushes into the input FIFOs (in0..), store pops the "
       "output FIFOs (out0..).",
       [](const OpcodeInfo& i) {
         return (i.unitMask & ~(unitBit(Unit::Load) | unitBit(Unit::Store))) == 0;
       }},
      {"Compute unit: SFU",
       "The SFU works on whole sticks: a 128-byte stick holds 64 f16/bf16 or 32 f32/i32 lanes. "
       "A port operand is an input FIFO (in0..), an output FIFO (out0..) or an SFU register "
       "(v0.., sfu.registers of them); `n` counts sticks. A FIFO source pops one stick per "
       "step, a register source gives the same stick every step; a FIFO destination pushes.",
       [](const OpcodeInfo& i) {
         return i.unitMask == unitBit(Unit::Compute) && isadoc::startsWith(i.mnemonic, "sfu.");
       }},
      {"Compute unit: PT array",
       "The PT array (8x8 processing elements per corelet) multiplies tiles streamed through "
       "the FIFOs.",
       [](const OpcodeInfo& i) {
         return i.unitMask == unitBit(Unit::Compute) && isadoc::startsWith(i.mnemonic, "pt.");
       }},
      {"Other", "Opcodes not covered by the groups above.", [](const OpcodeInfo&) { return true; }},
  };
  return g;
}

std::string dtypeList(uint32_t mask) {
  std::string s;
  for (int t = 0; t <= static_cast<int>(DType::I32); ++t)
    if (mask & (1u << t))
      s += (s.empty() ? "" : ", ") + std::string(dtypeName(static_cast<DType>(t)));
  return s;
}

std::string unitList(uint32_t mask) {
  if (mask == kAllUnitsMask) return "every engine";
  std::string s;
  for (int u = 0; u < kUnitCount; ++u)
    if (mask & (1u << u))
      s += (s.empty() ? "" : ", ") + std::string(unitName(static_cast<Unit>(u)));
  return s;
}

std::string headingOf(const OpcodeInfo& info) {
  std::string m = info.mnemonic;
  if (info.dtype == DtypeRule::Required) return m + ".T";
  if (info.dtype == DtypeRule::Optional) return m + "[.T]";
  return m;
}

std::string kindOf(const OperandDecl& d) {
  switch (d.kind) {
  case OperandKind::Reg:
    return "register (r0..r15)";
  case OperandKind::Expr:
    return "expression";
  case OperandKind::Port:
    return "port";
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
    return "hidden (pc, set by the assembler)";
  }
  return "?";
}

std::string defaultOf(const OperandDecl& d) {
  if (d.kind == OperandKind::Hidden) return "—";
  if (!d.optional) return "required";
  switch (d.kind) {
  case OperandKind::Port:
    return "`" + portName(d.defaultValue) + "`";
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
    return "`" + std::to_string(d.defaultValue) + "`";
  }
}

void writeOpcode(std::ostringstream& out, const OpcodeInfo& info) {
  out << "#### `" << headingOf(info) << "`\n\n";
  out << isadoc::escape(info.summary) << "\n\n";
  out << "- Syntax: `" << isadoc::syntaxOf(info, headingOf(info)) << "`\n";
  out << "- Units: " << unitList(info.unitMask) << "\n";
  if (info.dtype == DtypeRule::Required)
    out << "- Element type T: required suffix, one of " << dtypeList(info.dtypeMask) << "\n";
  else if (info.dtype == DtypeRule::Optional)
    out << "- Element type T: optional suffix (f16 when omitted), one of "
        << dtypeList(info.dtypeMask) << "\n";
  else
    out << "- Element type: none (no suffix)\n";
  out << "- Opcode: " << static_cast<unsigned>(info.op) << "\n\n";
  isadoc::writeOperandTable(out, info, kindOf, defaultOf);
}

} // namespace

std::string isaReferenceMarkdown() {
  std::ostringstream out;
  out << "Generated from the opcode table (support/spyrecode/isa.cpp) by `spyre-as "
         "--isa-reference`; do not edit by hand.\n\n";
  out << "Operands may be written positionally in the order of the table, or as name=value in "
         "any order after the positional ones; optional operands may be left out. The syntax "
         "line shows how the disassembler writes them. `#` is the operand's index in the "
         "binary encoding. Operand kinds: a *register* names r0..r15; an *expression* is the "
         "sum of at most one register, at most one @symbol and constants; a *port* is in0.., "
         "out0.., v0.. or none; a *label* is a branch target (a pc in the binary); a *float* "
         "is a number, inf, -inf or nan; *hidden* operands are filled in by the assembler.\n\n";
  return isadoc::writeGroups(out, groups(), allOpcodes(), "instruction", headingOf, writeOpcode);
}

} // namespace chipless::spyrecode
