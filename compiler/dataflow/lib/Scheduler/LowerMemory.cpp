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

#include "AffineToExpr.h"
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

/// One DMA dimension: count (an expression when the tile's position in a distributed view
/// is only known at run time), memory stride and scratchpad stride in bytes.
struct Dim {
  Expr count;
  int64_t mem, sp;
};

/// A transfer between a partition and a value's buffer.
struct Piece {
  std::string arg;
  Expr mem;                   ///< byte offset in the argument of the first run
  Expr sp;                    ///< byte offset in the buffer of the first run
  Expr run;                   ///< bytes per run
  std::vector<Dim> dims;      ///< innermost first
  bool dynamic = false;       ///< routed at run time: counts may be 0
  int64_t spLo = 0, spHi = 0; ///< the buffer bytes it may touch
};

} // namespace

class MemoryLowering {
public:
  explicit MemoryLowering(Lowering& l) : l_(l) {}

  /// The memory behind view `v`; `partition`: it is a partition of a distributed view
  /// (whose coordinate box must be known when the kernel is compiled).
  FailureOr<ViewDesc> view(Value v, bool partition = false);
  /// The transfers of `value` through access tile `tile`; with `chunkStart`, `value` is the
  /// chunk of the tile's tensor that starts there (strip-mining).
  FailureOr<std::vector<Piece>> pieces(Operation* op, Value tile, const TVal& value,
                                       ArrayRef<Expr> chunkStart = {});
  /// A gather (load) or scatter (store) through an indirect access tile.
  LogicalResult indirect(Operation* op, bool load, ktdp::ConstructIndirectAccessTileOp tile,
                         const TVal& value, ArrayRef<Expr> chunkStart = {});
  LogicalResult transfer(Operation* op, bool load, const std::vector<Piece>& pieces,
                         const TVal& value);

private:
  Lowering& l_;
};

FailureOr<ViewDesc> MemoryLowering::view(Value v, bool partition) {
  Operation* def = v.getDefiningOp();
  if (auto dist = dyn_cast_or_null<ktdp::ConstructDistributedMemoryViewOp>(def)) {
    ViewDesc d;
    d.distributed = true;
    for (Value p : dist.getPartitions()) {
      auto part = view(p, true);
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
  // A view of tile N's scratchpad: its contents are a tensor argument the host provides
  // (docs/ktir.md); it is read from device memory, in the view's own layout.
  int where = -1;
  if (space && !space.isGlobal()) where = static_cast<int>(space.getOwnerTileId().value_or(-2));
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
    arg = l_.args().constantTensor(r.elem, base->constant(), where);
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
  if (auto setAttr = mv.getCoordinateSet()) {
    IntegerSet set = setAttr->getValue();
    // The set's symbols bind, left to right, to the view's dynamic sizes.
    if (set.getNumSymbols() > 0) {
      SmallVector<AffineExpr> syms;
      for (Value size : mv.getSizes()) {
        auto e = l_.index(size);
        if (failed(e)) return failure();
        if (!e->isConst()) {
          // Only partitions of a distributed view need their box.
          if (!partition) {
            syms.clear();
            break;
          }
          return mv.emitOpError("has a coordinate_set that depends on sizes not known when the "
                                "kernel is compiled; partitions are chosen at compile time (fix "
                                "the scalars with --const)"),
                 failure();
        }
        syms.push_back(getAffineConstantExpr(e->constant(), mv.getContext()));
      }
      if (syms.empty()) {
        ViewDesc d;
        d.parts.push_back(r);
        return d;
      }
      if (syms.size() != set.getNumSymbols())
        return mv.emitOpError("has a coordinate_set with ")
                   << set.getNumSymbols() << " symbols but " << syms.size() << " dynamic sizes",
               failure();
      SmallVector<AffineExpr> dims;
      for (unsigned d = 0; d < set.getNumDims(); ++d)
        dims.push_back(getAffineDimExpr(d, mv.getContext()));
      set = set.replaceDimsAndSymbols(dims, syms, set.getNumDims(), 0);
    }
    ktdp::SetBounds b = ktdp::getSetBounds(set);
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
                                                     const TVal& value, ArrayRef<Expr> chunkStart) {
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
    bool ok = true;
    ArrayRef<Expr> all(operands);
    base.push_back(applyAffine(r, all.take_front(baseMap.getNumDims()),
                               all.drop_front(baseMap.getNumDims()), ok));
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
  // A chunk of the tile (strip-mining): tensor dims [chunkStart, chunkStart + shape).
  std::vector<Expr> cstart(rank, Expr(0));
  for (unsigned j = 0; j < rank && j < chunkStart.size(); ++j) cstart[j] = chunkStart[j];
  for (unsigned j = 0; j < rank && j < value.shape.size(); ++j) {
    if (chunkStart.empty() && value.shape[j] != ext[perm[j]])
      return op->emitOpError("moves a tensor whose shape does not match its access tile"),
             failure();
    lo[perm[j]] = 0;
    base[perm[j]] = base[perm[j]] + Expr(*box.lower[perm[j]]) + cstart[j];
    ext[perm[j]] = value.shape[j];
  }

  const int64_t es = l_.esize(value.elem);
  // The bytes of the whole value in its buffer (what a run-time routed piece may touch).
  int64_t vlo = value.offset, vhi = value.offset + l_.stick();
  for (unsigned j = 0; j < rank && j < value.strides.size(); ++j) {
    int64_t span = (value.shape[j] - 1) * value.strides[j];
    (span < 0 ? vlo : vhi) += span;
  }
  vhi += es;
  std::vector<Piece> out;
  for (const Region& r : desc->parts) {
    // The tile's box in view coordinates, intersected with the partition: [a, a + count)
    // in tensor coordinates, from view coordinate `first` of the partition.
    std::vector<Expr> a(rank), count(rank), first(rank);
    bool empty = false, dynamic = false;
    for (unsigned j = 0; j < rank; ++j) {
      unsigned v = perm[j];
      Expr start = base[v] + Expr(lo[v]);
      if (!desc->distributed) {
        a[j] = Expr(0);
        count[j] = Expr(ext[v]);
        first[v] = start;
        continue;
      }
      Expr end = start + Expr(ext[v] - 1);
      Expr is = max(start, Expr(r.coordLo[v])), ie = min(end, Expr(r.coordHi[v]));
      if (is.isConst() && ie.isConst() && is.constant() > ie.constant()) {
        empty = true;
        break;
      }
      a[j] = is - start;
      count[j] = ie - is + Expr(1);
      if (!count[j].isConst()) {
        // Routed at run time: no elements when the tile misses the partition.
        dynamic = true;
        count[j] = max(count[j], Expr(0));
      }
      first[v] = is - Expr(r.coordLo[v]);
    }
    if (empty) continue;
    Piece p;
    p.arg = r.arg;
    p.dynamic = dynamic;
    Expr elem = r.base;
    for (unsigned v = 0; v < rank; ++v) elem = elem + first[v] * r.strides[v];
    p.mem = elem * Expr(es);
    p.sp = Expr(value.offset);
    for (unsigned j = 0; j < rank; ++j) p.sp = p.sp + a[j] * Expr(value.strides[j]);
    // DMA dimensions, innermost first.
    std::vector<Dim> dims;
    for (unsigned j = rank; j-- > 0;) {
      if (count[j].isConst() && count[j].constant() == 1) continue;
      auto ms = r.strides[perm[j]].asConst();
      if (!ms)
        return op->emitOpError("accesses a view whose strides are not known when the kernel "
                               "is compiled (fix the scalars with --const)"),
               failure();
      dims.push_back({count[j], *ms * es, value.strides[j]});
    }
    // The innermost run: contiguous on both sides, then merged outwards.
    p.run = Expr(es);
    size_t k = 0;
    bool first0 = true;
    while (k < dims.size() && p.run.isConst() && dims[k].mem == p.run.constant() &&
           dims[k].sp == p.run.constant() && (first0 || dims[k].count.isConst())) {
      p.run = p.run * dims[k].count;
      first0 = false;
      ++k;
      if (!p.run.isConst()) break;
    }
    std::vector<Dim> rest(dims.begin() + static_cast<long>(k), dims.end());
    // Merge adjacent dimensions that chain.
    std::vector<Dim> merged;
    for (const Dim& d : rest) {
      if (!merged.empty() && merged.back().count.isConst() && d.count.isConst() &&
          d.mem == merged.back().mem * merged.back().count.constant() &&
          d.sp == merged.back().sp * merged.back().count.constant()) {
        merged.back().count = Expr(merged.back().count.constant() * d.count.constant());
        continue;
      }
      merged.push_back(d);
    }
    // A run whose length may be zero: keep it one element long and count it as a
    // dimension of 0 or 1 instead (DMA runs are never empty).
    if (!p.run.isConst()) {
      Expr n = p.run;
      p.run = Expr(es);
      merged.insert(merged.begin(), Dim{floorDiv(n, Expr(es)), es, es});
    }
    p.dims = merged;
    if (dynamic) {
      p.spLo = vlo;
      p.spHi = vhi;
    } else {
      p.spLo = p.sp.constant();
      p.spHi = p.sp.constant() + p.run.constant();
      for (const Dim& d : p.dims) {
        int64_t span = (d.count.constant() - 1) * d.sp;
        (span < 0 ? p.spLo : p.spHi) += span;
      }
    }
    out.push_back(p);
  }
  if (out.empty()) return op->emitOpError("accesses no element of its distributed view"), failure();
  return out;
}

namespace {

/// The byte range a piece touches in memory: [lo, hi).
std::pair<Expr, Expr> memRange(const Piece& p) {
  Expr lo = p.mem, hi = p.mem + p.run;
  for (const Dim& d : p.dims) {
    Expr span = (d.count - Expr(1)) * Expr(d.mem);
    if (d.mem < 0)
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
    for (const Dim& d : p.dims) whole &= d.mem % stickBytes == 0 && d.sp % stickBytes == 0;
    std::string text = std::string(load ? (whole ? "dma.load" : "dma.loadb")
                                        : (whole ? "dma.store" : "dma.storeb")) +
                       " " + p.arg + "+" + p.mem.str() + " <-> buf" + std::to_string(value.buffer) +
                       "+" + p.sp.str() + " run " + p.run.str();
    for (const Dim& d : p.dims)
      text += " x" + d.count.str() + "(" + std::to_string(d.mem) + "," + std::to_string(d.sp) + ")";
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
      std::vector<Dim> inner(p.dims.begin(), p.dims.begin() + std::min<size_t>(3, p.dims.size()));
      std::vector<Dim> outer(p.dims.begin() + static_cast<long>(inner.size()), p.dims.end());
      std::function<void(size_t, Expr, Expr)> nest = [&](size_t k, Expr memOff, Expr spOff) {
        if (k < outer.size()) {
          const Dim& d = outer[outer.size() - 1 - k];
          auto loop = w.b.create<scf::ForOp>(w.loc, w.c(0), w.get(d.count), w.c(1));
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
        Value bytes = w.get(p.run);
        Value n[3] = {}, ms[3] = {}, ss[3] = {};
        for (size_t i = 0; i < inner.size(); ++i) {
          n[i] = w.get(inner[i].count);
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
      // Descriptors in loops each signal `done`; the step takes all but the last token.
      if (done >= 0 && !outer.empty()) {
        Expr total(1);
        for (const Dim& d : outer) total = total * d.count;
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
// Gathers and scatters
//===----------------------------------------------------------------------===//

namespace {

/// Result `e` of subscript map `m` over `dims`, its symbols read as 0.
Expr affineToExpr(AffineMap m, AffineExpr e, ArrayRef<Expr> dims) {
  bool ok = true;
  std::vector<Expr> zeros(m.getNumSymbols(), Expr(0));
  return applyAffine(e, dims, zeros, ok);
}

} // namespace

LogicalResult MemoryLowering::indirect(Operation* op, bool load,
                                       ktdp::ConstructIndirectAccessTileOp tile, const TVal& value,
                                       ArrayRef<Expr> chunkStart) {
  auto desc = view(tile.getView());
  if (failed(desc)) return failure();
  if (desc->distributed || desc->parts.size() != 1)
    return tile.emitOpError("gathers from a distributed view; not supported"), failure();
  const Region& r = desc->parts.front();
  if (!tile.getSymbolOperands().empty())
    return tile.emitOpError("has a variables_space_set with symbols; not supported"), failure();
  ktdp::SetBounds box = ktdp::getSetBounds(tile.getVariablesSpaceSet().getValue());
  if (!box.isBox)
    return tile.emitOpError("has a variables_space_set that is not a constant box"), failure();
  const unsigned nvars = static_cast<unsigned>(box.lower.size());
  std::vector<int64_t> vlo(nvars), vext(nvars);
  for (unsigned v = 0; v < nvars; ++v) {
    vlo[v] = *box.lower[v];
    vext[v] = *box.upper[v] - *box.lower[v] + 1;
  }
  AffineMap order = tile.getVariablesSpaceOrder();
  std::vector<unsigned> perm(nvars); // tensor dim j <- variable perm[j]
  for (unsigned j = 0; j < nvars; ++j) perm[j] = order.getDimPosition(j);
  // The chunk: tensor dims [chunkStart, chunkStart + value.shape).
  std::vector<Expr> cstart(nvars, Expr(0));
  for (unsigned j = 0; j < nvars && j < chunkStart.size(); ++j) cstart[j] = chunkStart[j];
  for (unsigned j = 0; j < nvars; ++j) {
    if (chunkStart.empty() && value.shape[j] != vext[perm[j]])
      return op->emitOpError("moves a tensor whose shape does not match its access tile"),
             failure();
    vext[perm[j]] = value.shape[j];
  }
  // Variables: one loop or descriptor dimension each (ids -3000 - v), from the chunk.
  std::vector<Expr> vars;
  std::map<int, Range> ranges;
  std::vector<Expr> varStart(nvars);
  for (unsigned v = 0; v < nvars; ++v) vars.push_back(Expr::var(-3000 - static_cast<int>(v)));
  for (unsigned j = 0; j < nvars; ++j) {
    unsigned v = perm[j];
    varStart[v] = Expr(vlo[v]) + cstart[j];
  }
  // Subscripts over (captured variables..., intermediate variables...).
  std::vector<Expr> dimsIn;
  for (Value c : tile.getCapturedVariables()) {
    auto e = l_.index(c);
    if (failed(e)) return failure();
    dimsIn.push_back(*e);
  }
  // Variable v runs over [varStart, varStart + vext): the subscripts see varStart + var.
  for (unsigned v = 0; v < nvars; ++v)
    dimsIn.push_back(vext[v] == 1 ? varStart[v] : varStart[v] + vars[v]);
  for (unsigned v = 0; v < nvars; ++v) ranges[-3000 - static_cast<int>(v)] = Range{0, vext[v] - 1};
  for (const auto& [k, rg] : l_.schedule().loopRanges) ranges[k] = rg;

  const int64_t es = l_.esize(value.elem);
  const unsigned rank = static_cast<unsigned>(r.strides.size());
  struct Sub {
    bool indirect = false;
    Expr direct;             ///< direct: the coordinate
    std::vector<Expr> index; ///< indirect: subscripts into the index view
    TVal indexValue;         ///< indirect: the index values in the scratchpad
    std::vector<int64_t> indexLo;
  };
  std::vector<Sub> subs(rank);
  auto maps = tile.getPerDimSubscriptMaps();
  for (unsigned d = 0; d < rank; ++d) {
    AffineMap m = cast<AffineMapAttr>(maps[d]).getValue();
    Sub& sub = subs[d];
    sub.indirect = tile.isIndirectDim(d);
    if (!sub.indirect) {
      sub.direct = affineToExpr(m, m.getResult(0), dimsIn);
      continue;
    }
    for (AffineExpr e : m.getResults()) sub.index.push_back(affineToExpr(m, e, dimsIn));
    // Load the part of the index view the subscripts reach.
    Value idxView = tile.getIndirectViewForDim(d);
    auto idesc = view(idxView);
    if (failed(idesc)) return failure();
    if (idesc->distributed)
      return tile.emitOpError("reads indices through a distributed view; not supported"), failure();
    Type ie = cast<MemRefType>(idxView.getType()).getElementType();
    if (!ie.isInteger(32))
      return tile.emitOpError("reads indices of type ")
                 << ie << "; engines read i32 indices (ld.scalar.i32)",
             failure();
    std::vector<int64_t> ilo, iext;
    for (const Expr& e : sub.index) {
      auto rg = rangeOf(e, ranges);
      if (!rg)
        return tile.emitOpError("has index subscripts whose range is not known when the kernel "
                                "is compiled"),
               failure();
      ilo.push_back(rg->lo);
      iext.push_back(rg->hi - rg->lo + 1);
    }
    sub.indexValue = l_.newDense(iext, ie, "gather indices");
    sub.indexLo = ilo;
    const Region& ir = idesc->parts.front();
    // One piece: the box [ilo, ilo + iext) of the index view, row-major.
    Piece p;
    p.arg = ir.arg;
    Expr elem = ir.base;
    for (size_t k = 0; k < ilo.size(); ++k) elem = elem + Expr(ilo[k]) * ir.strides[k];
    p.mem = elem * Expr(4);
    p.sp = Expr(sub.indexValue.offset);
    std::vector<Dim> dims;
    for (size_t k = ilo.size(); k-- > 0;) {
      if (iext[k] == 1) continue;
      auto ms = ir.strides[k].asConst();
      if (!ms)
        return tile.emitOpError("has an index view with strides not known at compile time"),
               failure();
      dims.push_back({Expr(iext[k]), *ms * 4, sub.indexValue.strides[k]});
    }
    p.run = Expr(4);
    size_t k = 0;
    while (k < dims.size() && dims[k].mem == p.run.constant() && dims[k].sp == p.run.constant()) {
      p.run = p.run * dims[k].count;
      ++k;
    }
    p.dims.assign(dims.begin() + static_cast<long>(k), dims.end());
    p.spLo = sub.indexValue.offset;
    p.spHi = sub.indexValue.offset +
             l_.schedule().buffers[static_cast<size_t>(sub.indexValue.buffer)].bytes;
    if (failed(transfer(op, true, {p}, sub.indexValue))) return failure();
  }

  // Which variables the indices depend on, and which only move a direct coordinate.
  std::vector<bool> inIndex(nvars, false);
  for (unsigned v = 0; v < nvars; ++v)
    for (const Sub& sub : subs)
      if (sub.indirect)
        for (const Expr& e : sub.index)
          inIndex[v] = inIndex[v] || e.uses(-3000 - static_cast<int>(v));
  // A variable that moves exactly one direct coordinate by one: a descriptor dimension
  // (memory stride = that dimension's stride); the innermost such one with stride 1 and a
  // contiguous buffer dimension becomes the run.
  auto directOnly = [&](unsigned v, unsigned& dimOut) -> bool {
    if (inIndex[v]) return false;
    int users = 0;
    for (unsigned d = 0; d < rank; ++d) {
      if (subs[d].indirect) continue;
      int64_t c = subs[d].direct.coefficient("v:" + std::to_string(-3000 - static_cast<int>(v)));
      bool uses = subs[d].direct.uses(-3000 - static_cast<int>(v));
      if (!uses) continue;
      if (c != 1) return false;
      // Only linearly (not inside a quotient or remainder).
      Expr rest = subs[d].direct - vars[v];
      if (rest.uses(-3000 - static_cast<int>(v))) return false;
      ++users;
      dimOut = d;
    }
    return users == 1;
  };
  struct GDim {
    unsigned var;
    int64_t count, mem, sp;
  };
  std::vector<GDim> descDims; // innermost first
  std::vector<unsigned> loopVars;
  int64_t run = es;
  bool runSet = false;
  for (unsigned j = nvars; j-- > 0;) {
    unsigned v = perm[j], d = 0;
    if (vext[v] == 1) continue;
    auto ms = directOnly(v, d) ? r.strides[d].asConst() : std::nullopt;
    if (ms && !runSet && j == nvars - 1 && *ms == 1 && value.strides[j] == es) {
      run = es * vext[v];
      runSet = true;
      continue;
    }
    runSet = true;
    if (ms && descDims.size() < 3) {
      descDims.push_back({v, vext[v], *ms * es, value.strides[j]});
      continue;
    }
    loopVars.insert(loopVars.begin(), v);
  }
  // Tensor dim of each variable.
  std::vector<unsigned> dimOfVar(nvars);
  for (unsigned j = 0; j < nvars; ++j) dimOfVar[perm[j]] = j;

  int64_t descriptors = 1;
  for (unsigned v : loopVars) descriptors *= vext[v];
  std::string text = std::string(load ? "gather " : "scatter ") + r.arg + ": " +
                     std::to_string(descriptors) + " descriptors of " + std::to_string(run) +
                     " bytes";
  Step& s = l_.addStep(load ? Engines::dmaIn() : Engines::dmaOut(), op->getLoc(), text);
  s.async = true;
  s.group = l_.newGroup();
  int64_t vbytes = l_.schedule().buffers[static_cast<size_t>(value.buffer)].bytes;
  s.accesses.push_back(Lowering::scratch(value.buffer, 0, vbytes, load));
  for (const Sub& sub : subs)
    if (sub.indirect)
      s.accesses.push_back(Lowering::scratch(
          sub.indexValue.buffer, 0,
          l_.schedule().buffers[static_cast<size_t>(sub.indexValue.buffer)].bytes, false));
  Access g;
  g.space = Access::Space::Global;
  g.arg = r.arg;
  g.lo = Expr(0);
  g.hi = Expr(int64_t(1) << 50); // anywhere in the argument
  g.write = !load;
  s.accesses.push_back(g);
  const std::string arg = r.arg;
  const int vbuf = value.buffer;
  const int64_t voff = value.offset;
  std::vector<int64_t> vstrides = value.strides;
  std::vector<Expr> strides = r.strides;
  Expr rbase = r.base;
  s.emit = [=](ProgramWriter& w, int done) {
    std::function<void(size_t)> nest = [&](size_t k) {
      if (k < loopVars.size()) {
        unsigned v = loopVars[k];
        auto loop = w.b.create<scf::ForOp>(w.loc, w.c(0), w.c(vext[v]), w.c(1));
        OpBuilder::InsertionGuard guard(w.b);
        w.b.setInsertionPoint(loop.getBody()->getTerminator());
        w.vars[-3000 - static_cast<int>(v)] = loop.getInductionVar();
        nest(k + 1);
        w.vars.erase(-3000 - static_cast<int>(v));
        return;
      }
      // Variables in the descriptor start at 0 here.
      std::vector<std::pair<std::string, Expr>> zero;
      for (const GDim& gd : descDims)
        zero.push_back({"v:" + std::to_string(-3000 - static_cast<int>(gd.var)), Expr(0)});
      if (run != es) {
        unsigned vin = perm[nvars - 1];
        zero.push_back({"v:" + std::to_string(-3000 - static_cast<int>(vin)), Expr(0)});
      }
      auto at0 = [&](Expr e) {
        for (const auto& [key, val] : zero) e = e.substitute(key, val);
        return e;
      };
      Expr elem = rbase;
      for (unsigned d = 0; d < rank; ++d) {
        const Sub& sub = subs[d];
        Expr coord;
        if (sub.indirect) {
          Expr addr = Expr(sub.indexValue.offset);
          for (size_t i = 0; i < sub.index.size(); ++i)
            addr =
                addr + (at0(sub.index[i]) - Expr(sub.indexLo[i])) * Expr(sub.indexValue.strides[i]);
          Value idx = w.b.create<dfir::LdScalarOp>(w.loc, w.b.getI32Type(),
                                                   w.get(w.addr(sub.indexValue.buffer, addr)));
          int id = -4000 - static_cast<int>(d);
          w.vars[id] = idx;
          coord = Expr::var(id);
        } else {
          coord = at0(sub.direct);
        }
        elem = elem + coord * strides[d];
      }
      Expr sp(voff);
      for (unsigned v : loopVars)
        sp = sp + Expr::var(-3000 - static_cast<int>(v)) * Expr(vstrides[dimOfVar[v]]);
      Value spv = w.get(w.addr(vbuf, sp));
      Value mem = w.get(Expr::sym(arg) + elem * Expr(es));
      Value n[3] = {}, ms[3] = {}, ss[3] = {};
      for (size_t i = 0; i < descDims.size(); ++i) {
        n[i] = w.c(descDims[i].count);
        ms[i] = w.c(descDims[i].mem);
        ss[i] = w.c(descDims[i].sp);
      }
      Value doneV = done >= 0 ? w.c(done) : Value();
      if (load)
        w.b.create<dfir::DmaLoadBytesOp>(w.loc, spv, mem, w.c(run), n[0], ms[0], ss[0], n[1], ms[1],
                                         ss[1], n[2], ms[2], ss[2], doneV);
      else
        w.b.create<dfir::DmaStoreBytesOp>(w.loc, spv, mem, w.c(run), n[0], ms[0], ss[0], n[1],
                                          ms[1], ss[1], n[2], ms[2], ss[2], doneV);
      for (unsigned d = 0; d < rank; ++d) w.vars.erase(-4000 - static_cast<int>(d));
    };
    nest(0);
    if (done >= 0 && descriptors > 1) {
      // Every descriptor signalled `done`: take them all, leave one for the step's waiter.
      auto loop = w.b.create<scf::ForOp>(w.loc, w.c(0), w.c(descriptors), w.c(1));
      {
        OpBuilder::InsertionGuard guard(w.b);
        w.b.setInsertionPoint(loop.getBody()->getTerminator());
        w.b.create<dfir::TokenWaitOp>(w.loc, w.c(done));
      }
      w.b.create<dfir::TokenSendOp>(w.loc, w.c(done), Value());
    }
  };
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
