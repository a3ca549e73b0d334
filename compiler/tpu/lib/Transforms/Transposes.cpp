//===- Transposes.cpp - materialised transposes (part of tpu-decompose) ---===//
//
// Part of chipless. A linalg.transpose is a view: its readers read the source in place. A
// transpose that moves the innermost dimension can be read in place only by a matmul's RHS
// (transposed-weight folds, mxu.matmul.nt); every other reader (an element-wise op, a matmul's
// LHS, func.return) needs the data moved. The TPU has no transpose instruction: the MXU does
// it, as the transposed-weight fold of an identity, t = I x view, where the view is the
// matmul's RHS read in place and I is generated on the VPU (a linalg.generic comparing
// linalg.index values). Its cost is what the model makes of these kernels. An f32 transpose
// is exact: unless the chip's f32 folds keep every product (bf16x6), its source is split into
// three bf16 pieces, each moved by a bf16 fold and accumulated in f32. A product cannot move
// an infinity or NaN (inf x 0 is NaN in every other element of its column), so only the
// finite elements go through it; the others travel as small codes through one more fold and
// are put back on the VPU.
//
// A returned reduction over rows (one value per row, a column of its kernel) is made a
// contiguous vector the same way: broadcast along the row, column 0 viewed as [M, 1] and
// transposed to [1, M].
//
//===----------------------------------------------------------------------===//

#include "Common.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/PatternMatch.h"
#include "tpuc/Passes.h"

#include <limits>

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

Value floatConstant(OpBuilder& b, Location l, Type et, double v) {
  return b.create<arith::ConstantOp>(l, b.getFloatAttr(et, v));
}

/// Whether `x` is finite: x - x is 0 then, NaN for an infinity or NaN.
Value isFinite(OpBuilder& b, Location l, Value x) {
  return b.create<arith::CmpFOp>(l, arith::CmpFPredicate::OEQ, b.create<arith::SubFOp>(l, x, x),
                                 floatConstant(b, l, x.getType(), 0.0));
}

/// What a product with the identity cannot carry, a code per element: 0 for a finite element,
/// 1 for +inf, -1 for -inf, 2 for NaN (inf x 0 is NaN, so one non-finite element would spoil
/// its whole column). When f32 is moved in bf16 pieces, also 3 for a magnitude of 2^111 or
/// more and 4 for one below 2^-110: moved scaled by 2^-64 and 2^64 into the range the split
/// keeps exact, and scaled back (exactly: by a power of two, to a value f32 holds).
constexpr double kNanCode = 2.0, kHugeCode = 3.0, kTinyCode = 4.0;
constexpr double kHuge = 0x1p111, kTiny = 0x1p-110, kScale = 0x1p64;
constexpr double kInf = std::numeric_limits<double>::infinity();

/// |x|, by arith ops only (the VPU's max of x and -x).
Value magnitude(OpBuilder& b, Location l, Value x) {
  return b.create<arith::MaximumFOp>(l, x, b.create<arith::NegFOp>(l, x));
}

LogicalResult materialize(linalg::TransposeOp t, IRRewriter& rw, bool exactF32) {
  Value view = t->getResult(0);
  auto type = cast<RankedTensorType>(view.getType());
  ArrayRef<int64_t> perm = t.getPermutation();
  const int64_t rank = type.getRank();
  bool batchFirst = true; // every dimension but the last two stays (batch dimensions)
  for (int64_t i = 0; i + 2 < rank; ++i) batchFirst &= perm[static_cast<size_t>(i)] == i;
  if (!batchFirst)
    return t.emitError("a transpose that moves the innermost dimension is read in place only as "
                       "a matmul's RHS; other readers need it materialised, which is supported "
                       "when it swaps the last two dimensions only (the others are batch "
                       "dimensions)"),
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
  // The identity [batch, C, C] (one matrix for every batch index beyond one batch dimension).
  SmallVector<int64_t> ishape(shape.begin() + (rank > 3 ? rank - 2 : 0), shape.end() - 1);
  ishape.push_back(shape[static_cast<size_t>(rank - 2)]);
  // The products are accumulated in f32: I x view into a zero fill, or into `acc`.
  auto fold = [&](Value eye, Value rhs, Value acc) -> Value {
    if (!acc) {
      Value zero = rw.create<arith::ConstantOp>(loc, rw.getFloatAttr(et, 0.0));
      Value empty = rw.create<tensor::EmptyOp>(loc, shape, et);
      acc = rw.create<linalg::FillOp>(loc, zero, empty).getResult(0);
    }
    if (rank == 2)
      return rw
          .create<linalg::MatmulOp>(loc, TypeRange{type}, ValueRange{eye, rhs}, ValueRange{acc})
          .getResult(0);
    if (rank == 3)
      return rw
          .create<linalg::BatchMatmulOp>(loc, TypeRange{type}, ValueRange{eye, rhs},
                                         ValueRange{acc})
          .getResult(0);
    return buildContraction(rw, loc, eye, rhs, acc); // several batch dimensions
  };
  // `x` (of the source's shape) transposed as `t` does, a view the fold reads in place.
  auto transposedView = [&](Value x) -> Value {
    Type xt = cast<RankedTensorType>(x.getType()).getElementType();
    Value empty = rw.create<tensor::EmptyOp>(loc, shape, xt);
    return rw.create<linalg::TransposeOp>(loc, x, empty, perm)->getResult(0);
  };
  // f32 folds keep only some of the products of bf16 pieces (bf16x3: about 16 bits): then an
  // f32 source is moved in bf16 pieces by bf16 folds (below).
  const bool split = et.isF32() && !exactF32;
  Type foldType = split ? Type(rw.getBF16Type()) : et;
  Value eye = identity(rw, loc, ishape, foldType);
  // The finite elements are moved by the product, the others (as codes) by a second one.
  Value src = t.getInput();
  // Whether |x| is beyond the split's range above (kHuge) or below (kTiny).
  auto outside = [&](OpBuilder& b, Location l, Value x, arith::CmpFPredicate p, double bound) {
    return b.create<arith::CmpFOp>(l, p, magnitude(b, l, x), floatConstant(b, l, et, bound))
        .getResult();
  };
  Value finite = buildElementwise(rw, loc, src, et, [&](OpBuilder& b, Location l, ValueRange x) {
    auto c = [&](double v) { return floatConstant(b, l, et, v); };
    Value v = b.create<arith::SelectOp>(l, isFinite(b, l, x[0]), x[0], c(0.0));
    if (!split) return v;
    Value down = b.create<arith::MulFOp>(l, v, c(1 / kScale));
    Value up = b.create<arith::MulFOp>(l, v, c(kScale));
    return b
        .create<arith::SelectOp>(
            l, outside(b, l, v, arith::CmpFPredicate::OGE, kHuge), down,
            b.create<arith::SelectOp>(l, outside(b, l, v, arith::CmpFPredicate::OLT, kTiny), up, v))
        .getResult();
  });
  Value codes =
      buildElementwise(rw, loc, src, foldType, [&](OpBuilder& b, Location l, ValueRange x) {
        auto c = [&](double v) { return floatConstant(b, l, et, v); };
        Value sign = b.create<arith::SelectOp>(
            l, b.create<arith::CmpFOp>(l, arith::CmpFPredicate::OGT, x[0], c(0.0)), c(1.0),
            c(-1.0));
        Value notNan = b.create<arith::CmpFOp>(l, arith::CmpFPredicate::OEQ, x[0], x[0]);
        Value inRange = c(0.0);
        if (split)
          inRange = b.create<arith::SelectOp>(
              l, outside(b, l, x[0], arith::CmpFPredicate::OGE, kHuge), c(kHugeCode),
              b.create<arith::SelectOp>(l, outside(b, l, x[0], arith::CmpFPredicate::OLT, kTiny),
                                        c(kTinyCode), c(0.0)));
        Value code = b.create<arith::SelectOp>(
            l, isFinite(b, l, x[0]), inRange,
            b.create<arith::SelectOp>(l, notNan, sign, c(kNanCode)).getResult());
        return foldType == et ? code : b.create<arith::TruncFOp>(l, foldType, code).getResult();
      });
  Value moved;
  if (split) {
    // The finite part is split into three pieces of 8 significant bits on the VPU (Veltkamp's
    // split, exact in f32 arithmetic: hi = t - (t - x) with t = x * (2^16 + 1); mid the same of
    // x - hi; lo = x - hi - mid), each exactly a bf16 and moved by a bf16 fold, accumulated
    // in f32: I x hi^T + I x mid^T + I x lo^T is the transpose, exactly, for |x| from 2^-110
    // (below, lo is subnormal) to 2^111 (above, t overflows; the finite part is scaled into
    // that range). The VPU keeps a kernel's values in f32 and rounds only what it stores, so
    // the pieces are made by arithmetic.
    SmallVector<Value> pieces;
    for (int i = 0; i < 3; ++i) {
      SmallVector<Value> ins{finite};
      ins.append(pieces.begin(), pieces.end());
      pieces.push_back(
          buildElementwise(rw, loc, ins, foldType, [&](OpBuilder& b, Location l, ValueRange args) {
            Value rest = args[0]; // what the pieces so far miss
            for (size_t j = 1; j < args.size(); ++j)
              rest = b.create<arith::SubFOp>(l, rest, b.create<arith::ExtFOp>(l, et, args[j]));
            if (i < 2) { // its top 8 significant bits
              Value t = b.create<arith::MulFOp>(l, rest, floatConstant(b, l, et, 65537.0));
              rest = b.create<arith::SubFOp>(l, t, b.create<arith::SubFOp>(l, t, rest));
            }
            return b.create<arith::TruncFOp>(l, foldType, rest);
          }));
    }
    for (Value piece : pieces) moved = fold(eye, transposedView(piece), moved);
  } else {
    moved = fold(eye, transposedView(finite), Value());
  }
  Value movedCodes = fold(eye, transposedView(codes), Value());
  // Each element of a product has one non-zero term, so the codes arrive exactly.
  Value result = buildElementwise(
      rw, loc, ValueRange{moved, movedCodes}, et, [&](OpBuilder& b, Location l, ValueRange args) {
        auto c = [&](double v) { return floatConstant(b, l, et, v); };
        auto is = [&](arith::CmpFPredicate p, double v) {
          return b.create<arith::CmpFOp>(l, p, args[1], c(v)).getResult();
        };
        Value inf =
            b.create<arith::SelectOp>(l, is(arith::CmpFPredicate::OGT, 0.0), c(kInf), c(-kInf));
        Value special = b.create<arith::SelectOp>(l, is(arith::CmpFPredicate::OEQ, kNanCode),
                                                  c(std::numeric_limits<double>::quiet_NaN()), inf);
        if (split) {
          Value up = b.create<arith::MulFOp>(l, args[0], c(kScale));
          Value down = b.create<arith::MulFOp>(l, args[0], c(1 / kScale));
          special = b.create<arith::SelectOp>(
              l, is(arith::CmpFPredicate::OEQ, kHugeCode), up,
              b.create<arith::SelectOp>(l, is(arith::CmpFPredicate::OEQ, kTinyCode), down,
                                        special));
        }
        return b.create<arith::SelectOp>(l, is(arith::CmpFPredicate::OEQ, 0.0), args[0], special)
            .getResult();
      });
  rw.replaceUsesWithIf(view, result, [&](OpOperand& use) { return !usedInPlace(use); });
  return success();
}

} // namespace

/// Whether `e` only appends a dimension of one to its source ([..., M] -> [..., M, 1], a
/// reduction's `keepdim`).
static bool appendsUnitDim(tensor::ExpandShapeOp e) {
  auto groups = e.getReassociationIndices();
  const auto rank = static_cast<int64_t>(groups.size());
  for (int64_t i = 0; i + 1 < rank; ++i)
    if (groups[static_cast<size_t>(i)].size() != 1) return false;
  const ReassociationIndices& last = groups.back();
  return last.size() == 2 && last[0] == rank - 1 && e.getResultType().getShape().back() == 1;
}

FailureOr<Value> columnAsVector(Value r, int64_t n, Operation* after, IRRewriter& rw,
                                function_ref<bool(OpOperand&)> replace) {
  auto type = cast<RankedTensorType>(r.getType());
  const auto rank = type.getRank();
  if (rank < 1) return failure();
  // Readers of r with a dimension of one appended ([..., M, 1]) read column 0 of the
  // broadcast in place: rows of one element, exact; only the others need the vector.
  bool transposed = false, columns = false;
  for (OpOperand& use : r.getUses()) {
    if (!replace(use)) continue;
    auto e = dyn_cast<tensor::ExpandShapeOp>(use.getOwner());
    (e && appendsUnitDim(e) ? columns : transposed) = true;
  }
  if (transposed && !isa<BFloat16Type, Float32Type>(type.getElementType())) return failure();
  rw.setInsertionPointAfter(after);
  const Location loc = r.getLoc();
  Type et = type.getElementType();
  SmallVector<int64_t> full(type.getShape());
  full.push_back(n);
  auto fullType = RankedTensorType::get(full, et);
  const auto dims = static_cast<unsigned>(full.size());
  SmallVector<AffineExpr> rows;
  for (unsigned i = 0; i + 1 < dims; ++i) rows.push_back(rw.getAffineDimExpr(i));
  SmallVector<AffineMap> maps{AffineMap::get(dims, 0, rows, rw.getContext()),
                              rw.getMultiDimIdentityMap(dims)};
  Value empty = rw.create<tensor::EmptyOp>(loc, full, et);
  auto bcast = rw.create<linalg::GenericOp>(
      loc, TypeRange{fullType}, ValueRange{r}, ValueRange{empty}, maps,
      SmallVector<utils::IteratorType>(dims, utils::IteratorType::parallel),
      [&](OpBuilder& b, Location l, ValueRange args) {
        b.create<linalg::YieldOp>(l, ValueRange{args[0]});
      });
  auto isReader = [&](OpOperand& use) {
    return use.getOwner() != bcast.getOperation() && replace(use);
  };
  Value result;
  if (columns) {
    // Column 0 of the broadcast, [..., M, 1], as r's shape: the expansion then reads it.
    SmallVector<OpFoldResult> offsets(dims, rw.getIndexAttr(0)), strides(dims, rw.getIndexAttr(1)),
        sizes;
    SmallVector<int64_t> colShape(type.getShape());
    colShape.push_back(1);
    for (int64_t d : colShape) sizes.push_back(rw.getIndexAttr(d));
    Value col = rw.create<tensor::ExtractSliceOp>(loc, RankedTensorType::get(colShape, et),
                                                  bcast.getResult(0), offsets, sizes, strides);
    SmallVector<ReassociationIndices> groups;
    for (int64_t i = 0; i + 1 < rank; ++i) groups.push_back({i});
    groups.push_back({rank - 1, rank});
    result = rw.create<tensor::CollapseShapeOp>(loc, type, col, groups);
    rw.replaceUsesWithIf(r, result, [&](OpOperand& use) {
      auto e = dyn_cast<tensor::ExpandShapeOp>(use.getOwner());
      return e && appendsUnitDim(e) && isReader(use);
    });
  }
  if (!transposed) return result;
  // Transposes materialise with one batch dimension at most: r's leading dimensions are folded
  // into one (a view of the contiguous broadcast) and unfolded at the end.
  SmallVector<int64_t> shape(type.getShape());
  ReassociationIndices batch;
  for (int64_t i = 0; i + 1 < rank; ++i) batch.push_back(i);
  Value rowsOfValues = bcast.getResult(0);
  if (rank > 2) {
    shape = {type.getNumElements() / shape.back(), shape.back()};
    rowsOfValues = rw.create<tensor::CollapseShapeOp>(
        loc, RankedTensorType::get({shape[0], shape[1], n}, et), rowsOfValues,
        SmallVector<ReassociationIndices>{batch, {rank - 1}, {rank}});
  }
  // Column 0 viewed as [batch, M, 1], transposed to [batch, 1, M] and reshaped to [batch, M].
  const auto kept = static_cast<int64_t>(shape.size()) + 1;
  SmallVector<OpFoldResult> offsets(kept, rw.getIndexAttr(0)), strides(kept, rw.getIndexAttr(1)),
      sizes;
  SmallVector<int64_t> colShape(shape);
  colShape.push_back(1);
  for (int64_t d : colShape) sizes.push_back(rw.getIndexAttr(d));
  Value col = rw.create<tensor::ExtractSliceOp>(loc, RankedTensorType::get(colShape, et),
                                                rowsOfValues, offsets, sizes, strides);
  SmallVector<int64_t> rowShape(colShape), perm;
  std::swap(rowShape[kept - 1], rowShape[kept - 2]);
  for (int64_t i = 0; i < kept; ++i) perm.push_back(i);
  std::swap(perm[kept - 1], perm[kept - 2]);
  Value rowEmpty = rw.create<tensor::EmptyOp>(loc, rowShape, et);
  auto transpose = rw.create<linalg::TransposeOp>(loc, col, rowEmpty, perm);
  SmallVector<ReassociationIndices> groups;
  if (kept == 3) groups.push_back({0});
  groups.push_back({kept - 2, kept - 1});
  Value flat = rw.create<tensor::CollapseShapeOp>(loc, RankedTensorType::get(shape, et),
                                                  transpose->getResult(0), groups);
  if (rank > 2)
    flat = rw.create<tensor::ExpandShapeOp>(loc, type, flat,
                                            SmallVector<ReassociationIndices>{batch, {rank - 1}});
  rw.replaceUsesWithIf(r, flat, isReader);
  return flat;
}

/// Whether `t` moves the innermost dimension and has a reader other than a matmul's RHS.
static bool needsMaterializing(linalg::TransposeOp t) {
  ArrayRef<int64_t> perm = t.getPermutation();
  return perm.back() != static_cast<int64_t>(perm.size()) - 1 && !readInPlace(t->getResult(0));
}

static LogicalResult materializeAll(ArrayRef<linalg::TransposeOp> todo, MLIRContext* ctx) {
  if (todo.empty()) return success();
  // f32 folds are exact only with all six products of bf16 pieces (bf16x6).
  FailureOr<TpuArch> arch = targetArch(todo.front()->getParentOfType<ModuleOp>());
  if (failed(arch)) return failure();
  const bool exactF32 = arch->fp32Passes() >= 6;
  IRRewriter rw(ctx);
  for (linalg::TransposeOp t : todo)
    if (failed(materialize(t, rw, exactF32))) return failure();
  return success();
}

LogicalResult materializeTransposesOf(Value v) {
  SmallVector<linalg::TransposeOp> todo;
  for (Operation* def = v.getDefiningOp(); def && isViewOp(def);
       def = def->getOperand(0).getDefiningOp())
    if (auto t = dyn_cast<linalg::TransposeOp>(def); t && needsMaterializing(t)) todo.push_back(t);
  return materializeAll(todo, v.getContext());
}

void transposeReductions(ModuleOp module) {
  IRRewriter rw(module.getContext());
  SmallVector<linalg::ReduceOp> todo;
  module.walk([&](linalg::ReduceOp r) {
    auto in = cast<RankedTensorType>(r.getInputs()[0].getType());
    if (r.getDimensions().size() == 1 && r.getDimensions()[0] == in.getRank() - 2)
      todo.push_back(r);
  });
  for (linalg::ReduceOp r : todo) {
    Value x = r.getInputs()[0];
    auto in = cast<RankedTensorType>(x.getType());
    const int64_t rank = in.getRank();
    SmallVector<int64_t> perm, shape(in.getShape());
    for (int64_t i = 0; i < rank; ++i) perm.push_back(i);
    std::swap(perm[rank - 1], perm[rank - 2]);
    std::swap(shape[rank - 1], shape[rank - 2]);
    rw.setInsertionPoint(r);
    Value empty = rw.create<tensor::EmptyOp>(r.getLoc(), shape, in.getElementType());
    Value t = rw.create<linalg::TransposeOp>(r.getLoc(), x, empty, perm)->getResult(0);
    rw.modifyOpInPlace(r, [&] {
      r->setOperand(0, t);
      r.setDimensions({rank - 1});
    });
  }
}

LogicalResult materializeTransposes(ModuleOp module) {
  SmallVector<linalg::TransposeOp> todo;
  module.walk([&](linalg::TransposeOp t) {
    if (needsMaterializing(t)) todo.push_back(t);
  });
  return materializeAll(todo, module.getContext());
}

} // namespace chipless::tpuc
