#pragma once
/// The scalar ALU both instruction sets share: li, add, sub, mul, div, rem, shl, shr, and,
/// or, xor, min and max, with the same operands, defaults and summaries, and the names of
/// the control opcodes both have. Each chip's opcode table starts with the ALU, in this
/// order, from its Opcode::Li on.
#include "support/progformat/operand.h"

#include <vector>

/// The names of the scalar ALU opcodes in each chip's Opcode enum, which starts with them in
/// this order (scalarAluOps() gives their table entries).
#define CHIPLESS_SCALAR_ALU_OPCODES Li, Add, Sub, Mul, Div, Rem, Shl, Shr, And, Or, Xor, Min, Max
/// The names of the control opcodes both instruction sets have, in this order: a jump, four
/// compare-and-branch, loop, endloop and nop (each chip writes its own summaries).
#define CHIPLESS_CONTROL_OPCODES Jmp, Beq, Bne, Blt, Bge, Loop, EndLoop, Nop

namespace chipless::progformat {

/// One scalar ALU opcode without its number: what both tables write for it.
struct ScalarAluOp {
  const char* mnemonic;              ///< "li", "add", ...
  std::vector<OperandDecl> operands; ///< rd, then the sources
  int positional;                    ///< all of them: rd and the sources are written positionally
  const char* summary;               ///< for the ISA reference
};

/// The thirteen scalar ALU opcodes, in opcode order.
const std::vector<ScalarAluOp>& scalarAluOps();

} // namespace chipless::progformat
