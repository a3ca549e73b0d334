//===- SpyreopAttrs.h - spyreop enums ---------------------------*- C++ -*-===//
//
// Part of chipless. #spyreop.reduction_kind and #spyreop.reduction_scope.
//
//===----------------------------------------------------------------------===//

#ifndef KTIR_DIALECT_SPYREOP_SPYREOPATTRS_H
#define KTIR_DIALECT_SPYREOP_SPYREOPATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpImplementation.h"

// Generated declarations, in dependency order.
// clang-format off
#include "ktir/Dialect/Spyreop/SpyreopEnums.h.inc"
#define GET_ATTRDEF_CLASSES
#include "ktir/Dialect/Spyreop/SpyreopAttrs.h.inc"
// clang-format on

#endif // KTIR_DIALECT_SPYREOP_SPYREOPATTRS_H
