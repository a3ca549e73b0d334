//===- DfirIsa.h - dfir ops bound to the SpyreCode opcode table -*- C++ -*-===//
//
// Part of chipless. The one place where DataflowIR meets the SpyreCode opcode table
// (support/spyrecode/isa.h): which ISA operand of an instruction op is which SSA value or
// attribute, which ports an operand may name, how element types are spelled. The parser,
// printer and verifier of the instruction ops and the emitter all go through here, so the
// operand lists, their order, defaults and unit masks are stated once, in the table.
//
//===----------------------------------------------------------------------===//

#ifndef DATAFLOW_DIALECT_DFIR_DFIRISA_H
#define DATAFLOW_DIALECT_DFIR_DFIRISA_H

#include "dataflow/Dialect/Dfir/DfirOps.h"
#include "support/dtype.h"

#include <optional>
#include <string>

namespace mlir::dfir {

/// One operand of an instruction op as its opcode's table entry declares it: the SSA value
/// of an expression operand, the attribute of a port, enum or float operand, or neither
/// when it is left out (the instruction then gets the table's default).
struct IsaOperand {
  const chipless::spyrecode::OperandDecl* decl = nullptr;
  Value value;
  Attribute attr;
  bool present() const { return value || attr; }
};

/// The operands of `op` in the order of its opcode's table entry (hidden operands are
/// skipped). Register operands (a register the instruction writes, `rd`) are the op's
/// results in order; expression operands are the op's SSA operand groups in order; every
/// other kind is the attribute named like the operand.
SmallVector<IsaOperand> getIsaOperands(InstructionOpInterface op);

/// Number of expression (SSA) operands of `opcode` in the table.
unsigned countExpressionOperands(chipless::spyrecode::Opcode opcode);
/// Number of register operands (results) of `opcode` in the table.
unsigned countRegisterOperands(chipless::spyrecode::Opcode opcode);

/// The SFU opcode of `dfir.sfu "KIND"` ("add" -> sfu.add); nullopt for anything that is
/// not an SFU vector opcode (splat has its own op).
std::optional<chipless::spyrecode::Opcode> sfuOpcode(StringRef kind);

/// The element type a dtype attribute names: f16, bf16, f32 or i32 (signless); nullopt
/// for any other type.
std::optional<chipless::DType> dtypeOf(Type type);
/// The MLIR type that spells `dtype` (f16, bf16, f32, i32).
Type typeOf(MLIRContext* context, chipless::DType dtype);

/// Which ports an operand may name.
enum class PortRole {
  Input,        ///< an input FIFO in0..
  InputOrNone,  ///< an input FIFO or "none"
  Output,       ///< an output FIFO out0..
  OutputOrNone, ///< an output FIFO or "none"
  Source,       ///< an input FIFO or an SFU register v0..
  Destination,  ///< an output FIFO or an SFU register
  Register,     ///< an SFU register
};
/// The role of port operand `name` of `opcode`.
PortRole portRole(chipless::spyrecode::Opcode opcode, StringRef name);
/// "an input FIFO (in0..)", ... for messages.
const char* describePortRole(PortRole role);
/// True if `port` (encoded as in isa.h) is allowed for `role`.
bool portFits(PortRole role, int64_t port);

/// The port an attribute names ("in0", "out1", "v3", "none"); nullopt if malformed.
std::optional<int64_t> portOf(Attribute attr);
/// Index of `word` among the choices of an enum operand; -1 if it is not one.
int enumIndex(const chipless::spyrecode::OperandDecl& decl, StringRef word);

/// How an instruction is written in messages: "sfu.add.f16", "dma.load", "ring.send".
std::string isaSpelling(InstructionOpInterface op);

/// The constant value of `value` if it is an arith.constant of index or integer type.
std::optional<int64_t> constantIndex(Value value);

} // namespace mlir::dfir

#endif // DATAFLOW_DIALECT_DFIR_DFIRISA_H
