//===- KtirRegistration.h - everything KTIR files use -----------*- C++ -*-===//
//
// Part of chipless. One place that knows which dialects, interface models and passes
// a KTIR tool needs: ktdp, spyreop and the upstream dialects KTIR uses (func, arith,
// math, scf, cf, tensor, linalg, memref, affine, bufferization).
//
//===----------------------------------------------------------------------===//

#ifndef KTIR_KTIRREGISTRATION_H
#define KTIR_KTIRREGISTRATION_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace chipless::ktir {

/// Adds the dialects of KTIR and the external interface models (bufferization,
/// value bounds, tiling, …) of the upstream ones to `registry`.
void registerKtirDialects(mlir::DialectRegistry& registry);

/// Registers the generic transformation passes and the passes of the upstream
/// dialects KTIR uses, for command-line pipelines (`ktir-opt -canonicalize …`).
void registerKtirPasses();

} // namespace chipless::ktir

#endif // KTIR_KTIRREGISTRATION_H
