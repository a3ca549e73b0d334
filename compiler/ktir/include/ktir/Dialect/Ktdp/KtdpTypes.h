//===- KtdpTypes.h - ktdp types ---------------------------------*- C++ -*-===//
//
// Part of chipless. !ktdp.access_tile, !ktdp.runtime_arg and !ktdp.tile_future.
// See KtdpTypes.td.
//
//===----------------------------------------------------------------------===//

#ifndef KTIR_DIALECT_KTDP_KTDPTYPES_H
#define KTIR_DIALECT_KTDP_KTDPTYPES_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypeInterfaces.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/IntegerSet.h"
#include "mlir/IR/Types.h"

#include <optional>

#define GET_TYPEDEF_CLASSES
#include "ktir/Dialect/Ktdp/KtdpTypes.h.inc"

#endif // KTIR_DIALECT_KTDP_KTDPTYPES_H
