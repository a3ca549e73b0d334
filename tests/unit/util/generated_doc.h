#pragma once
/// Checks that the part of a document between two markers is the text a tool generates, so
/// that a reference in docs/ (the ISA tables of docs/spyrecode.md and docs/tpu-program.md)
/// cannot drift from the code it describes.
#include "support/atomic_file.h"

#include <gtest/gtest.h>
#include <sstream>
#include <string>

namespace chipless::testing {

/// The first line (1-based) where the two texts differ, with both versions of it.
inline std::string firstDifference(const std::string& a, const std::string& b) {
  std::istringstream x(a), y(b);
  std::string la, lb;
  for (int line = 1;; ++line) {
    bool ga = static_cast<bool>(std::getline(x, la)), gb = static_cast<bool>(std::getline(y, lb));
    if (!ga && !gb) return "texts differ only in the final newline";
    if (!ga || !gb || la != lb)
      return "line " + std::to_string(line) +
             " of the reference:\n  docs:      " + (ga ? la : "<end>") +
             "\n  generated: " + (gb ? lb : "<end>");
  }
}

/// Expects `doc` to hold `<!-- isa-reference:begin -->` once, then exactly `generated`, then
/// `<!-- isa-reference:end -->`; the failure says how to regenerate it (`regenerate`, e.g.
/// "spyre-as --isa-reference") and where the first difference is.
inline void expectGeneratedIsaReference(const std::string& doc, const std::string& generated,
                                        const std::string& regenerate) {
  const std::string kBegin = "<!-- isa-reference:begin -->\n";
  const std::string kEnd = "<!-- isa-reference:end -->";
  std::string text = readFile(doc);
  size_t b = text.find(kBegin);
  ASSERT_NE(b, std::string::npos) << doc << " has no '" << kBegin << "' marker";
  size_t e = text.find(kEnd, b);
  ASSERT_NE(e, std::string::npos) << doc << " has no '" << kEnd << "' marker";
  EXPECT_EQ(text.find(kBegin, b + 1), std::string::npos) << "two begin markers";
  std::string inDoc = text.substr(b + kBegin.size(), e - b - kBegin.size());
  EXPECT_TRUE(inDoc == generated) << doc << ": the ISA reference is out of date; regenerate with `"
                                  << regenerate
                                  << "` and paste it between the markers. First difference at "
                                  << firstDifference(inDoc, generated);
}

} // namespace chipless::testing
