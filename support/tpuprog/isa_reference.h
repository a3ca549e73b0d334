#pragma once
/// The ISA reference of docs/tpu-program.md, generated from the opcode table so that the
/// documentation cannot drift from the assembler, the binary reader and the simulator.
#include <string>

namespace chipless::tpuprog {

/// Markdown: one section per slot group (scalar ALU and SMEM, control, synchronisation,
/// vector load/store, vector ALU, MXU, DMA and ICI), and per opcode its mnemonic with the
/// element-type rule, its slot, its operands (index in the binary, name, kind, default) and
/// its summary. Printed by `tpu-as --isa-reference`.
std::string isaReferenceMarkdown();

} // namespace chipless::tpuprog
