#include "support/progformat/symbols.h"

namespace chipless::progformat {

bool parseDimSuffix(const std::string& s, std::string_view letters, char& letter, int& index) {
  if (s.size() < 2 || s.size() > 4 || letters.find(s[0]) == std::string_view::npos ||
      s.find_first_not_of("0123456789", 1) != std::string::npos)
    return false;
  letter = s[0];
  index = std::stoi(s.substr(1));
  return true;
}

std::string dimSymbolsText(const std::string& base, size_t rank, std::string_view letters) {
  std::string last = std::to_string(rank - 1);
  std::string s = "expected " + base + ".d0 .. " + base + ".d" + last + " (dimensions)";
  if (letters.find('p') != std::string_view::npos)
    s += " or " + base + ".p0 .. " + base + ".p" + last + " (padded dimensions)";
  return s;
}

} // namespace chipless::progformat
