//===- KtdpOps.h - ktdp operations ------------------------------*- C++ -*-===//
//
// Part of chipless. Every op of the ktdp dialect; include this header to use the
// dialect. See KtdpOps.td.
//
//===----------------------------------------------------------------------===//

#ifndef KTIR_DIALECT_KTDP_KTDPOPS_H
#define KTIR_DIALECT_KTDP_KTDPOPS_H

#include "ktir/Dialect/Ktdp/KtdpAttrs.h"
#include "ktir/Dialect/Ktdp/KtdpDialect.h"
#include "ktir/Dialect/Ktdp/KtdpTypes.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::ktdp {

/// The inter-tile communication fabric as a side-effect resource: inter_tile_produce
/// writes it and the delivery ops read and write it, so that passes (CSE, DCE, LICM)
/// neither merge, reorder across nor drop an exchange between tiles.
struct InterTileResource : public SideEffects::Resource::Base<InterTileResource> {
  llvm::StringRef getName() final { return "ktdp.inter_tile"; }
};

} // namespace mlir::ktdp

#include "ktir/Dialect/Ktdp/KtdpOpInterfaces.h.inc"

#define GET_OP_CLASSES
#include "ktir/Dialect/Ktdp/KtdpOps.h.inc"

#endif // KTIR_DIALECT_KTDP_KTDPOPS_H
