#pragma once
/// The job binary file format (init.bin), written and read by the codec both formats share
/// (support/progformat/binary_codec.h). Layout in docs/spyrecode.md.
#include "support/spyrecode/program.h"

#include <string>

namespace chipless::spyrecode {

/// Serialises a job binary (little-endian, deterministic).
std::string encodeBinary(const JobBinary& bin);

/// Parses and validates a job binary. Every instruction is checked against the opcode
/// table (operand count, registers, symbols, element type, the units allowed to run it);
/// errors name `path` and the program and program counter or byte offset.
JobBinary decodeBinary(const std::string& bytes, const std::string& path);

} // namespace chipless::spyrecode
