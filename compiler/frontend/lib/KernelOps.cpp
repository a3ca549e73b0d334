//===- KernelOps.cpp - the graph's ops on a tile's blocks ---===//
//
// Part of chipless. The ops of a kernel rebuilt on the blocks one step of one tile holds
// (KernelWriter.h): forms become 2-D indexing maps, reductions become linalg.reduce, softmax its
// four ops, erf and powf by a constant the SFU's ops.
//
//===----------------------------------------------------------------------===//

#include "KernelWriter.h"

namespace chipless::frontend {

void cloneBodyOp(OpBuilder& b, Operation& op, IRMapping& m) {
  if (auto pow = dyn_cast<math::PowFOp>(op)) {
    // A constant exponent (the front end's verifier admits 0.5, -0.5, -1, 1, 2, 3, 4) as
    // the SFU's products, square root and reciprocal square root.
    Location loc = op.getLoc();
    Value x = m.lookup(pow.getLhs());
    const double k = *graph::constantValue(pow.getRhs());
    Value r;
    if (k == 0.5)
      r = b.create<math::SqrtOp>(loc, x);
    else if (k == -0.5)
      r = b.create<math::RsqrtOp>(loc, x);
    else if (k == -1.0)
      r = b.create<arith::DivFOp>(
          loc, b.create<arith::ConstantOp>(loc, b.getFloatAttr(x.getType(), 1.0)), x);
    else {
      r = x;
      for (int i = 1; i < static_cast<int>(k); ++i) r = b.create<arith::MulFOp>(loc, r, x);
    }
    m.map(pow.getResult(), r);
    return;
  }
  auto erf = dyn_cast<math::ErfOp>(op);
  if (!erf) {
    b.clone(op, m);
    return;
  }
  Location loc = op.getLoc();
  Value x = m.lookup(erf.getOperand());
  Type t = x.getType();
  auto c = [&](double v) {
    return b.create<arith::ConstantOp>(loc, b.getFloatAttr(t, v)).getResult();
  };
  Value a = b.create<math::AbsFOp>(loc, x);
  Value one = c(1.0);
  Value den = b.create<arith::AddFOp>(loc, one, b.create<arith::MulFOp>(loc, c(0.3275911), a));
  Value tt = b.create<arith::DivFOp>(loc, one, den);
  Value poly = c(1.061405429);
  for (double k : {-1.453152027, 1.421413741, -0.284496736, 0.254829592})
    poly = b.create<arith::AddFOp>(loc, c(k), b.create<arith::MulFOp>(loc, tt, poly));
  poly = b.create<arith::MulFOp>(loc, tt, poly);
  Value negSq = b.create<arith::NegFOp>(loc, b.create<arith::MulFOp>(loc, a, a));
  Value y = b.create<arith::SubFOp>(
      loc, one, b.create<arith::MulFOp>(loc, poly, b.create<math::ExpOp>(loc, negSq)));
  // The sign as a select of two constants (one streamed operand, not three).
  Value neg = b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OLT, x, c(0.0));
  Value sign = b.create<arith::SelectOp>(loc, neg, c(-1.0), one);
  m.map(erf.getResult(), b.create<arith::MulFOp>(loc, sign, y));
}

FailureOr<Value> KernelWriter::mapped(Value v, Operation* user) {
  if (Value m = map_.lookupOrNull(v)) return m;
  return user->emitError("internal error: the Spyre front end lost an operand of this op"),
         failure();
}

FailureOr<Value> KernelWriter::fresh(Value graphInit, RankedTensorType t, OpBuilder& b,
                                     Location loc) {
  Value empty = b.create<tensor::EmptyOp>(loc, t.getShape(), t.getElementType());
  if (auto fill = graphInit ? graphInit.getDefiningOp<linalg::FillOp>() : nullptr) {
    auto c = fill.getInputs()[0].getDefiningOp<arith::ConstantOp>();
    Value scalar = b.create<arith::ConstantOp>(loc, cast<TypedAttr>(c.getValue()));
    return b.create<linalg::FillOp>(loc, scalar, empty).getResult(0);
  }
  return empty;
}

LogicalResult KernelWriter::cloneBody(Operation* op, Block& from, OpBuilder& outer, IRMapping& m) {
  // Constants the body captures from the graph are re-made in the kernel.
  for (Operation& inner : from)
    for (Value v : inner.getOperands()) {
      if (m.contains(v) || v.getParentBlock() == &from) continue;
      auto c = v.getDefiningOp<arith::ConstantOp>();
      if (!c)
        return op->emitError("its body uses a value from outside other than a constant"), failure();
      m.map(v, outer.clone(*c)->getResult(0));
    }
  return success();
}

LogicalResult KernelWriter::rebuild(Operation* op, OpBuilder& b) {
  Location loc = op->getLoc();
  MLIRContext* ctx = b.getContext();
  auto mapOf = [&](Form f) {
    AffineExpr d0 = getAffineDimExpr(0, ctx), d1 = getAffineDimExpr(1, ctx);
    switch (f) {
    case Form::Matrix:
    case Form::Repeated:
      return AffineMap::get(2, 0, {d0, d1}, ctx);
    case Form::PerRow:
      return AffineMap::get(2, 0, {d0}, ctx);
    case Form::PerCol:
    case Form::Spread:
      return AffineMap::get(2, 0, {d1}, ctx);
    }
    return AffineMap();
  };
  auto par = utils::IteratorType::parallel;

  if (auto g = dyn_cast<linalg::GenericOp>(op)) {
    Block& body = g.getRegion().front();
    IRMapping outerConsts;
    if (failed(cloneBody(op, body, b, outerConsts))) return failure();
    const bool reduces = g.getIteratorTypesArray().back() == utils::IteratorType::reduction;
    SmallVector<Value> ins;
    SmallVector<AffineMap> maps;
    for (Value in : g.getDpsInputs()) {
      auto m = mapped(in, op);
      if (failed(m)) return failure();
      ins.push_back(*m);
      maps.push_back(mapOf(k_.formOf(in)));
    }
    if (!reduces) {
      SmallVector<Value> outs;
      SmallVector<Type> types;
      for (OpOperand& init : g.getDpsInitsMutable()) {
        RankedTensorType t = blockType(g.getTiedOpResult(&init));
        types.push_back(t);
        maps.push_back(mapOf(Form::Matrix));
        if (g.payloadUsesValueFromOperand(&init)) {
          auto m = mapped(init.get(), op);
          if (failed(m)) return failure();
          outs.push_back(*m);
        } else {
          outs.push_back(*fresh(Value(), t, b, loc));
        }
      }
      auto n = b.create<linalg::GenericOp>(
          loc, types, ins, outs, maps, SmallVector<utils::IteratorType>{par, par},
          [&](OpBuilder& nb, Location, ValueRange args) {
            IRMapping m = outerConsts;
            for (auto [from, to] : llvm::zip(body.getArguments(), args)) m.map(from, to);
            for (Operation& inner : body) cloneBodyOp(nb, inner, m);
          });
      for (auto [from, to] : llvm::zip(g->getResults(), n->getResults())) map_.map(from, to);
      return success();
    }
    // A reduction along the rows: the element-wise part as a parallel generic, then a
    // linalg.reduce with the combiner.
    if (g.getNumDpsInits() != 1)
      return g.emitError("the Spyre front end reduces into one output per linalg.generic");
    OpOperand& init = g.getDpsInitsMutable()[0];
    BlockArgument acc = g.getMatchingBlockArgument(&init);
    auto yield = cast<linalg::YieldOp>(body.getTerminator());
    Operation* combiner = yield.getOperand(0).getDefiningOp();
    if (!combiner || combiner->getNumOperands() != 2 || combiner->getNumResults() != 1 ||
        !isa<arith::AddFOp, arith::MaximumFOp, arith::MaxNumFOp, arith::MinimumFOp,
             arith::MinNumFOp>(combiner) ||
        (combiner->getOperand(0) != acc && combiner->getOperand(1) != acc))
      return g.emitError("a reduction must yield add, max or min of a value and the "
                         "accumulator");
    Value value =
        combiner->getOperand(0) == acc ? combiner->getOperand(1) : combiner->getOperand(0);
    Value reduced;
    if (auto arg = dyn_cast<BlockArgument>(value);
        arg && arg.getOwner() == &body &&
        k_.formOf(g.getDpsInputs()[arg.getArgNumber()]) == Form::Matrix) {
      reduced = ins[arg.getArgNumber()];
    } else {
      Value in0 = g.getDpsInputs()[0];
      auto matrixType =
          RankedTensorType::get({blockRows(), blockShape(in0, Form::Matrix)[1]}, value.getType());
      for (Value in : g.getDpsInputs())
        if (k_.formOf(in) == Form::Matrix)
          matrixType = RankedTensorType::get(blockType(in).getShape(), value.getType());
      SmallVector<AffineMap> pmaps = maps;
      pmaps.push_back(mapOf(Form::Matrix));
      Value out = *fresh(Value(), matrixType, b, loc);
      auto p =
          b.create<linalg::GenericOp>(loc, TypeRange{matrixType}, ins, ValueRange{out}, pmaps,
                                      SmallVector<utils::IteratorType>{par, par},
                                      [&](OpBuilder& nb, Location l, ValueRange args) {
                                        IRMapping m = outerConsts;
                                        for (unsigned i = 0; i < g.getNumDpsInputs(); ++i)
                                          m.map(body.getArgument(i), args[i]);
                                        for (Operation& inner : body) {
                                          if (&inner == combiner || &inner == yield.getOperation())
                                            continue;
                                          cloneBodyOp(nb, inner, m);
                                        }
                                        nb.create<linalg::YieldOp>(l, m.lookup(value));
                                      });
      reduced = p->getResult(0);
    }
    RankedTensorType rowType = blockType(g->getResult(0));
    auto initValue = fresh(init.get(), rowType, b, loc);
    auto r = b.create<linalg::ReduceOp>(loc, ValueRange{reduced}, ValueRange{*initValue},
                                        ArrayRef<int64_t>{1},
                                        [&](OpBuilder& nb, Location l, ValueRange args) {
                                          IRMapping m;
                                          m.map(value, args[0]);
                                          m.map(acc, args[1]);
                                          Operation* c = nb.clone(*combiner, m);
                                          nb.create<linalg::YieldOp>(l, c->getResult(0));
                                        });
    map_.map(g->getResult(0), r->getResult(0));
    return success();
  }
  if (isa<linalg::AddOp, linalg::SubOp, linalg::MulOp, linalg::DivOp>(op)) {
    auto lin = cast<linalg::LinalgOp>(op);
    auto a = mapped(lin.getDpsInputs()[0], op), c = mapped(lin.getDpsInputs()[1], op);
    if (failed(a) || failed(c)) return failure();
    if (!getElementTypeOrSelf(*a).isa<FloatType>())
      return op->emitError("the Spyre front end computes element-wise ops on floats only");
    Value r;
    if (isa<linalg::AddOp>(op)) r = b.create<arith::AddFOp>(loc, *a, *c);
    if (isa<linalg::SubOp>(op)) r = b.create<arith::SubFOp>(loc, *a, *c);
    if (isa<linalg::MulOp>(op)) r = b.create<arith::MulFOp>(loc, *a, *c);
    if (isa<linalg::DivOp>(op)) r = b.create<arith::DivFOp>(loc, *a, *c);
    map_.map(op->getResult(0), r);
    return success();
  }
  if (auto red = dyn_cast<linalg::ReduceOp>(op)) {
    auto in = mapped(red.getInputs()[0], op);
    if (failed(in)) return failure();
    auto init = fresh(red.getInits()[0], blockType(red->getResult(0)), b, loc);
    Block& body = red.getRegion().front();
    IRMapping outerConsts;
    if (failed(cloneBody(op, body, b, outerConsts))) return failure();
    auto n =
        b.create<linalg::ReduceOp>(loc, ValueRange{*in}, ValueRange{*init}, ArrayRef<int64_t>{1},
                                   [&](OpBuilder& nb, Location, ValueRange args) {
                                     IRMapping m = outerConsts;
                                     for (auto [f, t] : llvm::zip(body.getArguments(), args))
                                       m.map(f, t);
                                     for (Operation& inner : body) nb.clone(inner, m);
                                   });
    map_.map(red->getResult(0), n->getResult(0));
    return success();
  }
  if (auto bc = dyn_cast<linalg::BroadcastOp>(op)) {
    auto in = mapped(bc.getInput(), op);
    if (failed(in)) return failure();
    Value out = *fresh(Value(), blockType(bc->getResult(0)), b, loc);
    const int64_t dim = k_.formOf(bc.getInput()) == Form::PerRow ? 1 : 0;
    auto n = b.create<linalg::BroadcastOp>(loc, *in, out, ArrayRef<int64_t>{dim});
    map_.map(bc->getResult(0), n->getResult(0));
    return success();
  }
  if (auto sm = dyn_cast<linalg::SoftmaxOp>(op)) {
    auto x = mapped(sm.getInput(), op);
    if (failed(x)) return failure();
    auto t = cast<RankedTensorType>(x->getType());
    auto et = cast<FloatType>(t.getElementType());
    auto rowT = RankedTensorType::get({t.getShape()[0]}, et);
    auto fillRow = [&](double v, bool negInf) {
      APFloat f = negInf ? APFloat::getInf(et.getFloatSemantics(), true) : APFloat(v);
      bool lost = false;
      if (!negInf) f.convert(et.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
      Value c = b.create<arith::ConstantOp>(loc, b.getFloatAttr(et, f));
      Value e = b.create<tensor::EmptyOp>(loc, rowT.getShape(), et);
      return b.create<linalg::FillOp>(loc, c, e).getResult(0);
    };
    auto reduce = [&](Value in, Value init, bool max) {
      return b
          .create<linalg::ReduceOp>(
              loc, ValueRange{in}, ValueRange{init}, ArrayRef<int64_t>{1},
              [&](OpBuilder& nb, Location l, ValueRange a) {
                Value c = max ? nb.create<arith::MaxNumFOp>(l, a[0], a[1]).getResult()
                              : nb.create<arith::AddFOp>(l, a[0], a[1]).getResult();
                nb.create<linalg::YieldOp>(l, c);
              })
          ->getResult(0);
    };
    auto rowwise = [&](Value m, Value r, bool divide) {
      Value out = b.create<tensor::EmptyOp>(loc, t.getShape(), et);
      return b
          .create<linalg::GenericOp>(
              loc, TypeRange{t}, ValueRange{m, r}, ValueRange{out},
              SmallVector<AffineMap>{mapOf(Form::Matrix), mapOf(Form::PerRow), mapOf(Form::Matrix)},
              SmallVector<utils::IteratorType>{par, par},
              [&](OpBuilder& nb, Location l, ValueRange a) {
                Value v = divide ? nb.create<arith::DivFOp>(l, a[0], a[1]).getResult()
                                 : nb.create<math::ExpOp>(
                                         l, nb.create<arith::SubFOp>(l, a[0], a[1]).getResult())
                                       .getResult();
                nb.create<linalg::YieldOp>(l, v);
              })
          ->getResult(0);
    };
    Value mx = reduce(*x, fillRow(0, true), true);
    Value e = rowwise(*x, mx, false);
    Value sum = reduce(e, fillRow(0.0, false), false);
    map_.map(sm->getResult(0), rowwise(e, sum, true));
    return success();
  }
  if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op))
    return success(); // written with the scaffolding
  return op->emitError("internal error: the Spyre front end cannot rebuild this op"), failure();
}

} // namespace chipless::frontend
