//===- GraphRewrites.cpp - a graph into the forms kernels take ------------===//
//
// Part of chipless. See GraphRewrites.h.
//
//===----------------------------------------------------------------------===//

#include "GraphRewrites.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;

namespace chipless::frontend {

namespace {

/// linalg.reduce over dimension rank - 2 -> linalg.transpose (swap the last two) +
/// linalg.reduce over dimension rank - 1. The reduced result is the same tensor.
void reduceAlongTheLast(linalg::ReduceOp r) {
  auto in = cast<RankedTensorType>(r.getInputs()[0].getType());
  const int64_t rank = in.getRank();
  auto dims = r.getDimensions();
  if (r.getInputs().size() != 1 || rank < 2 || dims.size() != 1 || dims[0] != rank - 2) return;
  OpBuilder b(r);
  Location loc = r.getLoc();
  SmallVector<int64_t> perm, shape;
  for (int64_t i = 0; i < rank; ++i) perm.push_back(i);
  std::swap(perm[rank - 1], perm[rank - 2]);
  for (int64_t p : perm) shape.push_back(in.getShape()[p]);
  Value empty = b.create<tensor::EmptyOp>(loc, shape, in.getElementType());
  Value t = b.create<linalg::TransposeOp>(loc, r.getInputs()[0], empty, perm)->getResult(0);
  Block& body = r.getRegion().front();
  auto n = b.create<linalg::ReduceOp>(loc, ValueRange{t}, r.getInits(), ArrayRef<int64_t>{rank - 1},
                                      [&](OpBuilder& nb, Location, ValueRange args) {
                                        IRMapping m;
                                        for (auto [from, to] : llvm::zip(body.getArguments(), args))
                                          m.map(from, to);
                                        for (Operation& op : body) nb.clone(op, m);
                                      });
  r->replaceAllUsesWith(n->getResults());
  r->erase();
}

/// linalg.conv_2d_nhwc_hwcf -> an unfold (a linalg.generic marked kUnfoldAttr, its strides
/// and dilations in kWindowStridesAttr and kWindowDilationsAttr, whose input map adds the
/// window's offsets: u[n, oh, ow, kh, kw, c] = x[n, oh sh + kh dh, ow sw + kw dw, c]) and a
/// matmul of the unfolded rows [N OH OW, KH KW C] by the filters [KH KW C, F], as
/// torch-spyre lowers a convolution. Left alone (and refused later, at the op) when its
/// shapes are not static.
void unfoldConvolution(linalg::Conv2DNhwcHwcfOp conv) {
  auto pair = [](DenseIntElementsAttr a) {
    SmallVector<int64_t> v{1, 1};
    if (a) v = llvm::to_vector(a.getValues<int64_t>());
    return v;
  };
  SmallVector<int64_t> st = pair(conv.getStrides()), dl = pair(conv.getDilations());
  if (st.size() != 2 || dl.size() != 2) return;
  Value x = conv.getInputs()[0], w = conv.getInputs()[1];
  auto xt = cast<RankedTensorType>(x.getType()), wt = cast<RankedTensorType>(w.getType()),
       ot = cast<RankedTensorType>(conv->getResult(0).getType());
  Value init = conv.getOutputs()[0];
  if (!xt.hasStaticShape() || !wt.hasStaticShape() || !ot.hasStaticShape()) return;
  OpBuilder b(conv);
  Location loc = conv.getLoc();
  MLIRContext* ctx = conv.getContext();
  const int64_t N = ot.getShape()[0], OH = ot.getShape()[1], OW = ot.getShape()[2],
                F = ot.getShape()[3], KH = wt.getShape()[0], KW = wt.getShape()[1],
                C = wt.getShape()[2];
  Type e = xt.getElementType();
  // u[n, oh, ow, kh, kw, c] = x[n, oh sh + kh dh, ow sw + kw dw, c]
  SmallVector<AffineExpr> d;
  for (unsigned i = 0; i < 6; ++i) d.push_back(getAffineDimExpr(i, ctx));
  AffineMap in =
      AffineMap::get(6, 0, {d[0], d[1] * st[0] + d[3] * dl[0], d[2] * st[1] + d[4] * dl[1], d[5]},
                     ctx);
  AffineMap id = AffineMap::getMultiDimIdentityMap(6, ctx);
  Value empty = b.create<tensor::EmptyOp>(loc, ArrayRef<int64_t>{N, OH, OW, KH, KW, C}, e);
  auto par = utils::IteratorType::parallel;
  auto unfold = b.create<linalg::GenericOp>(
      loc, TypeRange{empty.getType()}, ValueRange{x}, ValueRange{empty},
      ArrayRef<AffineMap>{in, id}, SmallVector<utils::IteratorType>(6, par),
      [](OpBuilder& nb, Location l, ValueRange a) { nb.create<linalg::YieldOp>(l, a[0]); });
  unfold->setAttr(kUnfoldAttr, b.getUnitAttr());
  unfold->setAttr(kWindowStridesAttr, b.getDenseI64ArrayAttr(st));
  unfold->setAttr(kWindowDilationsAttr, b.getDenseI64ArrayAttr(dl));
  Value rows = b.create<tensor::CollapseShapeOp>(
      loc, unfold->getResult(0), SmallVector<ReassociationIndices>{{0, 1, 2}, {3, 4, 5}});
  Value filters =
      b.create<tensor::CollapseShapeOp>(loc, w, SmallVector<ReassociationIndices>{{0, 1, 2}, {3}});
  // The product into the convolution's own initial value, seen as rows.
  Value acc;
  if (auto fill = init.getDefiningOp<linalg::FillOp>()) {
    Value e2 =
        b.create<tensor::EmptyOp>(loc, ArrayRef<int64_t>{N * OH * OW, F}, ot.getElementType());
    acc = b.create<linalg::FillOp>(loc, fill.getInputs()[0], e2).getResult(0);
  } else {
    acc = b.create<tensor::CollapseShapeOp>(loc, init,
                                            SmallVector<ReassociationIndices>{{0, 1, 2}, {3}});
  }
  Value product = b.create<linalg::MatmulOp>(loc, TypeRange{acc.getType()},
                                             ValueRange{rows, filters}, ValueRange{acc})
                      ->getResult(0);
  Value out = b.create<tensor::ExpandShapeOp>(loc, ot, product,
                                              SmallVector<ReassociationIndices>{{0, 1, 2}, {3}});
  conv->getResult(0).replaceAllUsesWith(out);
  conv->erase();
}

/// An elementwise linalg.generic over `inputs` (identity maps, all of one shape) into a new
/// tensor of element type `elem`, whose body yields `body`'s value.
Value elementwise(OpBuilder& b, Location loc, Type elem, ValueRange inputs,
                  function_ref<Value(OpBuilder&, Location, ValueRange)> body) {
  auto shape = cast<RankedTensorType>(inputs.front().getType()).getShape();
  auto type = RankedTensorType::get(shape, elem);
  Value empty = b.create<tensor::EmptyOp>(loc, shape, elem);
  SmallVector<AffineMap> maps(inputs.size() + 1, b.getMultiDimIdentityMap(shape.size()));
  SmallVector<utils::IteratorType> iters(shape.size(), utils::IteratorType::parallel);
  return b
      .create<linalg::GenericOp>(loc, TypeRange{type}, inputs, ValueRange{empty}, maps, iters,
                                 [&](OpBuilder& nb, Location l, ValueRange args) {
                                   nb.create<linalg::YieldOp>(l, body(nb, l, args));
                                 })
      ->getResult(0);
}

/// An f32 tensor `x` as f16 parts: the high part f16(x) and, with `low`, the low part
/// f16(x - f16(x)).
Value f16Part(OpBuilder& b, Location loc, Value x, bool low) {
  return elementwise(b, loc, b.getF16Type(), x, [&](OpBuilder& nb, Location l, ValueRange a) {
    Value hi = nb.create<arith::TruncFOp>(l, nb.getF16Type(), a[0]);
    if (!low) return hi;
    Value rest =
        nb.create<arith::SubFOp>(l, a[0], nb.create<arith::ExtFOp>(l, nb.getF32Type(), hi));
    return Value(nb.create<arith::TruncFOp>(l, nb.getF16Type(), rest));
  });
}

/// x + y of two f32 tensors of one shape.
Value addTensors(OpBuilder& b, Location loc, Value x, Value y) {
  return elementwise(b, loc, b.getF32Type(), ValueRange{x, y},
                     [](OpBuilder& nb, Location l, ValueRange a) {
                       return Value(nb.create<arith::AddFOp>(l, a[0], a[1]));
                     });
}

/// A matmul of f32 matrices -> three f16 matmuls with f32 results (the PT array takes
/// f16, accumulates in f32): A B ~ Ah Bh + (Ah Bl + Al Bh), where Xh = f16(X) and Xl =
/// f16(X - Xh) (the low parts' product is below f32's precision), the small terms added
/// first. As the TPU's MXU passes bf16 x 3.
template <class MatmulOp>
void splitF32Matmul(MatmulOp mm) {
  OpBuilder b(mm);
  Location loc = mm.getLoc();
  Value a = mm.getDpsInputOperand(0)->get(), bm = mm.getDpsInputOperand(1)->get();
  Value init = mm.getDpsInitOperand(0)->get();
  Value ah = f16Part(b, loc, a, false), al = f16Part(b, loc, a, true);
  Value bh = f16Part(b, loc, bm, false), bl = f16Part(b, loc, bm, true);
  auto product = [&](Value x, Value y) {
    return b.create<MatmulOp>(loc, TypeRange{init.getType()}, ValueRange{x, y}, ValueRange{init})
        ->getResult(0);
  };
  Value high = product(ah, bh);
  Value cross = addTensors(b, loc, product(ah, bl), product(al, bh));
  mm->getResult(0).replaceAllUsesWith(addTensors(b, loc, high, cross));
  mm->erase();
}

/// Whether both operands of `op` (a matmul) are f32.
bool f32Operands(Operation* op) {
  auto dps = cast<DestinationStyleOpInterface>(op);
  return llvm::all_of(dps.getDpsInputOperands(), [](OpOperand* o) {
    return cast<ShapedType>(o->get().getType()).getElementType().isF32();
  });
}

} // namespace

void rewriteForKernels(func::FuncOp f) {
  SmallVector<linalg::ReduceOp> reduces;
  f.walk([&](linalg::ReduceOp r) { reduces.push_back(r); });
  for (linalg::ReduceOp r : reduces) reduceAlongTheLast(r);
  SmallVector<linalg::Conv2DNhwcHwcfOp> convs;
  f.walk([&](linalg::Conv2DNhwcHwcfOp c) { convs.push_back(c); });
  for (linalg::Conv2DNhwcHwcfOp c : convs) unfoldConvolution(c);
  SmallVector<Operation*> f32Matmuls;
  f.walk([&](Operation* op) {
    if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op) && f32Operands(op))
      f32Matmuls.push_back(op);
  });
  for (Operation* op : f32Matmuls) {
    if (auto mm = dyn_cast<linalg::MatmulOp>(op))
      splitF32Matmul(mm);
    else
      splitF32Matmul(cast<linalg::BatchMatmulOp>(op));
  }
}

} // namespace chipless::frontend
