#include "support/progformat/registers.h"

namespace chipless::progformat {

bool parseIndexed(std::string_view s, std::string_view prefix, int64_t limit, int64_t& out) {
  if (s.size() <= prefix.size() || s.substr(0, prefix.size()) != prefix) return false;
  std::string_view digits = s.substr(prefix.size());
  if (digits.size() > 1 && digits[0] == '0') return false;
  int64_t v = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
    if (v >= limit) return false;
  }
  out = v;
  return true;
}

std::string RegisterNames::name(int reg) const {
  if (reg >= 0 && reg < general) return letter + std::to_string(reg);
  if (reg >= general && reg < count()) return special[static_cast<size_t>(reg - general)];
  return std::string(1, letter) + "?";
}

bool RegisterNames::parse(std::string_view s, int& out) const {
  for (size_t i = 0; i < special.size(); ++i)
    if (s == special[i]) {
      out = general + static_cast<int>(i);
      return true;
    }
  int64_t v = 0;
  if (!parseIndexed(s, std::string_view(&letter, 1), general, v)) return false;
  out = static_cast<int>(v);
  return true;
}

std::string RegisterNames::generalText() const {
  return std::string("a ") + noun + " " + letter + "0.." + letter + std::to_string(general - 1);
}

} // namespace chipless::progformat
