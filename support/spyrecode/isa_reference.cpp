#include "support/spyrecode/isa_reference.h"

#include "support/progformat/isa_reference.h"
#include "support/spyrecode/traits.h"

#include <vector>

namespace chipless::spyrecode {

namespace isadoc = progformat::isadoc;

namespace {

constexpr uint32_t kAllUnitsMask = (1u << kUnitCount) - 1;

uint32_t unitBit(Unit u) {
  return 1u << static_cast<unsigned>(u);
}

const isadoc::Groups<OpcodeInfo>& groups() {
  static const isadoc::Groups<OpcodeInfo> g = {
      {"Scalar, control and tokens (every engine)",
       "Every engine runs these. Each engine has its own registers r0..r15 (64-bit, zero at "
       "launch) and the read-only registers `core`, `corelet` (0 on per-core engines) and "
       "`ncores`. Tokens are counting semaphores of the core (ids 0..sync.tokens_per_core-1); "
       "a token carries the simulated time from which it may be taken.",
       [](const OpcodeInfo& i) { return i.unitMask == kAllUnitsMask; }},
      {"DMA engines",
       "One `dma_in` engine (device memory to scratchpad) and one `dma_out` engine (scratchpad "
       "to device memory) per core. Addresses, sizes and strides are bytes: whole sticks for "
       "`dma.load` and `dma.store`, any bytes for the byte-granular `dma.loadb` and "
       "`dma.storeb`.",
       [](const OpcodeInfo& i) {
         return (i.unitMask & ~(unitBit(Unit::DmaIn) | unitBit(Unit::DmaOut))) == 0;
       }},
      {"Ring engine",
       "One `ring` engine per core moves scratchpad data to other cores over the ring, "
       "optionally combining it with the data at the destination.",
       [](const OpcodeInfo& i) { return i.unitMask == unitBit(Unit::Ring); }},
      {"Load and store units",
       "One `load` and one `store` unit per corelet stream sticks between the scratchpad and "
       "the compute unit's FIFOs: load pushes into the input FIFOs (in0..), store pops the "
       "output FIFOs (out0..).",
       [](const OpcodeInfo& i) {
         return (i.unitMask & ~(unitBit(Unit::Load) | unitBit(Unit::Store))) == 0;
       }},
      {"Compute unit: SFU",
       "The SFU works on whole sticks: a 128-byte stick holds 64 f16/bf16 or 32 f32/i32 lanes. "
       "A port operand is an input FIFO (in0..), an output FIFO (out0..) or an SFU register "
       "(v0.., sfu.registers of them); `n` counts sticks. A FIFO source pops one stick per "
       "step, a register source gives the same stick every step; a FIFO destination pushes.",
       [](const OpcodeInfo& i) {
         return i.unitMask == unitBit(Unit::Compute) && isadoc::startsWith(i.mnemonic, "sfu.");
       }},
      {"Compute unit: PT array",
       "The PT array (8x8 processing elements per corelet) multiplies tiles streamed through "
       "the FIFOs.",
       [](const OpcodeInfo& i) {
         return i.unitMask == unitBit(Unit::Compute) && isadoc::startsWith(i.mnemonic, "pt.");
       }},
      {"Other", "Opcodes not covered by the groups above.", [](const OpcodeInfo&) { return true; }},
  };
  return g;
}

std::string unitList(uint32_t mask) {
  if (mask == kAllUnitsMask) return "every engine";
  std::string s;
  for (int u = 0; u < kUnitCount; ++u)
    if (mask & (1u << u))
      s += (s.empty() ? "" : ", ") + std::string(unitName(static_cast<Unit>(u)));
  return s;
}

/// "- Units: every engine" or the list of units.
std::string issueLine(const OpcodeInfo& info) {
  return "- Units: " + unitList(info.unitMask);
}

} // namespace

std::string isaReferenceMarkdown() {
  return isadoc::writeReference<Traits>(
      {"support/spyrecode/isa.cpp", "spyre-as", "pc", "register (r0..r15)", "port",
       "a *port* is in0.., out0.., v0.. or none", false, issueLine},
      groups());
}

} // namespace chipless::spyrecode
