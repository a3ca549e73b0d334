//===- TpuOps.h - the tpu dialect of the TPU compiler -----------*- C++ -*-===//
//
// Part of chipless. See TpuOps.td.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_DIALECT_TPUOPS_H
#define TPUC_DIALECT_TPUOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

// clang-format off
#include "tpuc/Dialect/TpuDialect.h.inc"
#define GET_OP_CLASSES
#include "tpuc/Dialect/TpuOps.h.inc"
// clang-format on

#endif // TPUC_DIALECT_TPUOPS_H
