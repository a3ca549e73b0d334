/// SpyreCode's public functions (assembler.h, binary.h, disassembler.h, directory.h,
/// plan.h): the toolchain both formats share (support/progformat/), over SpyreCode's traits.
#include "support/progformat/format_api.h"
#include "support/spyrecode/directory.h"
#include "support/spyrecode/disassembler.h"
#include "support/spyrecode/traits.h"

namespace chipless::spyrecode {

const char* layoutName(Layout l) {
  return l == Layout::RowMajor ? "row_major" : "stick";
}

bool parseLayout(std::string_view s, Layout& out) {
  if (s == "stick")
    out = Layout::Stick;
  else if (s == "row_major")
    out = Layout::RowMajor;
  else
    return false;
  return true;
}

AssembleOptions AssembleOptions::forArch(const SpyreArch& arch) {
  AssembleOptions o;
  o.programPtr = arch.programBase();
  o.alignment = static_cast<uint64_t>(arch.memory.alignment_bytes);
  o.arch = arch.description;
  return o;
}

std::string formatInstruction(const JobBinary& bin, const Instruction& ins,
                              const std::optional<ArchDescription>& arch) {
  return progformat::formatOp<Traits>(bin, ins, arch);
}

CHIPLESS_PROGFORMAT_FUNCTIONS(Traits)

} // namespace chipless::spyrecode
