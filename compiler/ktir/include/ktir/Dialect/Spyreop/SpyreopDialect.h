//===- SpyreopDialect.h - the spyreop dialect -------------------*- C++ -*-===//
//
// Part of chipless. See SpyreopDialect.td.
//
//===----------------------------------------------------------------------===//

#ifndef KTIR_DIALECT_SPYREOP_SPYREOPDIALECT_H
#define KTIR_DIALECT_SPYREOP_SPYREOPDIALECT_H

#include "mlir/IR/Dialect.h"

// Generated declarations, in dependency order.
// clang-format off
#include "ktir/Dialect/Spyreop/SpyreopDialect.h.inc"
// clang-format on

#endif // KTIR_DIALECT_SPYREOP_SPYREOPDIALECT_H
