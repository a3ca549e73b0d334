//===- StrictLegality.h - chipless's checks beyond upstream KTIR's --*- C++ -*-===//
//
// Part of chipless. The ktdp verifiers accept and reject what upstream KTIR's do; the
// checks chipless adds (they catch real mistakes upstream lets through: a tile shape that
// does not match its set, partitions that do not cover their view, tile groups over the
// grid, single use of a future) live in each op's verifyStrict
// (StrictLegalityOpInterface) and run as one stage: the `ktdp-strict` pass
// (`ktir-opt --ktdp-strict`), which spyre-compile runs on every input.
//
//===----------------------------------------------------------------------===//

#ifndef KTIR_TRANSFORMS_STRICTLEGALITY_H
#define KTIR_TRANSFORMS_STRICTLEGALITY_H

#include "mlir/Pass/Pass.h"

#include <memory>

namespace chipless::ktir {

/// Runs verifyStrict on every op under `root` that has strict rules, in pre-order; each
/// broken rule is a located error at its op. Fails if any is.
mlir::LogicalResult checkStrictLegality(mlir::Operation* root);

/// The `ktdp-strict` pass: checkStrictLegality on the module.
std::unique_ptr<mlir::Pass> createStrictLegalityPass();

/// Registers `--ktdp-strict` with the pass registry (ktir-opt).
void registerStrictLegalityPass();

} // namespace chipless::ktir

#endif // KTIR_TRANSFORMS_STRICTLEGALITY_H
