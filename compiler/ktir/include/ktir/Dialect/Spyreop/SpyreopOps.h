//===- SpyreopOps.h - spyreop intrinsics ------------------------*- C++ -*-===//
//
// Part of chipless. Every intrinsic of the spyreop dialect; include this header to
// use the dialect. See SpyreopOps.td.
//
//===----------------------------------------------------------------------===//

#ifndef KTIR_DIALECT_SPYREOP_SPYREOPOPS_H
#define KTIR_DIALECT_SPYREOP_SPYREOPOPS_H

#include "ktir/Dialect/Spyreop/SpyreopAttrs.h"
#include "ktir/Dialect/Spyreop/SpyreopDialect.h"
#include "ktir/Dialect/Spyreop/SpyreopTypes.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "ktir/Dialect/Spyreop/SpyreopOps.h.inc"

#endif // KTIR_DIALECT_SPYREOP_SPYREOPOPS_H
