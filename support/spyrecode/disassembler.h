#pragma once
/// Prints a job back as SpyreCode assembly that assembles to the same plan and binary, with
/// the disassembler both formats share (support/progformat/disasm_core.h).
#include "support/spyrecode/assembler.h"

#include <optional>
#include <string>

namespace chipless::spyrecode {

/// Formats one operand value as assembly ("r1+@A+64", "in0", "cw", "1.5").
std::string formatOperand(const JobBinary& bin, const OperandDecl& decl, const Operand& o);

/// Formats one instruction (labels for branch targets are "L<pc>"), leaving out operands
/// that hold their default for `arch` (an architecture-given default, such as a stream's
/// one-stick stride, is printed when the architecture is not known).
std::string formatInstruction(const JobBinary& bin, const Instruction& ins,
                              const std::optional<ArchDescription>& arch = std::nullopt);

/// The whole job as assembly text, with the program counter of every instruction in a
/// comment so simulator errors ("pc 12") can be found.
std::string disassemble(const Job& job);

} // namespace chipless::spyrecode
