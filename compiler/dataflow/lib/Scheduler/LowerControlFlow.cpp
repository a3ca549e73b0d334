//===- LowerControlFlow.cpp - scf.for and scf.if as loop nodes ------------===//
//
// Part of chipless. See Lowering.h. An scf.for becomes a loop node of every engine's
// program (its trip count and step may be launch expressions); its tensor iter_args live in
// buffers the body reads and the yield writes. An scf.if is a loop of 0 or 1 iterations per
// region, or just the region once its condition folds.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

using namespace mlir;

namespace chipless::sched {

LogicalResult Lowering::lowerFor(scf::ForOp loop) {
  auto lb = index(loop.getLowerBound()), ub = index(loop.getUpperBound()),
       step = index(loop.getStep());
  if (failed(lb) || failed(ub) || failed(step)) return failure();
  if (step->isConst() && step->constant() <= 0)
    return loop.emitOpError("has a step that is not positive");
  if (!step->isConst()) {
    // c + sum(k * scalar), k > 0, each a launch scalar the plan requires to be at least 1
    // (discoverArguments): positive for every launch the runtime accepts.
    bool positive = step->constant() >= 0;
    for (const auto& [atom, coef] : step->terms()) {
      const ScalarArgument* scalar = nullptr;
      if (coef > 0 && atom->kind == Atom::Kind::Sym)
        for (const ScalarArgument& a : args_.scalars)
          if (a.name == atom->sym && !a.real) scalar = &a;
      positive &= scalar && scalar->min && *scalar->min >= 1;
    }
    if (!positive)
      return loop.emitOpError("has a step (")
             << step->str()
             << ") that is neither a constant nor a positive multiple of launch scalars; fix "
                "it with --const";
  }
  // A loop that runs no iteration on this tile: its results are its inits.
  if (lb->isConst() && ub->isConst() && ub->constant() <= lb->constant()) {
    for (auto [res, init] : llvm::zip(loop.getResults(), loop.getInitArgs())) {
      auto t = value(init);
      if (failed(t)) return failure();
      bind(res, *t);
    }
    return success();
  }
  const int id = nextLoop_++;
  eval_.loopIds[loop] = id;
  if (lb->isConst() && ub->isConst())
    out_.loopRanges[id] = Range{lb->constant(), ub->constant() - 1};

  // Loop-carried values live in buffers that the body reads and the yield writes.
  std::vector<TVal> carried;
  std::vector<int> zeroAtEntry; // carried buffers that start as zeros
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  for (auto [i, init] : llvm::enumerate(loop.getInitArgs())) {
    if (!isa<RankedTensorType>(init.getType()))
      return loop.emitOpError("carries a non-tensor value (")
             << init.getType() << ") around the loop; only tensors can be loop-carried";
    auto t = value(init);
    if (failed(t)) return failure();
    BlockArgument arg = loop.getRegionIterArg(static_cast<unsigned>(i));
    Value res = loop.getResult(static_cast<unsigned>(i));
    TVal c;
    // An init in its own dense buffer that dies at the loop can carry the value itself.
    if (t->kind == TVal::Kind::Buffer && !t->sparse && t->offset == 0 &&
        t->strides == denseStrides(t->shape, t->elem) && diesAt(init, loop) &&
        llvm::count(loop.getInitArgs(), init) == 1) {
      c = *t;
    } else if (t->kind == TVal::Kind::Buffer && t->sparse && diesAt(init, loop)) {
      c = *t;
    } else {
      auto type = cast<RankedTensorType>(init.getType());
      c = newDense(type.getShape(), type.getElementType(),
                   "iter_arg " + std::to_string(i) + " of loop " + std::to_string(id));
      if (failed(copyInto(*t, c, loop.getLoc()))) return failure();
      if (t->kind == TVal::Kind::Uniform && t->scalar.isConst && t->scalar.value == 0)
        zeroAtEntry.push_back(c.buffer);
    }
    c.pad.reset();
    carried.push_back(c);
    bind(arg, c);
    bind(res, c);
    // The yielded value is computed straight into the carried buffer when nothing in the
    // body reads the iter_arg after it is defined.
    Value yielded = yield.getOperand(static_cast<unsigned>(i));
    Operation* def = yielded.getDefiningOp();
    if (def && def->getBlock() == loop.getBody()) {
      bool laterUse = false;
      for (Operation* user : arg.getUsers()) {
        Operation* top = loop.getBody()->findAncestorOpInBlock(*user);
        if (top && top != def && !top->isBeforeInBlock(def) && !isa<scf::YieldOp>(top))
          laterUse = true;
      }
      if (!laterUse && !c.sparse) destinations_[yielded] = c;
    }
  }

  auto node = std::make_unique<Node>();
  node->kind = Node::Kind::Loop;
  node->loop = id;
  node->lb = *lb;
  node->ub = *ub;
  node->stride = *step;
  node->text = "scf.for";
  for (int buffer : zeroAtEntry) zeroInFirstIteration_[buffer] = node.get();
  Node* saved = current_;
  current_->body.push_back(std::move(node));
  current_ = current_->body.back().get();
  if (failed(lowerBlock(*loop.getBody()))) return failure();
  for (auto [i, yielded] : llvm::enumerate(yield.getOperands())) {
    auto t = value(yielded);
    if (failed(t)) return failure();
    const TVal& c = carried[i];
    if (t->kind == TVal::Kind::Buffer && t->buffer == c.buffer && t->offset == c.offset &&
        t->strides == c.strides)
      continue;
    if (c.sparse) {
      if (failed(copyInto(*t, c, yield.getLoc()))) return failure();
      continue;
    }
    if (failed(copyInto(*t, c, yield.getLoc()))) return failure();
  }
  std::vector<Operation*> sunk;
  Node* loopNode = current_;
  if (failed(sinkResultStores(loop, current_, sunk))) return failure();
  current_ = saved;
  // A loop whose trip count is known only at launch may run no iteration; its results
  // are then its inits, which the stores moved into the last iteration never write.
  auto trips = rangeOf(loopNode->ub - loopNode->lb, out_.loopRanges);
  if (!sunk.empty() && (!trips || trips->lo < 1)) {
    const Expr none = Expr(1) - min(Expr(1), max(Expr(0), loopNode->ub - loopNode->lb));
    Node* outer = openConditional(none, "no iteration: store the loop's inits");
    for (Operation* store : sunk)
      if (failed(lowerStore(store))) return failure();
    current_ = outer;
  }
  return success();
}

Node* Lowering::openConditional(const Expr& taken, const std::string& text) {
  auto node = std::make_unique<Node>();
  node->kind = Node::Kind::Loop;
  node->loop = nextLoop_++;
  node->lb = Expr(0);
  node->ub = taken;
  node->stride = Expr(1);
  node->text = text;
  node->conditional = true;
  out_.loopRanges[node->loop] = Range{0, 0};
  Node* saved = current_;
  current_->body.push_back(std::move(node));
  current_ = current_->body.back().get();
  return saved;
}

LogicalResult Lowering::lowerIf(scf::IfOp branch) {
  auto cond = index(branch.getCondition());
  if (failed(cond)) return failure();
  std::vector<TVal> results;
  for (Value r : branch.getResults()) {
    auto type = dyn_cast<RankedTensorType>(r.getType());
    if (!type) return branch.emitOpError("returns a non-tensor value; only tensors are supported");
    results.push_back(newDense(type.getShape(), type.getElementType(), "scf.if result"));
    bind(r, results.back());
  }
  auto lowerRegion = [&](Region& region, const Expr& taken) -> LogicalResult {
    if (region.empty()) return success();
    if (auto c = taken.asConst(); c && *c == 0) return success();
    Block& block = region.front();
    bool always = taken.asConst() && *taken.asConst() == 1;
    Node* saved = current_;
    if (!always) openConditional(taken, "scf.if");
    if (failed(lowerBlock(block))) return failure();
    auto yield = cast<scf::YieldOp>(block.getTerminator());
    for (auto [i, y] : llvm::enumerate(yield.getOperands())) {
      auto t = value(y);
      if (failed(t) || failed(copyInto(*t, results[i], yield.getLoc()))) return failure();
    }
    current_ = saved;
    return success();
  };
  // cond is 0 or 1: the then region runs cond times, the else region 1 - cond times.
  if (failed(lowerRegion(branch.getThenRegion(), *cond))) return failure();
  return lowerRegion(branch.getElseRegion(), Expr(1) - *cond);
}

} // namespace chipless::sched
