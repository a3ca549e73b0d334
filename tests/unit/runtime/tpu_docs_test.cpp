/// docs/tpu-program.md must not drift from the code: its ISA reference is the generated one,
/// it documents every directive, plan command and opcode, and its worked example runs.
#include "support/atomic_file.h"
#include "support/tpuprog/isa.h"
#include "support/tpuprog/isa_reference.h"
#include "support/tpuprog/plan.h"
#include "tests/unit/util/generated_doc.h"
#include "tests/unit/util/tpu_test_util.h"

#include <gtest/gtest.h>
#include <sstream>

namespace chipless::tpuprog {
namespace {

const std::string kDoc = std::string(CHIPLESS_SOURCE_DIR) + "/docs/tpu-program.md";

TEST(TpuDocs, IsaReferenceIsTheGeneratedOne) {
  ::chipless::testing::expectGeneratedIsaReference(kDoc, isaReferenceMarkdown(),
                                                   "tpu-as --isa-reference");
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
