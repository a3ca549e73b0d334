//===- SourceNames.cpp - names read from the source text ------------------===//
//
// Part of chipless. See SourceNames.h.
//
//===----------------------------------------------------------------------===//

#include "SourceNames.h"

#include "mlir/IR/BuiltinAttributes.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <cctype>
#include <fstream>
#include <sstream>

using namespace mlir;

namespace chipless::sched {

std::vector<std::string> SourceNames::linesOf(const std::string& path) const {
  std::string text;
  bool parsed = false;
  if (sources_)
    for (unsigned b = 1; b <= sources_->getNumBuffers() && !parsed; ++b)
      if (sources_->getMemoryBuffer(b)->getBufferIdentifier() == path) {
        text = sources_->getMemoryBuffer(b)->getBuffer().str();
        parsed = true;
      }
  if (!parsed) {
    std::ifstream file(path);
    std::ostringstream read;
    read << file.rdbuf();
    text = read.str();
  }
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

std::optional<std::string> SourceNames::at(Location loc) {
  auto file = dyn_cast<FileLineColLoc>(loc);
  if (!file) {
    if (auto name = dyn_cast<NameLoc>(loc)) return name.getName().str();
    if (auto fused = dyn_cast<FusedLoc>(loc))
      for (Location l : fused.getLocations())
        if (auto n = at(l)) return n;
    return std::nullopt;
  }
  std::string path = file.getFilename().str();
  auto it = lines_.find(path);
  if (it == lines_.end()) it = lines_.emplace(path, linesOf(path)).first;
  unsigned row = file.getLine(), col = file.getColumn();
  if (row == 0 || row > it->second.size()) return std::nullopt;
  const std::string& text = it->second[row - 1];
  size_t p = col > 0 ? col - 1 : 0;
  // An op's location is its name, after `%result =`; an argument's is its own name.
  size_t eq = text.rfind('=', p);
  size_t before = eq == std::string::npos ? std::string::npos : text.rfind('%', eq);
  if (before != std::string::npos && text.find_first_not_of(" \t", eq + 1) == p) {
    p = before;
  } else {
    while (p < text.size() && text[p] != '%') ++p;
  }
  if (p >= text.size()) return std::nullopt;
  size_t q = p + 1;
  while (q < text.size() && (std::isalnum(static_cast<unsigned char>(text[q])) || text[q] == '_' ||
                             text[q] == '$' || text[q] == '.' || text[q] == '-'))
    ++q;
  if (q == p + 1) return std::nullopt;
  return text.substr(p + 1, q - p - 1);
}

std::string sanitizeName(const std::string& name) {
  std::string n = name;
  if (!n.empty() && n[0] == '%') n = n.substr(1);
  std::string out;
  for (char ch : n) out += (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_') ? ch : '_';
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) out = "t" + out;
  return out;
}

std::string argumentName(const std::string& ssaName) {
  std::string n = ssaName;
  if (!n.empty() && n[0] == '%') n = n.substr(1);
  for (const char* suffix : {"_start_address", "_address", "_addr", "_ptr", "_base"}) {
    std::string s = suffix;
    if (n.size() > s.size() && n.compare(n.size() - s.size(), s.size(), s) == 0) {
      n = n.substr(0, n.size() - s.size());
      break;
    }
  }
  return sanitizeName(n);
}

} // namespace chipless::sched
