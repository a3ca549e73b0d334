#include "support/progformat/asm_source.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>

namespace chipless::asmtext {

namespace {

bool isIdentStart(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool isIdentChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
}

} // namespace

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

bool isIdentifier(const std::string& s) {
  if (s.empty() || !isIdentStart(s[0])) return false;
  for (char c : s)
    if (!isIdentChar(c)) return false;
  return true;
}

bool isName(const std::string& s) {
  return isIdentifier(s) && s.find('.') == std::string::npos;
}

std::vector<std::string> splitTop(const std::string& s, char sep) {
  std::vector<std::string> out;
  int depth = 0;
  std::string cur;
  for (char c : s) {
    if (c == '[') ++depth;
    if (c == ']') --depth;
    if (c == sep && depth == 0) {
      out.push_back(trim(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!trim(cur).empty() || !out.empty()) out.push_back(trim(cur));
  return out;
}

bool isMessageText(const std::string& s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if (c < 0x20 || c == 0x7F) return false;
      ++i;
      continue;
    }
    int length = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 0;
    if (length == 0 || c > 0xF4 || c == 0xC0 || c == 0xC1 || i + length > s.size()) return false;
    uint32_t code = c & (0x7F >> length);
    for (int k = 1; k < length; ++k) {
      const auto next = static_cast<unsigned char>(s[i + k]);
      if ((next & 0xC0) != 0x80) return false;
      code = (code << 6) | (next & 0x3F);
    }
    const uint32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
    if (code < least[length] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return false;
    i += length;
  }
  return true;
}

std::string stripComment(const std::string& raw) {
  for (size_t i = 0; i < raw.size(); ++i)
    if (raw[i] == ';' || raw[i] == '#' ||
        (raw[i] == '/' && i + 1 < raw.size() && raw[i + 1] == '/'))
      return trim(raw.substr(0, i));
  return trim(raw);
}

std::string formatFloatBits(int64_t bits) {
  double v;
  std::memcpy(&v, &bits, sizeof v);
  if (std::isnan(v)) return "nan";
  if (v == INFINITY) return "inf";
  if (v == -INFINITY) return "-inf";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string formatExpression(const std::string& reg, const std::string& symbol, int64_t imm) {
  std::string s = reg;
  if (!symbol.empty()) s += (s.empty() ? "@" : "+@") + symbol;
  if (imm != 0 || s.empty()) {
    if (!s.empty())
      s += imm < 0 ? "-" : "+";
    else if (imm < 0)
      s += "-";
    uint64_t mag = imm < 0 ? 0 - static_cast<uint64_t>(imm) : static_cast<uint64_t>(imm);
    // -2^63 has no positive counterpart for the assembler to negate: write it as a sum.
    s += mag == (uint64_t{1} << 63) ? "9223372036854775807-1" : std::to_string(mag);
  }
  return s;
}

void AsmSource::fail(const std::string& msg, int line) const {
  throw Error(located(path_, line < 0 ? line_ : line, msg));
}

int64_t AsmSource::constantExpr(const std::string& text, const std::string& what) const {
  int64_t value = 1;
  std::string s = trim(text);
  if (s.empty()) fail(what + ": expected a number");
  bool negate = false;
  if (s[0] == '-') {
    negate = true;
    s = s.substr(1);
  }
  size_t start = 0;
  while (true) {
    size_t star = s.find('*', start);
    std::string f =
        trim(s.substr(start, star == std::string::npos ? std::string::npos : star - start));
    int64_t v;
    auto it = equ_.find(f);
    if (it != equ_.end()) {
      v = it->second;
    } else {
      size_t pos = 0;
      try {
        v = std::stoll(f, &pos, 0);
      } catch (...) {
        pos = 0;
      }
      if (f.empty() || pos != f.size())
        fail(what + ": expected an integer, register, @symbol or .equ name, got '" + f + "'");
    }
    value *= v;
    if (star == std::string::npos) break;
    start = star + 1;
  }
  return negate ? -value : value;
}

void AsmSource::defineEqu(const std::string& rest) {
  std::istringstream in(rest);
  std::string name;
  in >> name;
  if (!isName(name)) fail(".equ needs a name and a value");
  std::string value = trim(rest.substr(name.size()));
  if (equ_.count(name)) fail(".equ '" + name + "' defined twice");
  equ_[name] = constantExpr(value, ".equ value");
}

ScalarArg AsmSource::scalarDirective(const std::string& rest) {
  std::istringstream in(rest);
  ScalarArg s;
  in >> s.name;
  if (!isName(s.name)) fail(".scalar needs a name");
  std::string item;
  std::set<std::string> seen;
  while (in >> item) {
    size_t eq = item.find('=');
    std::string key = item.substr(0, eq);
    if (eq == std::string::npos ||
        (key != "multiple_of" && key != "min" && key != "max" && key != "type"))
      fail(".scalar " + s.name + ": expected multiple_of=, min=, max= or type=, got '" + item +
           "'");
    if (!seen.insert(key).second) fail(".scalar " + s.name + ": " + key + " given twice");
    if (key == "type") {
      auto t = parseDType(item.substr(eq + 1));
      if (!t || !isFloatType(*t))
        fail(".scalar " + s.name + ": type= takes f16, bf16 or f32 (a real scalar), got '" +
             item.substr(eq + 1) + "'");
      s.real = t;
      continue;
    }
    int64_t v = constantExpr(item.substr(eq + 1), ".scalar " + key);
    if (key == "multiple_of")
      s.multipleOf = v;
    else if (key == "min")
      s.min = v;
    else
      s.max = v;
  }
  if (std::string why = scalarConstraintError(s); !why.empty())
    fail(".scalar " + s.name + ": " + why);
  declare(s.name);
  return s;
}

void AsmSource::declare(const std::string& name) {
  if (!declared_.insert(name).second) fail("name '" + name + "' is declared twice");
}

std::vector<std::pair<int, std::string>> AsmSource::terms(const std::string& text,
                                                          const std::string& what) const {
  std::string s;
  for (char c : text)
    if (c != ' ' && c != '\t') s += c;
  if (s.empty()) fail(what + ": empty expression");
  std::vector<std::pair<int, std::string>> out;
  size_t i = 0;
  bool first = true;
  while (i < s.size()) {
    int sign = 1;
    if (s[i] == '+' || s[i] == '-') {
      sign = s[i] == '-' ? -1 : 1;
      ++i;
    } else if (!first) {
      fail(what + ": expected + or - in '" + text + "'");
    }
    first = false;
    size_t j = i;
    int depth = 0;
    while (j < s.size() && (depth > 0 || (s[j] != '+' && s[j] != '-'))) {
      if (s[j] == '(') ++depth;
      if (s[j] == ')') --depth;
      ++j;
    }
    std::string term = s.substr(i, j - i);
    if (term.empty()) fail(what + ": missing term in '" + text + "'");
    out.push_back({sign, term});
    i = j;
  }
  return out;
}

} // namespace chipless::asmtext
