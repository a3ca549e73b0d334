#pragma once
/// The ISA reference of both instruction sets (docs/spyrecode.md via `spyre-as
/// --isa-reference`, docs/tpu-program.md via `tpu-as --isa-reference`), written once and
/// generated from each chip's opcode table so the documentation cannot drift from the
/// assembler, the binary reader and the simulator: Markdown escaping, one-line summaries,
/// the grouping of the table into sections, and per opcode its heading, summary, syntax
/// line, where it runs, element types, opcode number and operand table. What differs per
/// chip comes from `Chip` (isa_table.h) and these hooks:
///
///   registers(), kOpNoun, kDefaultDtype, formatValue   from its traits, and a Words
///   struct: what the chip's reference says in its own words (where its opcodes run, how it
///   names its register and its own operand kind)
#include "support/dtype.h"
#include "support/progformat/operand.h"
#include "support/progformat/registers.h"

#include <cstdio>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

namespace chipless::progformat::isadoc {

/// Whether C string `s` starts with `prefix`.
inline bool startsWith(const char* s, const char* prefix) {
  return std::strncmp(s, prefix, std::strlen(prefix)) == 0;
}

/// Markdown-escapes '*', '_' and '|' outside `code spans`.
inline std::string escape(const std::string& s) {
  std::string out;
  bool code = false;
  for (char c : s) {
    if (c == '`') code = !code;
    if (!code && (c == '*' || c == '|' || c == '_')) out += '\\';
    out += c;
  }
  return out;
}

/// A summary up to its first "; " outside parentheses (the index shows one line per opcode).
inline std::string firstClause(const std::string& summary) {
  int depth = 0;
  for (size_t i = 0; i + 1 < summary.size(); ++i) {
    depth += summary[i] == '(' ? 1 : summary[i] == ')' ? -1 : 0;
    if (depth == 0 && summary[i] == ';' && summary[i + 1] == ' ')
      return summary.substr(0, i) + " …";
  }
  return summary;
}

/// The assembly form after `heading`: the operands the disassembler writes positionally
/// first, the others as name=…, optional ones in brackets; hidden operands left out.
template <typename Info>
std::string syntaxOf(const Info& info, const std::string& heading) {
  using Kind = decltype(info.operands[0].kind);
  std::string s = heading;
  int positional = 0;
  bool first = true;
  for (const auto& d : info.operands) {
    if (d.kind == Kind::Hidden) continue;
    std::string text = positional < info.positional ? d.name : std::string(d.name) + "=…";
    ++positional;
    std::string sep = first ? " " : ", ";
    s += d.optional ? "[" + sep + text + "]" : sep + text;
    first = false;
  }
  return s;
}

/// The operand table of one opcode ("No operands." when it has none).
template <typename Info, typename KindOf, typename DefaultOf>
void writeOperandTable(std::ostringstream& out, const Info& info, KindOf kindOf,
                       DefaultOf defaultOf) {
  if (info.operands.empty()) {
    out << "No operands.\n\n";
    return;
  }
  out << "| # | operand | kind | default |\n|---|---|---|---|\n";
  for (size_t i = 0; i < info.operands.size(); ++i) {
    const auto& d = info.operands[i];
    out << "| " << i << " | `" << d.name << "` | " << kindOf(d) << " | " << defaultOf(d) << " |\n";
  }
  out << "\n";
}

/// A section of the reference: the opcodes `matches` selects (the first matching group
/// takes an opcode, so a new opcode always appears somewhere).
template <typename Info>
struct Group {
  const char* title;
  const char* intro;
  bool (*matches)(const Info&);
};

/// A reference's sections, in order.
template <typename Info>
using Groups = std::vector<Group<Info>>;

/// The sections: for each non-empty group its title, intro, an index table headed
/// `column` | summary, then each opcode written by `writeOpcode`. Trailing blank lines are
/// trimmed to one newline.
template <typename Info, typename Heading, typename WriteOpcode>
std::string writeGroups(std::ostringstream& out, const std::vector<Group<Info>>& groups,
                        const std::vector<Info>& opcodes, const char* column, Heading heading,
                        WriteOpcode writeOpcode) {
  std::vector<std::vector<const Info*>> members(groups.size());
  for (const auto& info : opcodes)
    for (size_t g = 0; g < groups.size(); ++g)
      if (groups[g].matches(info)) {
        members[g].push_back(&info);
        break;
      }
  for (size_t g = 0; g < groups.size(); ++g) {
    if (members[g].empty()) continue;
    out << "### " << groups[g].title << "\n\n" << groups[g].intro << "\n\n";
    out << "| " << column << " | summary |\n|---|---|\n";
    for (const Info* info : members[g])
      out << "| `" << heading(*info) << "` | " << escape(firstClause(info->summary)) << " |\n";
    out << "\n";
    for (const Info* info : members[g]) writeOpcode(out, *info);
  }
  std::string s = out.str();
  while (s.size() > 1 && s[s.size() - 1] == '\n' && s[s.size() - 2] == '\n') s.pop_back();
  return s;
}

/// "f16, bf16, f32": the element types of `mask`, for the reference.
inline std::string dtypeList(uint32_t mask) {
  std::string s;
  for (int t = 0; t <= static_cast<int>(DType::I8); ++t)
    if (mask & (1u << t))
      s += (s.empty() ? "" : ", ") + std::string(dtypeName(static_cast<DType>(t)));
  return s;
}

/// The heading of an opcode: the mnemonic, with ".T" for a required suffix and "[.T]" for
/// an optional one.
template <typename Info>
std::string headingOf(const Info& info) {
  std::string m = info.mnemonic;
  if (info.dtype == DtypeRule::Required) return m + ".T";
  if (info.dtype == DtypeRule::Optional) return m + "[.T]";
  return m;
}

/// What a chip's reference says in its own words.
template <typename Info>
struct Words {
  const char* source;      ///< the opcode table's file ("support/spyrecode/isa.cpp")
  const char* tool;        ///< the assembler that prints the reference ("spyre-as")
  const char* pc;          ///< what a label holds in the binary ("pc", "bundle index")
  const char* regKind;     ///< the kind column of a Reg operand ("register (r0..r15)")
  const char* ownKind;     ///< the kind column of the chip's own kind ("port")
  const char* ownKindText; ///< how that kind is written ("a *port* is in0.., ... or none")
  bool namesReadOnly;      ///< whether the text lists the read-only registers
  std::string (*issueLine)(const Info&); ///< where an opcode runs ("- Units: every engine")
};

/// The kind column of an operand.
template <typename Info>
std::string kindOf(const Words<Info>& words, const OperandDecl& d) {
  switch (d.kind) {
  case OperandKind::Reg:
    return words.regKind;
  case OperandKind::Port:
  case OperandKind::VReg:
    return words.ownKind;
  case OperandKind::Expr:
    return "expression";
  case OperandKind::Label:
    return "label";
  case OperandKind::Float:
    return "float (a number, or `@name` of a real scalar)";
  case OperandKind::Enum: {
    std::string s = "one of";
    for (size_t i = 0; i < d.choices.size(); ++i)
      s += std::string(i ? ", " : " ") + "`" + d.choices[i] + "`";
    return s;
  }
  case OperandKind::Hidden:
    break;
  }
  return std::string("hidden (") + words.pc + ", set by the assembler)";
}

/// The default column of an operand: "required", its default value, or "packed (`-1`)" for
/// a stride that defaults to packed rows.
template <typename Chip>
std::string defaultOf(const OperandDecl& d) {
  if (d.kind == OperandKind::Hidden) return "—";
  if (!d.optional) return "required";
  if (d.defaultParam) return std::string("`") + d.defaultParam + "` of the architecture";
  switch (d.kind) {
  case OperandKind::Port:
  case OperandKind::VReg:
    return "`" + Chip::formatValue(d.kind, d.defaultValue) + "`";
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

/// One opcode's section.
template <typename Chip>
void writeOpcode(std::ostringstream& out, const Words<typename Chip::OpcodeInfo>& words,
                 const typename Chip::OpcodeInfo& info) {
  out << "#### `" << headingOf(info) << "`\n\n";
  out << escape(info.summary) << "\n\n";
  out << "- Syntax: `" << syntaxOf(info, headingOf(info)) << "`\n";
  out << words.issueLine(info) << "\n";
  if (info.dtype == DtypeRule::Required)
    out << "- Element type T: required suffix, one of " << dtypeList(info.dtypeMask) << "\n";
  else if (info.dtype == DtypeRule::Optional)
    out << "- Element type T: optional suffix (" << dtypeName(Chip::kDefaultDtype)
        << " when omitted), one of " << dtypeList(info.dtypeMask) << "\n";
  else
    out << "- Element type: none (no suffix)\n";
  out << "- Opcode: " << static_cast<unsigned>(info.op) << "\n\n";
  writeOperandTable(
      out, info, [&](const OperandDecl& d) { return kindOf(words, d); }, defaultOf<Chip>);
}

/// The whole reference: a note that it is generated from the table by the tool, how
/// operands are written and what each kind of operand is (in `words` and the chip's
/// register names), then the sections of `groups`, whose index tables head their first
/// column with the chip's noun for an op.
template <typename Chip>
std::string writeReference(const Words<typename Chip::OpcodeInfo>& words,
                           const Groups<typename Chip::OpcodeInfo>& groups) {
  const RegisterNames& regs = Chip::registers();
  std::string readOnly;
  for (const char* r : regs.special)
    readOnly += std::string(readOnly.empty() ? "" : ", ") + "`" + r + "`";
  std::ostringstream out;
  out << "Generated from the opcode table (" << words.source << ") by `" << words.tool
      << " --isa-reference`; do not edit by hand.\n\n";
  out << "Operands may be written positionally in the order of the table, or as name=value in "
         "any order after the positional ones; optional operands may be left out. The syntax "
         "line shows how the disassembler writes them. `#` is the operand's index in the "
         "binary encoding. Operand kinds: a *"
      << regs.noun << "* names " << regs.letter << "0.." << regs.letter << regs.general - 1
      << "; an *expression* is the sum of at most one " << regs.noun
      << (words.namesReadOnly ? " (or " + readOnly + ")" : "")
      << ", at most one @symbol and constants; " << words.ownKindText
      << "; a *label* is a branch target (a " << words.pc
      << " in the binary); a *float* is a number, inf, -inf or nan; *hidden* operands are "
         "filled in by the assembler.\n\n";
  return writeGroups(out, groups, Chip::table().all(), Chip::kOpNoun,
                     headingOf<typename Chip::OpcodeInfo>,
                     [&](std::ostringstream& o, const typename Chip::OpcodeInfo& info) {
                       writeOpcode<Chip>(o, words, info);
                     });
}

} // namespace chipless::progformat::isadoc
