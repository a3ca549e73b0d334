/// docs/tpu-program.md must not drift from the code: its ISA reference is the generated one,
/// it documents every directive, plan command and opcode, and its worked example runs.
#include "support/atomic_file.h"
#include "support/tpuprog/isa.h"
#include "support/tpuprog/isa_reference.h"
#include "support/tpuprog/plan.h"
#include "tests/unit/util/tpu_test_util.h"

#include <gtest/gtest.h>
#include <sstream>

namespace chipless::tpuprog {
namespace {

const std::string kDoc = std::string(CHIPLESS_SOURCE_DIR) + "/docs/tpu-program.md";
const std::string kBegin = "<!-- isa-reference:begin -->\n";
const std::string kEnd = "<!-- isa-reference:end -->";

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

TEST(TpuDocs, IsaReferenceIsTheGeneratedOne) {
  std::string text = readFile(kDoc);
  size_t b = text.find(kBegin);
  ASSERT_NE(b, std::string::npos) << kDoc << " has no '" << kBegin << "' marker";
  size_t e = text.find(kEnd, b);
  ASSERT_NE(e, std::string::npos) << kDoc << " has no '" << kEnd << "' marker";
  std::string inDoc = text.substr(b + kBegin.size(), e - b - kBegin.size());
  std::string generated = isaReferenceMarkdown();
  EXPECT_TRUE(inDoc == generated)
      << kDoc << ": the ISA reference is out of date; regenerate with `tpu-as --isa-reference` "
      << "and paste it between the markers. First difference at "
      << firstDifference(inDoc, generated);
}

TEST(TpuDocs, ReferenceCoversEveryOpcodeOnce) {
  std::string ref = isaReferenceMarkdown();
  for (const auto& info : allOpcodes()) {
    std::string heading = "#### `" + std::string(info.mnemonic) +
                          (info.dtype == DtypeRule::Required ? ".T" : "") + "`\n";
    size_t at = ref.find(heading);
    EXPECT_NE(at, std::string::npos) << heading;
    EXPECT_EQ(ref.find(heading, at + 1), std::string::npos) << heading << " appears twice";
    EXPECT_NE(ref.find("- Opcode: " + std::to_string(static_cast<int>(info.op)) + "\n", at),
              std::string::npos)
        << heading;
  }
  EXPECT_EQ(ref.find("### Other"), std::string::npos)
      << "an opcode fits none of the groups of support/tpuprog/isa_reference.cpp";
}

TEST(TpuDocs, DocumentsEveryDirectiveCommandAndSlot) {
  std::string text = readFile(kDoc);
  for (const char* word : {".kernel", ".input", ".output", ".inout", ".scalar", ".buffer", ".equ",
                           ".program", ".end", "TPUPROG", "tile=", "placement=split", "ARG.dK",
                           "ARG.pK", "deadlock", "race on VMEM", "(200, 384)"})
    EXPECT_NE(text.find(word), std::string::npos) << word;
  for (auto k : {PlanCommand::Kind::Allocate, PlanCommand::Kind::InitTransfer,
                 PlanCommand::Kind::DataTransfer, PlanCommand::Kind::ComputeOnDevice,
                 PlanCommand::Kind::ComputeOnHost})
    EXPECT_NE(text.find(std::string("`") + commandName(k) + "`"), std::string::npos)
        << commandName(k);
  for (int s = 0; s < kSlotCount; ++s)
    EXPECT_NE(text.find(slotName(static_cast<Slot>(s))), std::string::npos);
}

TEST(TpuDocs, WorkedExampleRuns) {
  std::string text = readFile(kDoc);
  size_t at = text.find("## 7. Worked example");
  ASSERT_NE(at, std::string::npos);
  size_t b = text.find("```\n", at), e = text.find("```\n", b + 4);
  ASSERT_NE(e, std::string::npos);
  std::string source = text.substr(b + 4, e - b - 4);
  NpyArray x = test::randomF32({24, 128}, 1);
  test::TpuRun r = test::runTpu(source, {{"X", x}}, test::tpuArch());
  std::vector<float> in = test::values(x), out = test::values(r.outputs.at("Y"));
  for (size_t i = 0; i < in.size(); ++i) ASSERT_EQ(out[i], 2 * in[i]);
}

} // namespace
} // namespace chipless::tpuprog
