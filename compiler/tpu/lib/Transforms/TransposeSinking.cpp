//===- TransposeSinking.cpp - transposes moved past element-wise ops (part of tpu-decompose) ===//
//
// Part of chipless. See Common.h.
//
// A graph that holds its tensors in one layout and computes some ops in another changes
// layout back and forth: PyTorch's NCHW images around NHWC convolutions and poolings, with the
// ops between them (bias, batch norm, ReLU, a residual add) on NCHW. On the TPU each change
// that moves the lanes is a materialised transpose. Element-wise ops commute with transposes,
// so an element-wise linalg.generic whose full-size inputs are all transposes by one
// permutation (each read by it alone) is computed on the transposes' sources and its result
// transposed instead, where that transpose then meets one that undoes it; and a transpose
// undone by the next one is none. Between two convolutions no change of layout is left.
// Exact: only the order of the elements changes.
//
//===----------------------------------------------------------------------===//

#include "Common.h"
#include "mlir/IR/AffineMap.h"

#include "llvm/ADT/SmallPtrSet.h"

namespace chipless::tpuc {

using namespace mlir;

namespace {

/// Erases `op` and then the tensor.empty that was its init, when nothing reads either.
void eraseIfDead(Operation* op, IRRewriter& rw) {
  if (!op || !op->use_empty()) return;
  SmallVector<Operation*> inits;
  for (Value v : op->getOperands())
    if (auto e = v.getDefiningOp<tensor::EmptyOp>(); e && !llvm::is_contained(inits, e))
      inits.push_back(e);
  rw.eraseOp(op);
  for (Operation* e : inits)
    if (e->use_empty()) rw.eraseOp(e);
}

/// Whether `q` undoes `p`.
bool undoes(ArrayRef<int64_t> q, ArrayRef<int64_t> p) {
  for (size_t i = 0; i < q.size(); ++i)
    if (p[q[i]] != static_cast<int64_t>(i)) return false;
  return true;
}

/// transpose(transpose(x, p), q) as x when q undoes p. (Other pairs stay two: the compiler
/// materialises a transpose that moves the lanes only as a swap of the last two dimensions,
/// and the graphs make their changes of layout from such swaps and views.) True when it
/// rewrote.
bool foldPair(linalg::TransposeOp outer, IRRewriter& rw) {
  auto inner = outer.getInput().getDefiningOp<linalg::TransposeOp>();
  if (!inner) return false;
  if (!undoes(outer.getPermutation(), inner.getPermutation())) return false;
  Operation* outerInit = outer.getInit().getDefiningOp<tensor::EmptyOp>();
  rw.replaceOp(outer, inner.getInput());
  if (outerInit && outerInit->use_empty()) rw.eraseOp(outerInit);
  eraseIfDead(inner, rw);
  return true;
}

/// Whether `g` is element-wise in the way sinking needs: one output written in loop order, all
/// loops parallel, a body that reads neither its output nor its indices.
bool isElementWise(linalg::GenericOp g) {
  return g.getNumDpsInits() == 1 && g->getNumResults() == 1 &&
         g.getNumParallelLoops() == g.getNumLoops() &&
         g.getMatchingIndexingMap(g.getDpsInitOperand(0)).isIdentity() &&
         !g.payloadUsesValueFromOperand(g.getDpsInitOperand(0)) &&
         g.getBody()->getOps<linalg::IndexOp>().empty();
}

/// The value a broadcast `v` repeats and the map by which `map` (a reader's indices into `v`)
/// reads it: through linalg.broadcast and generics that only copy their one input.
std::pair<Value, AffineMap> broadcastSource(Value v, AffineMap map) {
  while (true) {
    if (auto b = v.getDefiningOp<linalg::BroadcastOp>()) {
      const unsigned rank = static_cast<unsigned>(b.getInit().getType().getRank());
      SmallVector<AffineExpr> kept;
      for (unsigned d = 0; d < rank; ++d)
        if (!llvm::is_contained(b.getDimensions(), static_cast<int64_t>(d)))
          kept.push_back(getAffineDimExpr(d, v.getContext()));
      map = AffineMap::get(rank, 0, kept, v.getContext()).compose(map);
      v = b.getInput();
      continue;
    }
    auto g = v.getDefiningOp<linalg::GenericOp>();
    if (!g || !isElementWise(g) || g.getNumDpsInputs() != 1) break;
    auto yield = cast<linalg::YieldOp>(g.getBody()->getTerminator());
    if (yield.getValues().front() != g.getBody()->getArgument(0)) break;
    map = g.getMatchingIndexingMap(g.getDpsInputOperand(0)).compose(map);
    v = g.getDpsInputOperand(0)->get();
  }
  return {v, map};
}

/// Whether `map` reads its operand's dimensions in order, each from one loop (a broadcast
/// the compiler reads as the graph form writes them: (d3), (d0, d1)).
bool readsInOrder(AffineMap map) {
  int64_t last = -1;
  for (AffineExpr e : map.getResults()) {
    auto d = dyn_cast<AffineDimExpr>(e);
    if (!d || static_cast<int64_t>(d.getPosition()) <= last) return false;
    last = d.getPosition();
  }
  return true;
}

/// What element-wise `g` reads once it runs on the sources of its transposes by `perm`: each
/// full-size input a transpose by `perm` (or `becoming`, which will be one) read by `g` alone,
/// replaced by its source read in loop order; each broadcast read through the permuted loops,
/// from what it repeats where that reads in order. Nullopt when `g` cannot sink so.
std::optional<SmallVector<std::pair<Value, AffineMap>>>
sunkInputs(linalg::GenericOp g, ArrayRef<int64_t> perm, OpOperand* becoming = nullptr) {
  if (!isElementWise(g)) return std::nullopt;
  MLIRContext* ctx = g.getContext();
  const unsigned rank = g.getNumLoops();
  // The old loops in terms of the new ones: old loop i runs over new loop perm[i].
  SmallVector<AffineExpr> oldInNew;
  for (int64_t i : perm) oldInNew.push_back(getAffineDimExpr(static_cast<unsigned>(i), ctx));
  const AffineMap substitute = AffineMap::get(rank, 0, oldInNew, ctx);
  SmallVector<std::pair<Value, AffineMap>> inputs;
  for (OpOperand* in : g.getDpsInputOperands()) {
    AffineMap map = g.getMatchingIndexingMap(in);
    if (map.isIdentity()) {
      if (in == becoming) {
        inputs.push_back({Value(), map});
        continue;
      }
      auto t = in->get().getDefiningOp<linalg::TransposeOp>();
      if (!t || !t->hasOneUse() || t.getPermutation() != perm) return std::nullopt;
      inputs.push_back({t.getInput(), map});
      continue;
    }
    AffineMap moved = map.compose(substitute);
    if (readsInOrder(moved)) {
      inputs.push_back({in->get(), moved});
      continue;
    }
    auto [source, sourceMap] = broadcastSource(in->get(), map);
    moved = sourceMap.compose(substitute);
    if (source == in->get() || !readsInOrder(moved)) return std::nullopt;
    inputs.push_back({source, moved});
  }
  return inputs;
}

/// The permutation of the first transpose `g` reads in full, or nullopt.
std::optional<SmallVector<int64_t>> transposeRead(linalg::GenericOp g) {
  for (OpOperand* in : g.getDpsInputOperands())
    if (g.getMatchingIndexingMap(in).isIdentity())
      if (auto t = in->get().getDefiningOp<linalg::TransposeOp>())
        return SmallVector<int64_t>(t.getPermutation());
  return std::nullopt;
}

/// Whether the transpose by `perm` that sinking would put after `g` meets one that undoes it:
/// `g`'s result goes, each value read once, through element-wise generics that can sink along
/// (their other full-size inputs transposes by `perm` too) to a transpose that undoes `perm`.
/// Only then does sinking remove work; elsewhere it would only move a view.
bool sinkingCancels(linalg::GenericOp g, ArrayRef<int64_t> perm) {
  Value v = g->getResult(0);
  for (int hops = 0; hops < 64; ++hops) {
    if (!v.hasOneUse()) return false;
    OpOperand& use = *v.getUses().begin();
    if (auto t = dyn_cast<linalg::TransposeOp>(use.getOwner()))
      return undoes(t.getPermutation(), perm);
    auto next = dyn_cast<linalg::GenericOp>(use.getOwner());
    if (!next || !next.getMatchingIndexingMap(&use).isIdentity() || !sunkInputs(next, perm, &use))
      return false;
    v = next->getResult(0);
  }
  return false;
}

/// Element-wise `g` of transposes by one permutation computed on their sources, its result
/// transposed by that permutation, where that transpose then cancels (sinkingCancels). True
/// when it rewrote.
bool sinkThrough(linalg::GenericOp g, IRRewriter& rw) {
  std::optional<SmallVector<int64_t>> perm = transposeRead(g);
  if (!perm) return false;
  std::optional<SmallVector<std::pair<Value, AffineMap>>> planned = sunkInputs(g, *perm);
  if (!planned || !sinkingCancels(g, *perm)) return false;
  MLIRContext* ctx = g.getContext();
  const unsigned rank = g.getNumLoops();
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  ArrayRef<int64_t> shape;
  for (auto& [value, map] : *planned) {
    inputs.push_back(value);
    maps.push_back(map);
    if (map.isIdentity()) shape = cast<RankedTensorType>(value.getType()).getShape();
  }
  maps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));
  SmallVector<Operation*> replaced;
  for (OpOperand* in : g.getDpsInputOperands())
    if (Operation* def = in->get().getDefiningOp()) replaced.push_back(def);
  auto resultType = cast<RankedTensorType>(g->getResult(0).getType());
  rw.setInsertionPoint(g);
  Value init = rw.create<tensor::EmptyOp>(g.getLoc(), shape, resultType.getElementType());
  auto sunk = rw.create<linalg::GenericOp>(g.getLoc(), TypeRange{init.getType()}, inputs,
                                           ValueRange{init}, maps, g.getIteratorTypesArray());
  rw.inlineRegionBefore(g.getRegion(), sunk.getRegion(), sunk.getRegion().end());
  auto back = rw.create<linalg::TransposeOp>(g.getLoc(), sunk->getResult(0),
                                             g.getDpsInitOperand(0)->get(), *perm);
  rw.replaceOp(g, back->getResults());
  // What only g read goes: its transposes, and broadcasts now read at their source.
  llvm::SmallPtrSet<Operation*, 8> erased;
  while (!replaced.empty()) {
    Operation* op = replaced.pop_back_val();
    if (erased.contains(op) || !op->use_empty() ||
        !isa<linalg::TransposeOp, linalg::BroadcastOp, linalg::GenericOp>(op))
      continue;
    for (Value v : op->getOperands())
      if (Operation* def = v.getDefiningOp(); def && !isa<tensor::EmptyOp>(def))
        replaced.push_back(def);
    erased.insert(op);
    eraseIfDead(op, rw);
  }
  return true;
}

/// One rewrite anywhere in `module`; false when none applies.
bool rewriteOnce(ModuleOp module, IRRewriter& rw) {
  bool done = false;
  module.walk([&](Operation* op) {
    if (auto g = dyn_cast<linalg::GenericOp>(op))
      done = sinkThrough(g, rw);
    else if (auto t = dyn_cast<linalg::TransposeOp>(op))
      done = foldPair(t, rw);
    return done ? WalkResult::interrupt() : WalkResult::advance();
  });
  return done;
}

} // namespace

void sinkTransposes(ModuleOp module) {
  IRRewriter rw(module.getContext());
  while (rewriteOnce(module, rw)) {
  }
}

} // namespace chipless::tpuc
