//===- DfirOps.h - dfir (DataflowIR) operations -----------------*- C++ -*-===//
//
// Part of chipless. Every op of the dfir dialect; include this header to use the
// dialect. See DfirOps.td and docs/dataflow-ir.md.
//
//===----------------------------------------------------------------------===//

#ifndef DATAFLOW_DIALECT_DFIR_DFIROPS_H
#define DATAFLOW_DIALECT_DFIR_DFIROPS_H

#include "dataflow/Dialect/Dfir/DfirDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "support/spyrecode/isa.h"
#include "support/spyrecode/program.h"

// clang-format off
#include "dataflow/Dialect/Dfir/DfirEnums.h.inc"
#include "dataflow/Dialect/Dfir/DfirOpInterfaces.h.inc"
// clang-format on

namespace mlir::dfir {
/// Table-driven parser, printer and verifier of the instruction ops (DfirInstructionOps.cpp).
ParseResult parseInstruction(OpAsmParser& parser, OperationState& result,
                             chipless::spyrecode::Opcode opcode);
void printInstruction(OpAsmPrinter& p, InstructionOpInterface op);
LogicalResult verifyInstruction(InstructionOpInterface op);
/// `cores = [first, last]` or `cores = all` of dfir.program.
ParseResult parseCoreRange(OpAsmParser& parser, DenseI32ArrayAttr& cores);
void printCoreRange(OpAsmPrinter& p, Operation* op, DenseI32ArrayAttr cores);
} // namespace mlir::dfir

#define GET_OP_CLASSES
#include "dataflow/Dialect/Dfir/DfirOps.h.inc"

#endif // DATAFLOW_DIALECT_DFIR_DFIROPS_H
