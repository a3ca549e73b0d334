#pragma once
/// The ISA reference of docs/spyrecode.md, generated from the opcode table so that the
/// documentation cannot drift from the assembler, the binary reader and the simulator.
#include <string>

namespace chipless::spyrecode {

/// Markdown: one section per engine group (scalar/control/tokens on every engine, DMA,
/// ring, load/store, SFU, PT), and per opcode its mnemonic with the element-type suffix
/// rule and allowed types, the units that run it, its operands (index in the binary, name,
/// kind, default, choices) and its summary. Printed by `spyre-as --isa-reference`.
std::string isaReferenceMarkdown();

} // namespace chipless::spyrecode
