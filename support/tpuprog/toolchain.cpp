/// The TPU program format's public functions (assembler.h, binary.h, disassembler.h,
/// directory.h, plan.h): the toolchain both formats share (support/progformat/), over the
/// TPU's traits, and the TPU's slot rules.
#include "support/progformat/format_api.h"
#include "support/tpuprog/directory.h"
#include "support/tpuprog/disassembler.h"
#include "support/tpuprog/traits.h"

namespace chipless::tpuprog {

const char* placementName(Placement p) {
  return p == Placement::Split ? "split" : "replicated";
}

std::string checkBundleSlots(const Bundle& bundle, int scalarSlots) {
  int used[kSlotCount] = {};
  int control = 0;
  for (const Op& op : bundle.ops) {
    const OpcodeInfo& info = opcodeInfo(op.op);
    int s = static_cast<int>(info.slot);
    int limit = info.slot == Slot::Scalar ? scalarSlots : 1;
    if (++used[s] > limit)
      return info.slot == Slot::Scalar
                 ? "more than " + std::to_string(scalarSlots) + " scalar operations in one bundle"
                 : std::string("two operations for the ") + slotName(info.slot) + " slot (" +
                       info.mnemonic + ") in one bundle";
    if (isControl(op.op) && ++control > 1) return "two control operations in one bundle";
  }
  return "";
}

AssembleOptions AssembleOptions::forArch(const TpuArch& arch) {
  AssembleOptions o;
  o.programPtr = 0;
  o.alignment = static_cast<uint64_t>(arch.hbm.alignment_bytes);
  o.scalarSlots = arch.scalar.slots;
  o.arch = arch.description;
  return o;
}

std::string formatOp(const JobBinary& bin, const Op& op,
                     const std::optional<ArchDescription>& arch) {
  return progformat::formatOp<Traits>(bin, op, arch);
}

std::string formatBundle(const JobBinary& bin, const Bundle& bundle,
                         const std::optional<ArchDescription>& arch) {
  return progformat::formatStep<Traits>(bin, bundle, arch);
}

std::optional<SymbolRef> resolveSymbol(const JobPlan& plan, const std::string& name,
                                       std::string& why) {
  return progformat::resolveSymbol(plan, name, Traits::kDimLetters, why);
}

void checkSymbols(const Job& job, const std::string& binaryName, const std::string& planName) {
  progformat::checkSymbols<Traits>(job, job.binary, binaryName, planName);
  for (const auto& [file, binary] : job.extraBinaries)
    progformat::checkSymbols<Traits>(job, binary, file, planName);
}

CHIPLESS_PROGFORMAT_FUNCTIONS(Traits)

} // namespace chipless::tpuprog
