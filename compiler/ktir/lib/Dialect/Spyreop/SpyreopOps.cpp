//===- SpyreopOps.cpp - spyreop intrinsics --------------------------------===//
//
// Part of chipless. Verifiers of the intrinsics whose rules ODS cannot state: the
// fused types pair with their unfused formats, softplus needs a non-zero beta.
//
//===----------------------------------------------------------------------===//

#include "ktir/Dialect/Spyreop/SpyreopOps.h"

#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::spyreop;

#define GET_OP_CLASSES
#include "ktir/Dialect/Spyreop/SpyreopOps.cpp.inc"

/// The fused pair type of an unfused format: f16 -> fp16_fused, f32 -> fp32_fused,
/// df16 -> df16_fused.
static Type fusedTypeOf(Type element) {
  MLIRContext* ctx = element.getContext();
  if (element.isF16()) return FP16FusedType::get(ctx);
  if (element.isF32()) return FP32FusedType::get(ctx);
  if (isa<DF16Type>(element)) return DF16FusedType::get(ctx);
  return {};
}

/// Verifies that `fused` is the fused form of `plain`, scalars or tensors of one shape.
static LogicalResult verifyFusedPair(Operation* op, Type plain, Type fused) {
  auto plainTensor = dyn_cast<RankedTensorType>(plain);
  auto fusedTensor = dyn_cast<RankedTensorType>(fused);
  if (static_cast<bool>(plainTensor) != static_cast<bool>(fusedTensor) ||
      (plainTensor && plainTensor.getShape() != fusedTensor.getShape()))
    return op->emitOpError("fused and unfused types must both be scalars or tensors of one "
                           "shape, got ")
           << plain << " and " << fused;
  Type plainElement = getElementTypeOrSelf(plain), fusedElement = getElementTypeOrSelf(fused);
  if (fusedTypeOf(plainElement) != fusedElement)
    return op->emitOpError("the fused form of ")
           << plainElement << " is " << fusedTypeOf(plainElement) << ", not " << fusedElement;
  return success();
}

LogicalResult Exx2FusedOp::verify() {
  return verifyFusedPair(*this, getOperand().getType(), getResult().getType());
}

LogicalResult LayerNormScaleFusedOp::verify() {
  return verifyFusedPair(*this, getResult().getType(), getOperand().getType());
}

LogicalResult SoftplusOp::verify() {
  if (getBeta().isZero()) return emitOpError("beta must be non-zero");
  return success();
}
