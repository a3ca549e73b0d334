#pragma once
/// The TPU job binary file format (program.bin), written and read by the codec both formats
/// share (support/progformat/binary_codec.h). Layout in docs/tpu-program.md.
#include "support/tpuprog/program.h"

#include <string>

namespace chipless::tpuprog {

/// Serialises a job binary (little-endian, packed, deterministic).
std::string encodeBinary(const JobBinary& bin);

/// Parses and validates a job binary. Every operation is checked against the opcode table
/// (operand count, registers, symbols, element type, branch targets) and every bundle against
/// the slots (one operation per slot, at most kMaxScalarSlots scalar operations); errors name
/// `path` and the program, bundle and operation, or the byte offset.
JobBinary decodeBinary(const std::string& bytes, const std::string& path);

/// Checks one bundle's slot occupancy: at most `scalarSlots` scalar operations and one
/// operation in each other slot. Returns "" or what is wrong.
std::string checkBundleSlots(const Bundle& bundle, int scalarSlots);

} // namespace chipless::tpuprog
