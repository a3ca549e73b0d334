//===- LowerMemory.cpp - ktdp.load and ktdp.store to DMA descriptors ------===//
//
// Part of chipless. See Lowering.h. A load or store goes through an access tile on a
// memory view (or a distributed view of several). The tile is cut into pieces, one per
// partition it touches; every piece becomes DMA descriptors between the partition's
// global memory and the value's buffer: runs of contiguous bytes repeated over up to three
// strided dimensions (more become loops on the DMA engine). Whole, aligned sticks use
// dma.load / dma.store; anything else the byte-granular dma.loadb / dma.storeb.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"
#include "dataflow/Dialect/Dfir/DfirOps.h"
#include "ktir/Dialect/Ktdp/KtdpOps.h"
#include "ktir/Dialect/Ktdp/KtdpTileSets.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace chipless::sched {

namespace {

/// The memory of one (partition) view.
struct Region {
  std::string arg; ///< tensor argument (device address symbol)
  Expr base;       ///< element offset of the view's origin in the argument
  std::vector<Expr> strides;
  std::vector<int64_t> coordLo, coordHi; ///< coordinate box (global coordinates), if any
  bool hasBox = false;
  Type elem;
};

struct ViewDesc {
  std::vector<Region> parts;
  bool distributed = false;
};

/// One DMA dimension: count, memory stride and scratchpad stride in bytes.
struct Dim {
  int64_t count;
  int64_t mem, sp;
};

/// A transfer between a partition and a value's buffer.
struct Piece {
  std::string arg;
  Expr mem;              ///< byte offset in the argument of the first run
  int64_t sp = 0;        ///< byte offset in the buffer of the first run
  int64_t run = 0;       ///< bytes per run
  std::vector<Dim> dims; ///< innermost first
};

} // namespace

class MemoryLowering {
public:
  explicit MemoryLowering(Lowering& l) : l_(l) {}

  FailureOr<ViewDesc> view(Value v);
  FailureOr<std::vector<Piece>> pieces(Operation* op, Value tile, const TVal& value);
  LogicalResult transfer(Operation* op, bool load, const std::vector<Piece>& pieces,
                         const TVal& value);

private:
  Lowering& l_;
};

FailureOr<ViewDesc> MemoryLowering::view(Value v) {
  Operation* def = v.getDefiningOp();
  if (auto dist = dyn_cast_or_null<ktdp::ConstructDistributedMemoryViewOp>(def)) {
    ViewDesc d;
    d.distributed = true;
    for (Value p : dist.getPartitions()) {
      auto part = view(p);
      if (failed(part)) return failure();
      for (Region& r : part->parts) {
        if (!r.hasBox)
          return dist.emitOpError("has a partition without a constant coordinate_set box; the "
                                  "scheduler routes accesses by the partitions' boxes");
        d.parts.push_back(r);
      }
    }
    return d;
  }
  auto mv = dyn_cast_or_null<ktdp::ConstructMemoryViewOp>(def);
  if (!mv) {
    emitError(v.getLoc()) << "memory views other than ktdp.construct_memory_view and "
                             "ktdp.construct_distributed_memory_view are not supported";
    return failure();
  }
  auto space = dyn_cast<ktdp::MemorySpaceAttrInterface>(mv.getMemorySpace());
  if (!space || !space.isGlobal())
    return mv.emitOpError("is a view of a tile's scratchpad (ct_local); loads and stores "
                          "through scratchpad views are not supported yet"),
           failure();
  Region r;
  r.elem = cast<MemRefType>(mv.getType()).getElementType();
  auto base = l_.index(mv.getBase());
  if (failed(base)) return failure();
  Expr rest = *base;
  const TensorArgument* arg = nullptr;
  for (const auto& [atom, coef] : base->terms()) {
    if (atom->kind != Atom::Kind::Sym || atom->sym.rfind("%arg", 0) != 0) continue;
    int n = std::stoi(atom->sym.substr(4));
    auto it = l_.args().pointerArg.find(n);
    if (it == l_.args().pointerArg.end())
      return mv.emitOpError("internal error: unknown pointer"), failure();
    arg = &l_.args().tensors[static_cast<size_t>(it->second)];
    rest = rest - Expr::sym(atom->sym);
  }
  if (!arg) {
    if (!base->isConst())
      return mv.emitOpError("has a base address that is neither a pointer argument plus an "
                            "offset nor a constant"),
             failure();
    arg = l_.args().constantTensor(r.elem, base->constant());
    if (!arg)
      return mv.emitOpError("internal error: no tensor argument holds this address"), failure();
    rest = Expr(base->constant() - arg->constLo);
  }
  r.arg = arg->name;
  r.base = rest;
  for (OpFoldResult s : mv.getMixedStrides()) {
    if (auto a = dyn_cast<Attribute>(s)) {
      r.strides.push_back(Expr(cast<IntegerAttr>(a).getInt()));
    } else {
      auto e = l_.index(cast<Value>(s));
      if (failed(e)) return failure();
      r.strides.push_back(*e);
    }
  }
  if (auto set = mv.getCoordinateSet()) {
    ktdp::SetBounds b = ktdp::getSetBounds(set->getValue());
    if (b.isBox) {
      r.hasBox = true;
      for (unsigned d = 0; d < b.lower.size(); ++d) {
        r.coordLo.push_back(*b.lower[d]);
        r.coordHi.push_back(*b.upper[d]);
      }
    }
  }
  ViewDesc d;
  d.parts.push_back(r);
  return d;
}

FailureOr<std::vector<Piece>> MemoryLowering::pieces(Operation* op, Value tileValue,
                                                     const TVal& value) {
  auto tile = tileValue.getDefiningOp<ktdp::ConstructAccessTileOp>();
  if (!tile) {
    if (tileValue.getDefiningOp<ktdp::ConstructIndirectAccessTileOp>())
      return op->emitOpError("goes through an indirect access tile; gathers and scatters "
                             "are not supported yet"),
             failure();
    return op->emitOpError("uses an access tile the scheduler does not know"), failure();
  }
  auto desc = view(tile.getView());
  if (failed(desc)) return failure();
  // Base coordinates.
  AffineMap baseMap = tile.getEffectiveBaseMap();
  SmallVector<Expr> operands;
  for (Value i : tile.getIndices()) {
    auto e = l_.index(i);
    if (failed(e)) return failure();
    operands.push_back(*e);
  }
  std::vector<Expr> base;
  for (AffineExpr r : baseMap.getResults()) {
    // The base map is affine over the indices (dims) and symbols.
    std::function<Expr(AffineExpr)> ev = [&](AffineExpr e) -> Expr {
      switch (e.getKind()) {
      case AffineExprKind::Constant:
        return Expr(cast<AffineConstantExpr>(e).getValue());
      case AffineExprKind::DimId:
        return operands[cast<AffineDimExpr>(e).getPosition()];
      case AffineExprKind::SymbolId:
        return operands[baseMap.getNumDims() + cast<AffineSymbolExpr>(e).getPosition()];
      default:
        break;
      }
      auto bin = cast<AffineBinaryOpExpr>(e);
      Expr a = ev(bin.getLHS()), b = ev(bin.getRHS());
      switch (e.getKind()) {
      case AffineExprKind::Add:
        return a + b;
      case AffineExprKind::Mul:
        return a * b;
      case AffineExprKind::FloorDiv:
        return floorDiv(a, b);
      case AffineExprKind::CeilDiv:
        return ceilDiv(a, b);
      default:
        return mod(a, b);
      }
    };
    base.push_back(ev(r));
  }
  ktdp::SetBounds box = ktdp::getSetBounds(tile.getAccessTileSet().getValue());
  if (!box.isBox || !tile.getSymbolOperands().empty())
    return tile.emitOpError("has an access_tile_set that is not a constant box; only "
                            "rectangular tiles are supported"),
           failure();
  const unsigned rank = static_cast<unsigned>(base.size());
  std::vector<int64_t> lo(rank), ext(rank);
  for (unsigned v = 0; v < rank; ++v) {
    lo[v] = *box.lower[v];
    ext[v] = *box.upper[v] - *box.lower[v] + 1;
  }
  AffineMap order = tile.getAccessTileOrder();
  std::vector<unsigned> perm(rank); // tensor dim j <- view dim perm[j]
  for (unsigned j = 0; j < rank; ++j) perm[j] = order.getDimPosition(j);
  for (unsigned j = 0; j < rank && j < value.shape.size(); ++j)
    if (value.shape[j] != ext[perm[j]])
      return op->emitOpError("moves a tensor whose shape does not match its access tile"),
             failure();

  const int64_t es = l_.esize(value.elem);
  std::vector<Piece> out;
  for (const Region& r : desc->parts) {
    // The tile's box in view coordinates, intersected with the partition.
    std::vector<int64_t> a(rank), b(rank); // tensor-dim sub-box [a, b)
    std::vector<Expr> first(rank);         // view coordinate of the sub-box's first element
    bool empty = false;
    for (unsigned j = 0; j < rank; ++j) {
      unsigned v = perm[j];
      Expr start = base[v] + Expr(lo[v]);
      if (desc->distributed) {
        if (!start.isConst())
          return op->emitOpError("accesses a distributed view at a position that is not known "
                                 "when the kernel is compiled; partitions are chosen at "
                                 "compile time (fix the scalars with --const)"),
                 failure();
        int64_t s = start.constant(), e = s + ext[v] - 1;
        int64_t is = std::max(s, r.coordLo[v]), ie = std::min(e, r.coordHi[v]);
        if (is > ie) {
          empty = true;
          break;
        }
        a[j] = is - s;
        b[j] = ie - s + 1;
        first[v] = Expr(is - r.coordLo[v]);
      } else {
        a[j] = 0;
        b[j] = ext[v];
        first[v] = start;
      }
    }
    if (empty) continue;
    Piece p;
    p.arg = r.arg;
    Expr elem = r.base;
    for (unsigned v = 0; v < rank; ++v) elem = elem + first[v] * r.strides[v];
    p.mem = elem * Expr(es);
    p.sp = value.offset;
    for (unsigned j = 0; j < rank; ++j) p.sp += a[j] * value.strides[j];
    // DMA dimensions, innermost first.
    std::vector<Dim> dims;
    for (unsigned j = rank; j-- > 0;) {
      int64_t count = b[j] - a[j];
      if (count == 1) continue;
      auto ms = r.strides[perm[j]].asConst();
      if (!ms)
        return op->emitOpError("accesses a view whose strides are not known when the kernel "
                               "is compiled (fix the scalars with --const)"),
               failure();
      dims.push_back({count, *ms * es, value.strides[j]});
    }
    // The innermost run: contiguous on both sides, then merged outwards.
    p.run = es;
    size_t k = 0;
    while (k < dims.size() && dims[k].mem == p.run && dims[k].sp == p.run) {
      p.run *= dims[k].count;
      ++k;
    }
    std::vector<Dim> rest(dims.begin() + static_cast<long>(k), dims.end());
    // Merge adjacent dimensions that chain.
    std::vector<Dim> merged;
    for (const Dim& d : rest) {
      if (!merged.empty() && d.mem == merged.back().mem * merged.back().count &&
          d.sp == merged.back().sp * merged.back().count) {
        merged.back().count *= d.count;
        continue;
      }
      merged.push_back(d);
    }
    p.dims = merged;
    out.push_back(p);
  }
  if (out.empty()) return op->emitOpError("accesses no element of its distributed view"), failure();
  return out;
}

namespace {

/// The byte range a piece touches in memory: [lo, hi).
std::pair<Expr, Expr> memRange(const Piece& p) {
  Expr lo = p.mem, hi = p.mem + Expr(p.run);
  for (const Dim& d : p.dims) {
    int64_t span = (d.count - 1) * d.mem;
    if (span < 0)
      lo = lo + Expr(span);
    else
      hi = hi + Expr(span);
  }
  return {lo, hi};
}

std::pair<int64_t, int64_t> spRange(const Piece& p) {
  int64_t lo = p.sp, hi = p.sp + p.run;
  for (const Dim& d : p.dims) {
    int64_t span = (d.count - 1) * d.sp;
    if (span < 0)
      lo += span;
    else
      hi += span;
  }
  return {lo, hi};
}

} // namespace

LogicalResult MemoryLowering::transfer(Operation* op, bool load, const std::vector<Piece>& ps,
                                       const TVal& value) {
  const int64_t stickBytes = l_.stick();
  const int group = l_.newGroup();
  for (const Piece& p : ps) {
    bool whole = p.run % stickBytes == 0 && p.sp % stickBytes == 0 &&
                 (p.mem.alignment() == 0 || p.mem.alignment() % stickBytes == 0);
    for (const Dim& d : p.dims) whole &= d.mem % stickBytes == 0 && d.sp % stickBytes == 0;
    std::string text = std::string(load ? (whole ? "dma.load" : "dma.loadb")
                                        : (whole ? "dma.store" : "dma.storeb")) +
                       " " + p.arg + "+" + p.mem.str() + " <-> buf" + std::to_string(value.buffer) +
                       "+" + std::to_string(p.sp) + " run " + std::to_string(p.run);
    for (const Dim& d : p.dims)
      text += " x" + std::to_string(d.count) + "(" + std::to_string(d.mem) + "," +
              std::to_string(d.sp) + ")";
    Step& s = l_.addStep(load ? Engines::dmaIn() : Engines::dmaOut(), op->getLoc(), text);
    s.async = true;
    s.group = group;
    auto [slo, shi] = spRange(p);
    s.accesses.push_back(Lowering::scratch(value.buffer, slo, shi - slo, load));
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
      std::vector<Dim> inner(p.dims.begin(), p.dims.begin() + std::min<size_t>(3, p.dims.size()));
      std::vector<Dim> outer(p.dims.begin() + static_cast<long>(inner.size()), p.dims.end());
      std::function<void(size_t, Expr, Expr)> nest = [&](size_t k, Expr memOff, Expr spOff) {
        if (k < outer.size()) {
          const Dim& d = outer[outer.size() - 1 - k];
          Value lb = w.c(0), ub = w.c(d.count), one = w.c(1);
          auto loop = w.b.create<scf::ForOp>(w.loc, lb, ub, one);
          OpBuilder::InsertionGuard guard(w.b);
          w.b.setInsertionPoint(loop.getBody()->getTerminator());
          int var = -1000 - static_cast<int>(k);
          w.vars[var] = loop.getInductionVar();
          nest(k + 1, memOff + Expr::var(var) * Expr(d.mem), spOff + Expr::var(var) * Expr(d.sp));
          w.vars.erase(var);
          return;
        }
        Value sp = w.get(w.addr(buffer, spOff));
        Value mem = w.get(Expr::sym(p.arg) + memOff);
        Value bytes = w.c(p.run);
        Value n[3] = {}, ms[3] = {}, ss[3] = {};
        for (size_t i = 0; i < inner.size(); ++i) {
          n[i] = w.c(inner[i].count);
          ms[i] = w.c(inner[i].mem);
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
      nest(0, p.mem, Expr(p.sp));
      // Descriptors in loops each signal `done`: all but one token are taken here, the
      // last one by whoever waits for the step.
      if (done >= 0 && !outer.empty()) {
        int64_t total = 1;
        for (const Dim& d : outer) total *= d.count;
        auto loop = w.b.create<scf::ForOp>(w.loc, w.c(0), w.c(total - 1), w.c(1));
        OpBuilder::InsertionGuard guard(w.b);
        w.b.setInsertionPoint(loop.getBody()->getTerminator());
        w.b.create<dfir::TokenWaitOp>(w.loc, w.c(done));
      }
    };
  }
  return success();
}

//===----------------------------------------------------------------------===//
// ktdp.load and ktdp.store
//===----------------------------------------------------------------------===//

namespace {

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

LogicalResult Lowering::lowerLoad(Operation* op) {
  auto load = cast<ktdp::LoadOp>(op);
  auto type = cast<RankedTensorType>(load.getResult().getType());
  TVal t = newDense(type.getShape(), type.getElementType(), "ktdp.load");
  MemoryLowering m(*this);
  auto ps = m.pieces(op, load.getAccessTile(), t);
  if (failed(ps)) return failure();
  // Rows that end inside a stick: the rest of the stick holds a known value, so that
  // reductions and lane broadcasts over the row stay exact.
  int64_t last = type.getRank() == 0 ? 1 : type.getShape().back();
  if (last % lanes(t.elem) != 0) {
    std::optional<double> pad = padFor(load.getResult());
    Scalar s;
    s.value = *pad;
    TVal whole = t;
    if (failed(fill(whole, s, op->getLoc()))) return failure();
    t.pad = pad;
  }
  if (failed(m.transfer(op, true, *ps, t))) return failure();
  bind(load.getResult(), t);
  return success();
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
  MemoryLowering m(*this);
  auto ps = m.pieces(op, store.getAccessTile(), t);
  if (failed(ps)) return failure();
  return m.transfer(op, false, *ps, t);
}

} // namespace chipless::sched
