#pragma once
/// The vocabulary both program formats share (SpyreCode's per-engine instruction streams
/// and the TPU's VLIW bundles): an operand value, how an opcode declares its operands, the
/// common part of an opcode's table entry, and one operation. Each chip's opcode table
/// (support/spyrecode/isa.h, support/tpuprog/isa.h) is written in these terms, so one
/// assembler, disassembler, binary codec and ISA reference (this folder) serve both.
#include "support/arch_schema.h"
#include "support/dtype.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace chipless::progformat {

/// An operand value: constant + register + symbol. Registers are read when the operation
/// runs; symbols (tensor addresses, dimension sizes, scalars, buffers) are bound by the
/// runtime at launch, so one binary serves many launches.
struct Operand {
  int64_t imm = 0;
  int8_t reg = -1;  ///< register number (the chip's RegisterNames), or -1
  int32_t sym = -1; ///< index into the job binary's symbols, or -1
  bool operator==(const Operand& o) const { return imm == o.imm && reg == o.reg && sym == o.sym; }
};

/// How an operand is written in assembly and what its 64-bit value means. One list for
/// both chips; Port exists only in SpyreCode and VReg only in TPU programs.
enum class OperandKind : uint8_t {
  Reg,   ///< destination register (SpyreCode r0..r15, TPU s0..s63)
  Expr,  ///< integer: sum of a register, a symbol (@name, bound at launch) and a constant
  Port,  ///< SpyreCode compute operand: in0.., out0.., v0.. (SFU register) or none
  VReg,  ///< TPU vector register v0..; the value is its number
  Label, ///< branch target; the value is a program counter (SpyreCode) or bundle index (TPU)
  Float, ///< floating-point immediate (IEEE double bits), or a real scalar's symbol (@eps)
  Enum,  ///< one of a fixed list of words; the value is its index
  Hidden ///< filled in by the assembler (loop pairing); never written in assembly
};

/// Whether an operand of this kind may name a register: Reg and Expr operands.
inline bool mayCarryRegister(OperandKind k) {
  return k == OperandKind::Reg || k == OperandKind::Expr;
}
/// Whether an operand of this kind may name a launch symbol: Expr operands, and Float
/// operands bound to a real scalar (the symbol's value is then the bits of a double).
inline bool mayCarrySymbol(OperandKind k) {
  return k == OperandKind::Expr || k == OperandKind::Float;
}

/// One operand of an opcode: its keyword name, kind and default (if it may be omitted).
struct OperandDecl {
  const char* name;
  OperandKind kind;
  bool optional;
  int64_t defaultValue;
  std::vector<std::string> choices; ///< words of an Enum operand
  /// When set, the default is this architecture parameter's value (a dotted path such as
  /// "chip.stick_bytes"), not `defaultValue`: a number a study may vary is not written
  /// into the ISA table.
  const char* defaultParam = nullptr;
};

/// A required operand, for writing opcode tables.
inline OperandDecl req(const char* name, OperandKind kind) {
  return {name, kind, false, 0, {}};
}
/// An optional operand with its default, for writing opcode tables.
inline OperandDecl opt(const char* name, OperandKind kind, int64_t def) {
  return {name, kind, true, def, {}};
}
/// An optional operand whose default is the value of architecture parameter `param`.
inline OperandDecl optArch(const char* name, OperandKind kind, const char* param) {
  return {name, kind, true, 0, {}, param};
}
/// An optional Enum operand: one of `words`, by default the one at index `def`.
inline OperandDecl choice(const char* name, const std::vector<std::string>& words, int64_t def) {
  return {name, OperandKind::Enum, true, def, words};
}

/// Whether the mnemonic carries an element-type suffix such as ".f16". Optional suffixes
/// (SpyreCode's ring.send) stand for the chip's default element type when left out.
enum class DtypeRule : uint8_t { None, Required, Optional };

/// The bit of element type `t` in an element-type mask (OpcodeEntry::dtypeMask).
constexpr uint32_t dtypeBit(DType t) {
  return 1u << static_cast<unsigned>(t);
}

/// "f16, bf16, f32 or i32": the element types of `mask` in DType order, for messages.
std::string dtypeListText(uint32_t mask);

/// What every opcode's table entry holds on both chips; each chip's OpcodeInfo derives from
/// it and adds where the opcode may run (SpyreCode: the units; TPU: the slot).
template <typename Opcode>
struct OpcodeEntry {
  Opcode op;                         ///< its number (the table's index)
  const char* mnemonic;              ///< without the element-type suffix
  DtypeRule dtype;                   ///< whether a suffix is required, optional or none
  uint32_t dtypeMask;                ///< dtypeBit of each allowed element type
  std::vector<OperandDecl> operands; ///< in binary order
  int positional;      ///< how many leading operands the disassembler prints without "name="
  const char* summary; ///< one line (or a few) for the ISA reference
};

/// One operation: opcode, element type (when the opcode takes one) and one operand per
/// declared operand of the opcode, in table order. SpyreCode calls it an Instruction.
template <typename Opcode>
struct Op {
  Opcode op = Opcode::Nop;       ///< what it does
  std::optional<DType> dtype;    ///< its element type, when the opcode takes one
  std::vector<Operand> operands; ///< one per declared operand
  /// Same opcode, type and operands.
  bool operator==(const Op& o) const {
    return op == o.op && dtype == o.dtype && operands == o.operands;
  }
};

/// The default of optional operand `d` for a job made for `arch`; none when the default
/// is an architecture parameter and the architecture is not known.
inline std::optional<int64_t> operandDefault(const OperandDecl& d, const ArchDescription* arch) {
  if (!d.defaultParam) return d.defaultValue;
  if (!arch) return std::nullopt;
  return arch->getInt(d.defaultParam);
}
/// operandDefault for an architecture that may not be known.
inline std::optional<int64_t> operandDefault(const OperandDecl& d,
                                             const std::optional<ArchDescription>& arch) {
  return operandDefault(d, arch ? &*arch : nullptr);
}

/// Whether `o` is the default of an optional operand in a job made for `arch` (the
/// disassembler leaves it out; with the architecture unknown, an architecture-given
/// default is printed).
inline bool isDefaultOperand(const OperandDecl& d, const Operand& o,
                             const std::optional<ArchDescription>& arch) {
  if (!d.optional || o.reg >= 0 || o.sym >= 0) return false;
  std::optional<int64_t> def = operandDefault(d, arch);
  return def && o.imm == *def;
}

} // namespace chipless::progformat
