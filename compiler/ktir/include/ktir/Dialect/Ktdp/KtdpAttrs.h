//===- KtdpAttrs.h - ktdp attributes and enums ------------------*- C++ -*-===//
//
// Part of chipless. Memory spaces (#ktdp.memory_space, #ktdp.spyre_memory_space), the
// interface both implement, and the enums of the dialect. See KtdpAttrs.td.
//
//===----------------------------------------------------------------------===//

#ifndef KTIR_DIALECT_KTDP_KTDPATTRS_H
#define KTIR_DIALECT_KTDP_KTDPATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpImplementation.h"

#include <optional>

// Generated declarations, in dependency order.
// clang-format off
#include "ktir/Dialect/Ktdp/KtdpEnums.h.inc"
#include "ktir/Dialect/Ktdp/KtdpAttrInterfaces.h.inc"
#define GET_ATTRDEF_CLASSES
#include "ktir/Dialect/Ktdp/KtdpAttrs.h.inc"
// clang-format on

#endif // KTIR_DIALECT_KTDP_KTDPATTRS_H
