//===- KtdpDialect.h - the ktdp dialect -------------------------*- C++ -*-===//
//
// Part of chipless. See KtdpDialect.td.
//
//===----------------------------------------------------------------------===//

#ifndef KTIR_DIALECT_KTDP_KTDPDIALECT_H
#define KTIR_DIALECT_KTDP_KTDPDIALECT_H

#include "mlir/IR/Dialect.h"

// Generated declarations, in dependency order.
// clang-format off
#include "ktir/Dialect/Ktdp/KtdpDialect.h.inc"
// clang-format on

#endif // KTIR_DIALECT_KTDP_KTDPDIALECT_H
