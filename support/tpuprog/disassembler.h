#pragma once
/// Prints a TPU job back as assembly that assembles to the same plan and binary, with the
/// disassembler both formats share (support/progformat/disasm_core.h).
#include "support/tpuprog/assembler.h"

#include <optional>
#include <string>

namespace chipless::tpuprog {

/// Formats one operand value as assembly ("s1+@A+64", "v3", "smem", "1.5").
std::string formatOperand(const JobBinary& bin, const OperandDecl& decl, const Operand& o);

/// Formats one operation (labels of branch targets are "L<bundle>"), leaving out operands
/// that hold their default for `arch`.
std::string formatOp(const JobBinary& bin, const Op& op,
                     const std::optional<ArchDescription>& arch = std::nullopt);

/// Formats one bundle: its operations joined by " | ".
std::string formatBundle(const JobBinary& bin, const Bundle& bundle,
                         const std::optional<ArchDescription>& arch = std::nullopt);

/// The whole job as assembly text, with the index of every bundle in a comment so simulator
/// errors ("pc 12") can be found.
std::string disassemble(const Job& job);

} // namespace chipless::tpuprog
