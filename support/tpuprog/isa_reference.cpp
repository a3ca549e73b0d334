#include "support/tpuprog/isa_reference.h"

#include "support/dtype.h"
#include "support/tpuprog/isa.h"

#include <cstdio>
#include <cstring>
#include <sstream>
#include <vector>

namespace chipless::tpuprog {

namespace {

bool startsWith(const char* s, const char* prefix) {
  return std::strncmp(s, prefix, std::strlen(prefix)) == 0;
}

/// The groups of the reference, in order; an opcode belongs to the first that matches, so a
/// new opcode always appears somewhere.
struct Group {
  const char* title;
  const char* intro;
  bool (*matches)(const OpcodeInfo&);
};

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
         return i.slot == Slot::Scalar &&
                (startsWith(i.mnemonic, "sem.") || i.op == Opcode::Fence || i.op == Opcode::Trap);
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
       [](const OpcodeInfo& i) { return startsWith(i.mnemonic, "dma."); }},
      {"DMA slot: ICI",
       "Transfers between chips over the ICI links (ici.topology). Collectives are issued by "
       "every chip of the system with the same operands; they run on the chip's ICI engine "
       "and move real data step by step around a ring of the chips.",
       [](const OpcodeInfo& i) { return startsWith(i.mnemonic, "ici."); }},
      {"Other", "Opcodes not covered by the groups above.", [](const OpcodeInfo&) { return true; }},
  };
  return g;
}

/// Markdown-escapes '*', '_' and '|' outside `code spans`.
std::string escape(const std::string& s) {
  std::string out;
  bool code = false;
  for (char c : s) {
    if (c == '`') code = !code;
    if (!code && (c == '*' || c == '|' || c == '_')) out += '\\';
    out += c;
  }
  return out;
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

/// The assembly form: the operands the disassembler writes positionally first, the others as
/// name=…, optional ones in brackets.
std::string syntaxOf(const OpcodeInfo& info) {
  std::string s = headingOf(info);
  int positional = 0;
  bool first = true;
  for (const auto& d : info.operands) {
    if (d.kind == OperandKind::Hidden) continue;
    std::string text = positional < info.positional ? d.name : std::string(d.name) + "=…";
    ++positional;
    std::string sep = first ? " " : ", ";
    s += d.optional ? "[" + sep + text + "]" : sep + text;
    first = false;
  }
  return s;
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

/// A summary up to its first ": " or "; " outside parentheses (one line per opcode).
std::string firstClause(const std::string& summary) {
  int depth = 0;
  for (size_t i = 0; i + 1 < summary.size(); ++i) {
    depth += summary[i] == '(' ? 1 : summary[i] == ')' ? -1 : 0;
    if (depth == 0 && summary[i] == ';' && summary[i + 1] == ' ')
      return summary.substr(0, i) + " …";
  }
  return summary;
}

void writeOpcode(std::ostringstream& out, const OpcodeInfo& info) {
  out << "#### `" << headingOf(info) << "`\n\n";
  out << escape(info.summary) << "\n\n";
  out << "- Syntax: `" << syntaxOf(info) << "`\n";
  out << "- Slot: " << slotName(info.slot) << (info.async ? " (asynchronous)" : "") << "\n";
  if (info.dtype == DtypeRule::Required)
    out << "- Element type T: required suffix, one of " << dtypeList(info.dtypeMask) << "\n";
  else
    out << "- Element type: none (no suffix)\n";
  out << "- Opcode: " << static_cast<unsigned>(info.op) << "\n\n";
  if (info.operands.empty()) {
    out << "No operands.\n\n";
    return;
  }
  out << "| # | operand | kind | default |\n|---|---|---|---|\n";
  for (size_t i = 0; i < info.operands.size(); ++i) {
    const OperandDecl& d = info.operands[i];
    out << "| " << i << " | `" << d.name << "` | " << kindOf(d) << " | " << defaultOf(d) << " |\n";
  }
  out << "\n";
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
  std::vector<std::vector<const OpcodeInfo*>> members(groups().size());
  for (const auto& info : allOpcodes())
    for (size_t g = 0; g < groups().size(); ++g)
      if (groups()[g].matches(info)) {
        members[g].push_back(&info);
        break;
      }
  for (size_t g = 0; g < groups().size(); ++g) {
    if (members[g].empty()) continue;
    out << "### " << groups()[g].title << "\n\n" << groups()[g].intro << "\n\n";
    out << "| operation | summary |\n|---|---|\n";
    for (const OpcodeInfo* info : members[g])
      out << "| `" << headingOf(*info) << "` | " << escape(firstClause(info->summary)) << " |\n";
    out << "\n";
    for (const OpcodeInfo* info : members[g]) writeOpcode(out, *info);
  }
  std::string s = out.str();
  while (s.size() > 1 && s[s.size() - 1] == '\n' && s[s.size() - 2] == '\n') s.pop_back();
  return s;
}

} // namespace chipless::tpuprog
