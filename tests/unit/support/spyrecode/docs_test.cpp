// docs/spyrecode.md must not drift from the code: its ISA reference is the generated one,
// and it documents every directive, plan command and opcode.
#include "support/atomic_file.h"
#include "support/spyrecode/isa.h"
#include "support/spyrecode/isa_reference.h"
#include "support/spyrecode/plan.h"
#include "tests/unit/util/generated_doc.h"

#include <gtest/gtest.h>
#include <sstream>
#include <string>

namespace chipless::spyrecode {
namespace {

const std::string kDoc = std::string(CHIPLESS_SOURCE_DIR) + "/docs/spyrecode.md";

TEST(Docs, IsaReferenceIsTheGeneratedOne) {
  ::chipless::testing::expectGeneratedIsaReference(kDoc, isaReferenceMarkdown(),
                                                   "spyre-as --isa-reference");
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
