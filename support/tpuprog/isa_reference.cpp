#include "support/tpuprog/isa_reference.h"

#include "support/progformat/isa_reference.h"
#include "support/tpuprog/traits.h"

#include <vector>

namespace chipless::tpuprog {

namespace isadoc = progformat::isadoc;

namespace {

/// "- Slot: mxu (asynchronous)".
std::string issueLine(const OpcodeInfo& info) {
  return std::string("- Slot: ") + slotName(info.slot) + (info.async ? " (asynchronous)" : "");
}

const isadoc::Groups<OpcodeInfo>& groups() {
  static const isadoc::Groups<OpcodeInfo> g = {
      {"Scalar slot: control",
       "Control operations take effect after the other operations of their bundle. A bundle "
       "holds at most one control operation. Loops nest up to 16 deep at run time.",
       [](const OpcodeInfo& i) { return isControl(i.op) || i.op == Opcode::Nop; }},
      {"Scalar slot: synchronisation and traps",
       "Semaphores are counting semaphores of the TensorCore (0..scalar.semaphores-1) whose "
       "tokens carry the simulated time from which they may be taken. Asynchronous operations "
       "(MXU folds, DMAs, ICI transfers and collectives) add a token to their `sem` operand "
       "when they complete; -1 means none.",
       [](const OpcodeInfo& i) {
         return i.slot == Slot::Scalar && (isadoc::startsWith(i.mnemonic, "sem.") ||
                                           i.op == Opcode::Fence || i.op == Opcode::Trap);
       }},
      {"Scalar slot: ALU and SMEM",
       "Scalar registers s0..s(scalar.registers-1) are 64-bit and zero at launch; `core`, "
       "`ncores`, `chip`, `nchips` and `nmxu` are read-only. Operations of one bundle run in "
       "the order written, so a later one sees an earlier one's result.",
       [](const OpcodeInfo& i) { return i.slot == Slot::Scalar; }},
      {"Vector load and store slots",
       "Vector registers v0..v(vpu.registers-1) hold vpu.sublanes x vpu.lanes 32-bit values "
       "(f32 or i32). `n` counts consecutive registers. Addresses and strides are VMEM bytes; "
       "a row is `lanes` elements of the suffix type.",
       [](const OpcodeInfo& i) { return i.slot == Slot::VLoad || i.slot == Slot::VStore; }},
      {"Vector ALU slot",
       "Element-wise operations on n consecutive registers (vd+i from va+i, vb+i), in f32 or "
       "i32 as the suffix says. Transcendental operations run on the slower pipeline "
       "(vpu.transcendental_latency_cycles, one register every "
       "vpu.transcendental_interval_cycles).",
       [](const OpcodeInfo& i) { return i.slot == Slot::VAlu; }},
      {"MXU slot",
       "Each TensorCore has mxu.count weight-stationary systolic arrays of mxu.rows x "
       "mxu.cols. One operation is one fold.",
       [](const OpcodeInfo& i) { return i.slot == Slot::Mxu; }},
      {"DMA slot: local DMA",
       "DMA engines (dma.engines per TensorCore) copy between HBM and VMEM or SMEM. "
       "Addresses, run sizes and strides are bytes, multiples of dma.alignment_bytes.",
       [](const OpcodeInfo& i) { return isadoc::startsWith(i.mnemonic, "dma."); }},
      {"DMA slot: ICI",
       "Transfers between chips over the ICI links (ici.topology). Collectives are issued by "
       "every chip of the system with the same operands; they run on the chip's ICI engine "
       "and move real data step by step around a ring of the chips.",
       [](const OpcodeInfo& i) { return isadoc::startsWith(i.mnemonic, "ici."); }},
      {"Other", "Opcodes not covered by the groups above.", [](const OpcodeInfo&) { return true; }},
  };
  return g;
}

} // namespace

std::string isaReferenceMarkdown() {
  return isadoc::writeReference<Traits>({"support/tpuprog/isa.cpp", "tpu-as", "bundle index",
                                         "scalar register", "vector register",
                                         "a *vector register* is v0..v255", true, issueLine},
                                        groups());
}

} // namespace chipless::tpuprog
