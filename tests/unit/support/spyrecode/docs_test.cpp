// docs/spyrecode.md must not drift from the code: its ISA reference is the generated one,
// and it documents every directive, plan command and opcode.
#include "support/atomic_file.h"
#include "support/spyrecode/isa.h"
#include "support/spyrecode/isa_reference.h"
#include "support/spyrecode/plan.h"

#include <gtest/gtest.h>
#include <sstream>
#include <string>

namespace chipless::spyrecode {
namespace {

const std::string kDoc = std::string(CHIPLESS_SOURCE_DIR) + "/docs/spyrecode.md";
const std::string kBegin = "<!-- isa-reference:begin -->\n";
const std::string kEnd = "<!-- isa-reference:end -->";

/// The first line (1-based) where the two texts differ, with both versions of it.
std::string firstDifference(const std::string& a, const std::string& b) {
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

TEST(Docs, IsaReferenceIsTheGeneratedOne) {
  std::string text = readFile(kDoc);
  size_t b = text.find(kBegin);
  ASSERT_NE(b, std::string::npos) << kDoc << " has no '" << kBegin << "' marker";
  size_t e = text.find(kEnd, b);
  ASSERT_NE(e, std::string::npos) << kDoc << " has no '" << kEnd << "' marker";
  EXPECT_EQ(text.find(kBegin, b + 1), std::string::npos) << "two begin markers";
  std::string inDoc = text.substr(b + kBegin.size(), e - b - kBegin.size());
  std::string generated = isaReferenceMarkdown();
  EXPECT_TRUE(inDoc == generated)
      << kDoc << ": the ISA reference is out of date; regenerate with `spyre-as "
      << "--isa-reference` and paste it between the markers. First difference at "
      << firstDifference(inDoc, generated);
}

TEST(Docs, ReferenceCoversEveryOpcodeOnce) {
  std::string ref = isaReferenceMarkdown();
  for (const auto& info : allOpcodes()) {
    std::string suffix = info.dtype == DtypeRule::Required   ? ".T"
                         : info.dtype == DtypeRule::Optional ? "[.T]"
                                                             : "";
    std::string heading = "#### `" + std::string(info.mnemonic) + suffix + "`\n";
    size_t at = ref.find(heading);
    EXPECT_NE(at, std::string::npos) << heading;
    EXPECT_EQ(ref.find(heading, at + 1), std::string::npos) << heading << " appears twice";
    std::string opcode = "- Opcode: " + std::to_string(static_cast<int>(info.op)) + "\n";
    EXPECT_NE(ref.find(opcode, at), std::string::npos) << heading << " without " << opcode;
  }
  EXPECT_EQ(ref.find("### Other"), std::string::npos)
      << "an opcode fits none of the engine groups of support/spyrecode/isa_reference.cpp";
  EXPECT_EQ(ref.back(), '\n');
}

TEST(Docs, DocumentsEveryDirectiveAndCommand) {
  std::string text = readFile(kDoc);
  for (const char* word :
       {".kernel", ".input", ".output", ".inout", ".scalar", ".buffer", ".equ", ".program", ".end",
        "0x1C00000000", "(4, 1024, 64)", "@name", "ARG.dK", "deadlock"})
    EXPECT_NE(text.find(word), std::string::npos) << word;
  for (auto k : {PlanCommand::Kind::Allocate, PlanCommand::Kind::InitTransfer,
                 PlanCommand::Kind::DataTransfer, PlanCommand::Kind::ComputeOnDevice,
                 PlanCommand::Kind::ComputeOnHost})
    EXPECT_NE(text.find(std::string("`") + commandName(k) + "`"), std::string::npos)
        << commandName(k);
  for (int u = 0; u < kUnitCount; ++u)
    EXPECT_NE(text.find(std::string("`") + unitName(static_cast<Unit>(u)) + "`"), std::string::npos)
        << unitName(static_cast<Unit>(u));
}

} // namespace
} // namespace chipless::spyrecode
