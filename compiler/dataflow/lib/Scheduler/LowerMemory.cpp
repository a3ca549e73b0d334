//===- LowerMemory.cpp - ktdp.load and ktdp.store to DMA descriptors ------===//
//
// Part of chipless. See Lowering.h and MemoryLowering.h. A load or store goes through an
// access tile on a memory view (or a distributed view of several); the tile is cut into
// pieces, one per partition it touches (MemoryViews.cpp). Every piece becomes DMA
// descriptors between the partition's global memory and the value's buffer: runs of
// contiguous bytes repeated over up to three strided dimensions (more become loops on the
// DMA engine). Whole, aligned sticks use dma.load / dma.store; anything else the
// byte-granular dma.loadb / dma.storeb. Gathers and scatters are in LowerIndirect.cpp.
//
//===----------------------------------------------------------------------===//

#include "MemoryLowering.h"
#include "dataflow/Dialect/Dfir/DfirOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>
#include <functional>

using namespace mlir;

namespace chipless::sched {

namespace {

/// The byte range a piece touches in memory: [lo, hi).
std::pair<Expr, Expr> memRange(const Piece& p) {
  Expr lo = p.mem, hi = p.mem + p.run;
  for (const DmaDim& d : p.dims) {
    Expr span = (d.count - Expr(1)) * d.mem;
    if (d.mem.isConst() && d.mem.constant() < 0) // launch strides are sizes: not negative
      lo = lo + span;
    else
      hi = hi + span;
  }
  return {lo, hi};
}

} // namespace

LogicalResult MemoryLowering::transfer(Operation* op, bool load, const std::vector<Piece>& ps,
                                       const TVal& value) {
  const int64_t stickBytes = l_.stick();
  const int group = l_.newGroup();
  for (const Piece& p : ps) {
    auto aligned = [&](const Expr& e) {
      return e.isConst() ? e.constant() % stickBytes == 0
                         : (e.alignment() == 0 || e.alignment() % stickBytes == 0);
    };
    bool whole = !p.dynamic && p.run.isConst() && p.run.constant() % stickBytes == 0 &&
                 aligned(p.sp) && aligned(p.mem);
    for (const DmaDim& d : p.dims) whole &= aligned(d.mem) && d.sp % stickBytes == 0;
    std::string text = std::string(load ? (whole ? "dma.load" : "dma.loadb")
                                        : (whole ? "dma.store" : "dma.storeb")) +
                       " " + p.arg + "+" + p.mem.str() + " <-> buf" + std::to_string(value.buffer) +
                       "+" + p.sp.str() + " run " + p.run.str();
    for (const DmaDim& d : p.dims)
      text += " x" + d.count.str() + "(" + d.mem.str() + "," + std::to_string(d.sp) + ")";
    Step& s = l_.addStep(load ? Engines::dmaIn() : Engines::dmaOut(), op->getLoc(), text);
    s.async = true;
    s.group = group;
    s.accesses.push_back(Lowering::scratch(value.buffer, p.spLo, p.spHi - p.spLo, load));
    auto [mlo, mhi] = memRange(p);
    Access g;
    g.space = Access::Space::Global;
    g.arg = p.arg;
    g.lo = mlo;
    g.hi = mhi;
    g.write = !load;
    s.accesses.push_back(g);
    const int buffer = value.buffer;
    s.emit = [p, load, whole, buffer](ProgramWriter& w, int done) {
      // Up to three dimensions in the descriptor; outer ones become loops.
      std::vector<DmaDim> inner(p.dims.begin(),
                                p.dims.begin() + std::min<size_t>(3, p.dims.size()));
      std::vector<DmaDim> outer(p.dims.begin() + static_cast<long>(inner.size()), p.dims.end());
      std::function<void(size_t, Expr, Expr)> nest = [&](size_t k, Expr memOff, Expr spOff) {
        if (k < outer.size()) {
          const DmaDim& d = outer[outer.size() - 1 - k];
          auto loop = w.b.create<scf::ForOp>(w.loc, w.c(0), w.get(d.count), w.c(1));
          OpBuilder::InsertionGuard guard(w.b);
          w.b.setInsertionPoint(loop.getBody()->getTerminator());
          int var = -1000 - static_cast<int>(k);
          w.vars[var] = loop.getInductionVar();
          nest(k + 1, memOff + Expr::var(var) * d.mem, spOff + Expr::var(var) * Expr(d.sp));
          w.vars.erase(var);
          return;
        }
        Value sp = w.get(w.addr(buffer, spOff));
        Value mem = w.get(Expr::sym(p.arg) + memOff);
        Value bytes = w.get(p.run);
        Value n[3] = {}, ms[3] = {}, ss[3] = {};
        for (size_t i = 0; i < inner.size(); ++i) {
          n[i] = w.get(inner[i].count);
          ms[i] = w.get(inner[i].mem);
          ss[i] = w.c(inner[i].sp);
        }
        Value doneV = done >= 0 ? w.c(done) : Value();
        if (load && whole)
          w.b.create<dfir::DmaLoadOp>(w.loc, sp, mem, bytes, n[0], ms[0], ss[0], n[1], ms[1], ss[1],
                                      n[2], ms[2], ss[2], doneV);
        else if (load)
          w.b.create<dfir::DmaLoadBytesOp>(w.loc, sp, mem, bytes, n[0], ms[0], ss[0], n[1], ms[1],
                                           ss[1], n[2], ms[2], ss[2], doneV);
        else if (whole)
          w.b.create<dfir::DmaStoreOp>(w.loc, sp, mem, bytes, n[0], ms[0], ss[0], n[1], ms[1],
                                       ss[1], n[2], ms[2], ss[2], doneV);
        else
          w.b.create<dfir::DmaStoreBytesOp>(w.loc, sp, mem, bytes, n[0], ms[0], ss[0], n[1], ms[1],
                                            ss[1], n[2], ms[2], ss[2], doneV);
      };
      // Descriptors in loops each signal `done`; the step takes all but the last token.
      if (done >= 0 && !outer.empty()) {
        Expr total(1);
        for (const DmaDim& d : outer) total = total * d.count;
        // With a trip count that may be zero, a last empty descriptor carries the token.
        nest(0, p.mem, p.sp);
        auto loop = w.b.create<scf::ForOp>(w.loc, w.c(0), w.get(total), w.c(1));
        {
          OpBuilder::InsertionGuard guard(w.b);
          w.b.setInsertionPoint(loop.getBody()->getTerminator());
          w.b.create<dfir::TokenWaitOp>(w.loc, w.c(done));
        }
        w.b.create<dfir::TokenSendOp>(w.loc, w.c(done), Value());
        return;
      }
      nest(0, p.mem, p.sp);
    };
  }
  return success();
}

//===----------------------------------------------------------------------===//
// ktdp.load and ktdp.store
//===----------------------------------------------------------------------===//

namespace {

/// Whether a transfer may reach past the end of a view sized at launch.
bool anyMasked(const std::vector<Piece>& pieces) {
  return llvm::any_of(pieces, [](const Piece& p) { return p.masked; });
}

/// The value padding lanes of a loaded tile should hold for what reads it: the identity
/// of a reduction over it, 0 otherwise.
std::optional<double> padFor(Value loaded) {
  SmallVector<Value> work = {loaded};
  std::optional<double> pad;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    for (Operation* user : v.getUsers()) {
      if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp, tensor::CastOp>(user)) {
        work.push_back(user->getResult(0));
        continue;
      }
      if (auto reduce = dyn_cast<linalg::ReduceOp>(user)) {
        Block& body = reduce.getCombiner().front();
        for (Operation& op : body.without_terminator()) {
          if (isa<arith::MaximumFOp, arith::MaxNumFOp>(op)) return -INFINITY;
          if (isa<arith::MinimumFOp, arith::MinNumFOp>(op)) return INFINITY;
          if (auto cmp = dyn_cast<arith::CmpFOp>(op)) {
            auto p = cmp.getPredicate();
            bool greater = p == arith::CmpFPredicate::OGT || p == arith::CmpFPredicate::OGE ||
                           p == arith::CmpFPredicate::UGT || p == arith::CmpFPredicate::UGE;
            // select(in > out, in, out) is max; the operand order decides.
            return greater ? -INFINITY : INFINITY;
          }
        }
        pad = 0.0;
        continue;
      }
      pad = 0.0;
    }
  }
  return pad.value_or(0.0);
}

} // namespace

/// A tile too large for the scratchpad that is only loaded to be stored again is copied in
/// chunks of its outer dimensions, one loop iteration each (strip-mining); the chunk
/// size comes from the planning budget.
FailureOr<bool> Lowering::copyInChunks(Operation* op) {
  auto load = cast<ktdp::LoadOp>(op);
  auto type = cast<RankedTensorType>(load.getResult().getType());
  std::vector<int64_t> shape(type.getShape().begin(), type.getShape().end());
  Type elem = type.getElementType();
  const int64_t threshold = arch_.planningScratchpadBytes() / 4;
  if (shape.size() < 2 || denseBytes(shape, elem) <= threshold) return false;
  if (!load.getResult().hasOneUse()) return false;
  auto store = dyn_cast<ktdp::StoreOp>(*load.getResult().getUsers().begin());
  if (!store || store->getBlock() != op->getBlock()) return false;
  // The first dimension k where a chunk [1.., c, d(k+1)..] with c dividing d(k) fits.
  size_t k = 0;
  int64_t c = 0;
  for (; k < shape.size(); ++k) {
    for (int64_t cand = shape[k]; cand >= 1; --cand) {
      if (shape[k] % cand != 0) continue;
      std::vector<int64_t> chunk(shape.size(), 1);
      chunk[k] = cand;
      for (size_t j = k + 1; j < shape.size(); ++j) chunk[j] = shape[j];
      if (denseBytes(chunk, elem) <= threshold) {
        c = cand;
        break;
      }
    }
    if (c) break;
  }
  if (!c) return false;
  std::vector<int64_t> chunkShape(shape.size(), 1);
  chunkShape[k] = c;
  for (size_t j = k + 1; j < shape.size(); ++j) chunkShape[j] = shape[j];
  // Loops over dimensions 0..k-1 and over the chunks of dimension k.
  Node* saved = current_;
  std::vector<Expr> start(shape.size(), Expr(0));
  for (size_t j = 0; j <= k; ++j) {
    int64_t trips = j < k ? shape[j] : shape[j] / c;
    if (trips == 1) continue;
    auto node = std::make_unique<Node>();
    node->kind = Node::Kind::Loop;
    node->loop = nextLoop_++;
    node->lb = Expr(0);
    node->ub = Expr(trips);
    node->stride = Expr(1);
    node->text = "chunks of a copy";
    out_.loopRanges[node->loop] = Range{0, trips - 1};
    start[j] = Expr::var(node->loop) * Expr(j < k ? 1 : c);
    current_->body.push_back(std::move(node));
    current_ = current_->body.back().get();
  }
  TVal chunk = newDense(chunkShape, elem, "copy chunk");
  MemoryLowering m(*this);
  auto move = [&](Operation* o, Value tile, bool isLoad) -> LogicalResult {
    if (auto ind = tile.getDefiningOp<ktdp::ConstructIndirectAccessTileOp>())
      return m.indirect(o, isLoad, ind, chunk, start);
    auto ps = m.pieces(o, tile, chunk, start);
    if (failed(ps)) return failure();
    // A masked load leaves what the last chunk left past the view, which is fine: the
    // store of the chunk writes nothing there either.
    return m.transfer(o, isLoad, *ps, chunk);
  };
  if (failed(move(op, load.getAccessTile(), true)) ||
      failed(move(store, store.getAccessTile(), false)))
    return failure();
  current_ = saved;
  handled_.insert(store);
  return true;
}

LogicalResult Lowering::lowerLoad(Operation* op) {
  auto load = cast<ktdp::LoadOp>(op);
  auto type = cast<RankedTensorType>(load.getResult().getType());
  auto own =
      ownScratchpadBlock(op, load.getAccessTile(), type.getShape(), type.getElementType(), true);
  if (failed(own)) return failure();
  if (*own) {
    bind(load.getResult(), **own);
    return success();
  }
  auto chunked = copyInChunks(op);
  if (failed(chunked)) return failure();
  if (*chunked) return success();
  TVal t = newDense(type.getShape(), type.getElementType(), "ktdp.load");
  MemoryLowering m(*this);
  if (auto ind = load.getAccessTile().getDefiningOp<ktdp::ConstructIndirectAccessTileOp>()) {
    if (failed(m.indirect(op, true, ind, t))) return failure();
    bind(load.getResult(), t);
    return success();
  }
  if (failed(loadInChunks(op, t))) return failure();
  bind(load.getResult(), t);
  return success();
}

LogicalResult Lowering::loadWhole(Operation* op, TVal& t) {
  auto load = cast<ktdp::LoadOp>(op);
  auto type = cast<RankedTensorType>(load.getResult().getType());
  MemoryLowering m(*this);
  auto ps = m.pieces(op, load.getAccessTile(), t);
  if (failed(ps)) return failure();
  // Rows that end inside a stick: the rest of the stick holds a known value, so that
  // reductions and lane broadcasts over the row stay exact. A tile clamped to a view sized
  // at launch (masked) holds that value where it reaches past the view, too.
  int64_t last = type.getRank() == 0 ? 1 : type.getShape().back();
  const bool masked = llvm::any_of(*ps, [](const Piece& p) { return p.masked; });
  if (last % lanes(t.elem) != 0 || masked) {
    std::optional<double> pad = padFor(load.getResult());
    Scalar s;
    s.value = *pad;
    TVal whole = t;
    if (failed(fill(whole, s, op->getLoc()))) return failure();
    t.pad = pad;
  }
  return m.transfer(op, true, *ps, t);
}

LogicalResult Lowering::moveChunk(Operation* op, bool load, const TVal& chunk,
                                  ArrayRef<Expr> start) {
  Value tile =
      load ? cast<ktdp::LoadOp>(op).getAccessTile() : cast<ktdp::StoreOp>(op).getAccessTile();
  MemoryLowering m(*this);
  if (auto ind = tile.getDefiningOp<ktdp::ConstructIndirectAccessTileOp>())
    return m.indirect(op, load, ind, chunk, start);
  auto ps = m.pieces(op, tile, chunk, start);
  if (failed(ps)) return failure();
  if (load && anyMasked(*ps)) {
    // Each chunk of a tile that may reach past the view holds the tile's padding value
    // there, as a whole load does (loadWhole): the chunk's rows first take that value.
    Scalar pad;
    pad.value = *padFor(cast<ktdp::LoadOp>(op).getResult());
    if (failed(fill(chunk, pad, op->getLoc()))) return failure();
  }
  return m.transfer(op, load, *ps, chunk);
}

LogicalResult Lowering::lowerStore(Operation* op) {
  auto store = cast<ktdp::StoreOp>(op);
  auto v = value(store.getValue());
  if (failed(v)) return failure();
  TVal t = *v;
  if (t.kind == TVal::Kind::Uniform) {
    auto m = materialize(t, op->getLoc(), "stored value");
    if (failed(m)) return failure();
    t = *m;
  }
  auto own = ownScratchpadBlock(op, store.getAccessTile(), t.shape, t.elem, false);
  if (failed(own)) return failure();
  if (*own) return copyInto(t, **own, op->getLoc());
  MemoryLowering m(*this);
  if (auto ind = store.getAccessTile().getDefiningOp<ktdp::ConstructIndirectAccessTileOp>()) {
    if (t.sparse || t.strides.empty() || t.strides.back() != esize(t.elem))
      return op->emitOpError("scatters a value that is not laid out in whole rows");
    return m.indirect(op, false, ind, t);
  }
  auto ps = m.pieces(op, store.getAccessTile(), t);
  if (failed(ps)) return failure();
  return m.transfer(op, false, *ps, t);
}

} // namespace chipless::sched
