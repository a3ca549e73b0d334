#pragma once
/// What a chip's traits struct (isa_table.h lists its members) is built from: the types its
/// hooks take (the shared assembler, byte streams, JSON fields) and the ISA part every chip
/// derives the same way from its opcode table and register names.
#include "support/json_fields.h"
#include "support/progformat/asm_core.h"
#include "support/progformat/byte_io.h"
#include "support/progformat/isa_table.h"
#include "support/progformat/operand.h"
#include "support/progformat/registers.h"

#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace chipless::progformat {

/// The ISA members of a chip's traits, from its OpcodeInfo and the functions returning its
/// opcode table and register names.
template <typename Info, const OpcodeTable<Info>& (*Table)(), const RegisterNames& (*Registers)()>
struct IsaTraits {
  using OpcodeInfo = Info;                           ///< a table entry
  using Opcode = typename OpcodeTable<Info>::Opcode; ///< the chip's opcodes
  using Op = progformat::Op<Opcode>;                 ///< one operation
  using Kind = OperandKind;                          ///< operand kinds
  /// The opcode table.
  static const OpcodeTable<Info>& table() { return Table(); }
  /// The register names.
  static const RegisterNames& registers() { return Registers(); }
};

} // namespace chipless::progformat
