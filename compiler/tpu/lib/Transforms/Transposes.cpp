//===- Transposes.cpp - materialised transposes (part of tpu-decompose) ---===//
//
// Part of chipless. A linalg.transpose is a view: its readers read the source in place. A
// transpose that moves the innermost dimension can be read in place only by a matmul's RHS
// (transposed-weight folds, mxu.matmul.nt); every other reader (an element-wise op, a matmul's
// LHS, func.return) needs the data moved. The TPU has no transpose instruction: the MXU does
// it, as the transposed-weight fold of an identity, t = I x view, where the view is the
// matmul's RHS read in place and I is generated on the VPU (a linalg.generic comparing
// linalg.index values). Its cost is what the model makes of these two kernels.
//
//===----------------------------------------------------------------------===//

#include "Common.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace chipless::tpuc {

namespace {

/// Whether every reader of `v` reads it in place: a matmul's RHS, possibly through reshapes
/// and slices.
bool readInPlace(Value v) {
  for (OpOperand& use : v.getUses()) {
    Operation* user = use.getOwner();
    if (isMatmul(user) && use.getOperandNumber() == 1) continue;
    if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp, tensor::ExtractSliceOp>(user) &&
        readInPlace(user->getResult(0)))
      continue;
    return false;
  }
  return true;
}

/// The same, for one use.
bool usedInPlace(OpOperand& use) {
  Operation* user = use.getOwner();
  if (isMatmul(user) && use.getOperandNumber() == 1) return true;
  return isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp, tensor::ExtractSliceOp>(user) &&
         readInPlace(user->getResult(0));
}

/// The identity [batch..., C, C] of element type `et`, generated on the VPU.
Value identity(IRRewriter& rw, Location loc, ArrayRef<int64_t> shape, Type et) {
  const auto rank = static_cast<unsigned>(shape.size());
  auto type = RankedTensorType::get(shape, et);
  Value empty = rw.create<tensor::EmptyOp>(loc, shape, et);
  SmallVector<AffineMap> maps{rw.getMultiDimIdentityMap(rank)};
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  auto g = rw.create<linalg::GenericOp>(
      loc, TypeRange{type}, ValueRange{}, ValueRange{empty}, maps, iters,
      [&](OpBuilder& b, Location l, ValueRange) {
        Value i = b.create<linalg::IndexOp>(l, rank - 2);
        Value j = b.create<linalg::IndexOp>(l, rank - 1);
        Value eq = b.create<arith::CmpIOp>(l, arith::CmpIPredicate::eq, i, j);
        Value one = b.create<arith::ConstantOp>(l, b.getFloatAttr(et, 1.0));
        Value zero = b.create<arith::ConstantOp>(l, b.getFloatAttr(et, 0.0));
        b.create<linalg::YieldOp>(l, ValueRange{b.create<arith::SelectOp>(l, eq, one, zero)});
      });
  return g.getResult(0);
}

LogicalResult materialize(linalg::TransposeOp t, IRRewriter& rw) {
  Value view = t->getResult(0);
  auto type = cast<RankedTensorType>(view.getType());
  ArrayRef<int64_t> perm = t.getPermutation();
  const int64_t rank = type.getRank();
  if (!(rank == 2 || (rank == 3 && perm[0] == 0)))
    return t.emitError("a transpose that moves the innermost dimension is read in place only as "
                       "a matmul's RHS; other readers need it materialised, which is supported "
                       "for rank 2 and for rank 3 with the batch dimension first"),
           failure();
  Type et = type.getElementType();
  if (!isa<BFloat16Type, Float32Type>(et))
    return t.emitError() << "a transpose that moves the innermost dimension is read in place "
                            "only as a matmul's RHS; materialising it (on the MXU) needs bf16 or "
                            "f32 elements (got "
                         << et << ")",
           failure();
  rw.setInsertionPointAfter(t);
  const Location loc = t.getLoc();
  ArrayRef<int64_t> shape = type.getShape();
  SmallVector<int64_t> ishape(shape.begin(), shape.end() - 1);
  ishape.push_back(shape[static_cast<size_t>(rank - 2)]);
  Value eye = identity(rw, loc, ishape, et);
  Value zero = rw.create<arith::ConstantOp>(loc, rw.getFloatAttr(et, 0.0));
  Value empty = rw.create<tensor::EmptyOp>(loc, shape, et);
  Value init = rw.create<linalg::FillOp>(loc, zero, empty).getResult(0);
  Value moved;
  if (rank == 2)
    moved =
        rw.create<linalg::MatmulOp>(loc, TypeRange{type}, ValueRange{eye, view}, ValueRange{init})
            .getResult(0);
  else
    moved = rw.create<linalg::BatchMatmulOp>(loc, TypeRange{type}, ValueRange{eye, view},
                                             ValueRange{init})
                .getResult(0);
  rw.replaceUsesWithIf(view, moved, [&](OpOperand& use) {
    return use.getOwner() != moved.getDefiningOp() && !usedInPlace(use);
  });
  return success();
}

} // namespace

LogicalResult materializeTransposes(ModuleOp module) {
  IRRewriter rw(module.getContext());
  SmallVector<linalg::TransposeOp> todo;
  module.walk([&](linalg::TransposeOp t) {
    ArrayRef<int64_t> perm = t.getPermutation();
    if (perm.back() != static_cast<int64_t>(perm.size()) - 1 && !readInPlace(t->getResult(0)))
      todo.push_back(t);
  });
  for (linalg::TransposeOp t : todo)
    if (failed(materialize(t, rw))) return failure();
  return success();
}

} // namespace chipless::tpuc
