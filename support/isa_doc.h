#pragma once
/// What the generated ISA references of both instruction sets share (docs/spyrecode.md via
/// `spyre-as --isa-reference`, docs/tpu-program.md via `tpu-as --isa-reference`): Markdown
/// escaping, one-line summaries, the syntax line of an opcode, its operand table, and the
/// grouping of the opcode table into sections. Templates over each ISA's OpcodeInfo.
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

namespace chipless::isadoc {

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

} // namespace chipless::isadoc
