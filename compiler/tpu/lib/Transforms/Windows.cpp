//===- Windows.cpp - padding and pooling (part of tpu-decompose) ----------===//
//
// Part of chipless. The TPU has no window instructions: tpu-decompose rewrites them into ops
// tpu-compile has.
// - tensor.pad by a constant becomes concatenations of the source with constant fills, one
//   padded dimension at a time; each part is written in place (tpu-alloc-hbm), so a padded
//   image costs its copy and the border.
// - linalg.pooling_nhwc_max / _sum becomes a chain of element-wise maxima (sums) over the
//   window's KH x KW strided slices of the input, each a view read in place (the DMA steps
//   over the stride); tpu-form-kernels fuses the chain and cuts it where the scalar registers
//   run out.
//
//===----------------------------------------------------------------------===//

#include "Common.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace chipless::tpuc {

namespace {

/// The largest pooling window tpu-decompose unrolls (a 32 x 32 global pool).
constexpr int64_t kMaxWindowPositions = 1024;

/// A tensor of `shape` holding `value` everywhere, made by a kernel (a linalg.generic).
Value constantTensor(IRRewriter& rw, Location loc, ArrayRef<int64_t> shape, TypedAttr value) {
  Type et = value.getType();
  const auto rank = static_cast<unsigned>(shape.size());
  Value empty = rw.create<tensor::EmptyOp>(loc, shape, et);
  auto g = rw.create<linalg::GenericOp>(
      loc, TypeRange{empty.getType()}, ValueRange{}, ValueRange{empty},
      ArrayRef<AffineMap>{rw.getMultiDimIdentityMap(rank)},
      SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
      [&](OpBuilder& b, Location l, ValueRange) {
        b.create<linalg::YieldOp>(l, ValueRange{b.create<arith::ConstantOp>(l, value)});
      });
  return g.getResult(0);
}

LogicalResult decomposePad(tensor::PadOp p, IRRewriter& rw) {
  TypedAttr value;
  Value yielded = p.getConstantPaddingValue();
  if (!yielded || !matchPattern(yielded, m_Constant(&value)))
    return p.emitError("tpu-compile pads with a constant value only"), failure();
  ArrayRef<int64_t> low = p.getStaticLow(), high = p.getStaticHigh();
  for (int64_t v : llvm::concat<const int64_t>(low, high))
    if (ShapedType::isDynamic(v) || v < 0)
      return p.emitError("tpu-compile pads by constant, non-negative amounts only"), failure();
  rw.setInsertionPoint(p);
  const Location loc = p.getLoc();
  Value v = p.getSource();
  SmallVector<int64_t> shape(p.getSourceType().getShape());
  for (size_t d = 0; d < shape.size(); ++d) {
    if (low[d] == 0 && high[d] == 0) continue;
    SmallVector<Value> parts;
    auto border = [&](int64_t n) {
      SmallVector<int64_t> s(shape);
      s[d] = n;
      parts.push_back(constantTensor(rw, loc, s, value));
    };
    if (low[d] > 0) border(low[d]);
    parts.push_back(v);
    if (high[d] > 0) border(high[d]);
    shape[d] += low[d] + high[d];
    v = rw.create<tensor::ConcatOp>(loc, static_cast<int64_t>(d), parts).getResult();
  }
  rw.replaceOp(p, v);
  return success();
}

/// The pooling's attribute `name` (strides, dilations) as [h, w].
std::array<int64_t, 2> windowAttr(Operation* op, StringRef name) {
  auto a = op->getAttrOfType<DenseIntElementsAttr>(name);
  std::array<int64_t, 2> r{1, 1};
  if (a)
    for (auto [i, x] : llvm::enumerate(a.getValues<int64_t>()))
      if (i < 2) r[i] = x;
  return r;
}

LogicalResult decomposePooling(linalg::LinalgOp op, bool max, IRRewriter& rw) {
  Value input = op.getDpsInputs()[0], init = op.getDpsInits()[0];
  auto window = cast<RankedTensorType>(op.getDpsInputs()[1].getType()).getShape();
  auto outType = cast<RankedTensorType>(init.getType());
  ArrayRef<int64_t> out = outType.getShape(); // [N, OH, OW, C]
  const std::array<int64_t, 2> strides = windowAttr(op, "strides"),
                               dilations = windowAttr(op, "dilations");
  // One element-wise op per position of the window: a bound keeps the chain (and the compile)
  // proportionate.
  if (window[0] > kMaxWindowPositions || window[1] > kMaxWindowPositions ||
      window[0] * window[1] > kMaxWindowPositions)
    return op->emitError() << "tpu-compile pools windows of at most " << kMaxWindowPositions
                           << " positions (got " << window[0] << " x " << window[1] << ")",
           failure();
  rw.setInsertionPoint(op);
  const Location loc = op.getLoc();
  Type et = outType.getElementType();
  const bool isFloat = isa<FloatType>(et);
  AffineMap id = rw.getMultiDimIdentityMap(4);
  SmallVector<utils::IteratorType> iters(4, utils::IteratorType::parallel);
  // acc = combine(acc, slice) for each position of the window, starting from the init.
  Value acc = init;
  for (int64_t kh = 0; kh < window[0]; ++kh)
    for (int64_t kw = 0; kw < window[1]; ++kw) {
      SmallVector<OpFoldResult> offsets = {rw.getIndexAttr(0), rw.getIndexAttr(kh * dilations[0]),
                                           rw.getIndexAttr(kw * dilations[1]), rw.getIndexAttr(0)};
      SmallVector<OpFoldResult> sizes, steps = {rw.getIndexAttr(1), rw.getIndexAttr(strides[0]),
                                                rw.getIndexAttr(strides[1]), rw.getIndexAttr(1)};
      for (int64_t s : out) sizes.push_back(rw.getIndexAttr(s));
      Value slice = rw.create<tensor::ExtractSliceOp>(loc, outType, input, offsets, sizes, steps);
      Value empty = rw.create<tensor::EmptyOp>(loc, out, et);
      acc = rw.create<linalg::GenericOp>(
                  loc, TypeRange{outType}, ValueRange{acc, slice}, ValueRange{empty},
                  ArrayRef<AffineMap>{id, id, id}, iters,
                  [&](OpBuilder& b, Location l, ValueRange args) {
                    Value r;
                    if (max)
                      r = isFloat ? b.create<arith::MaximumFOp>(l, args[0], args[1]).getResult()
                                  : b.create<arith::MaxSIOp>(l, args[0], args[1]).getResult();
                    else
                      r = isFloat ? b.create<arith::AddFOp>(l, args[0], args[1]).getResult()
                                  : b.create<arith::AddIOp>(l, args[0], args[1]).getResult();
                    b.create<linalg::YieldOp>(l, ValueRange{r});
                  })
                .getResult(0);
    }
  rw.replaceOp(op, acc);
  return success();
}

} // namespace

LogicalResult decomposeWindows(ModuleOp module) {
  SmallVector<Operation*> todo;
  module.walk([&](Operation* op) {
    if (isa<tensor::PadOp, linalg::PoolingNhwcMaxOp, linalg::PoolingNhwcSumOp>(op))
      todo.push_back(op);
  });
  IRRewriter rw(module.getContext());
  for (Operation* op : todo) {
    LogicalResult done = success();
    if (auto p = dyn_cast<tensor::PadOp>(op))
      done = decomposePad(p, rw);
    else
      done = decomposePooling(cast<linalg::LinalgOp>(op), isa<linalg::PoolingNhwcMaxOp>(op), rw);
    if (failed(done)) return failure();
  }
  return success();
}

} // namespace chipless::tpuc
