//===- SpyreopTypes.h - spyreop number formats ------------------*- C++ -*-===//
//
// Part of chipless. !spyreop.df16 and the fused pair types. See SpyreopTypes.td.
//
//===----------------------------------------------------------------------===//

#ifndef KTIR_DIALECT_SPYREOP_SPYREOPTYPES_H
#define KTIR_DIALECT_SPYREOP_SPYREOPTYPES_H

#include "mlir/IR/BuiltinTypeInterfaces.h"
#include "mlir/IR/Types.h"

#define GET_TYPEDEF_CLASSES
#include "ktir/Dialect/Spyreop/SpyreopTypes.h.inc"

#endif // KTIR_DIALECT_SPYREOP_SPYREOPTYPES_H
