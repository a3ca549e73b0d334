//===- StrictLegality.cpp - the ktdp-strict pass ---------------------------===//
//
// Part of chipless. See StrictLegality.h.
//
//===----------------------------------------------------------------------===//

#include "ktir/Transforms/StrictLegality.h"

#include "ktir/Dialect/Ktdp/KtdpOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassRegistry.h"

namespace chipless::ktir {

mlir::LogicalResult checkStrictLegality(mlir::Operation* root) {
  bool failed = false;
  root->walk<mlir::WalkOrder::PreOrder>(
      [&](mlir::ktdp::StrictLegalityOpInterface op) { failed |= mlir::failed(op.verifyStrict()); });
  return mlir::failure(failed);
}

namespace {

/// `--ktdp-strict`: chipless's legality rules beyond the dialect's verifiers.
struct StrictLegalityPass
    : public mlir::PassWrapper<StrictLegalityPass, mlir::OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(StrictLegalityPass)
  llvm::StringRef getArgument() const final { return "ktdp-strict"; }
  llvm::StringRef getDescription() const final {
    return "Check chipless's ktdp legality rules beyond upstream KTIR's verifiers (tile "
           "shapes against their sets, view coverage, tile groups over the grid, single use "
           "of futures); spyre-compile always runs them";
  }
  void runOnOperation() final {
    if (mlir::failed(checkStrictLegality(getOperation()))) signalPassFailure();
  }
};

} // namespace

std::unique_ptr<mlir::Pass> createStrictLegalityPass() {
  return std::make_unique<StrictLegalityPass>();
}

void registerStrictLegalityPass() {
  mlir::PassRegistration<StrictLegalityPass>();
}

} // namespace chipless::ktir
