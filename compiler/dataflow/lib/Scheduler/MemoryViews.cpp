//===- MemoryViews.cpp - memory views and access tiles to DMA pieces ------===//
//
// Part of chipless. See MemoryLowering.h. A memory view is a tensor argument (or a
// constant address) plus an element offset and strides; a distributed view, the boxes of
// its partitions. An access tile on a view becomes one piece per partition it touches:
// the byte addresses of its first run on both sides, the run length and the strided
// dimensions around it (routed at run time when the tile's position is only known then).
//
//===----------------------------------------------------------------------===//

#include "AffineToExpr.h"
#include "MemoryLowering.h"
#include "ktir/Dialect/Ktdp/KtdpTileSets.h"

using namespace mlir;

namespace chipless::sched {

FailureOr<ViewDesc> MemoryLowering::view(Value v, bool partition) {
  Operation* def = v.getDefiningOp();
  if (auto dist = dyn_cast_or_null<ktdp::ConstructDistributedMemoryViewOp>(def)) {
    ViewDesc d;
    d.distributed = true;
    for (Value p : dist.getPartitions()) {
      auto part = view(p, true);
      if (failed(part)) return failure();
      for (ViewPart& r : part->parts) {
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
  ViewPart r;
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
  // Sizes known only at launch. A tile may reach past one unless the size is a multiple of
  // every tile extent at an aligned start (checked per access in pieces()).
  for (OpFoldResult s : mv.getMixedSizes()) {
    std::optional<Expr> size;
    if (auto v = dyn_cast<Value>(s)) {
      auto e = l_.index(v);
      if (failed(e)) return failure();
      if (!e->isConst()) size = *e;
    }
    r.launchSizes.push_back(size);
  }
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

/// Whether a tile of `extent` elements from `start` may reach past `size`, a view size only
/// known at launch: unless the size is a multiple of the extent (a launch scalar's
/// multiple_of, or a multiple of it) and the start a multiple of it too, so that a tile is
/// either wholly inside or wholly outside (outside, its addresses fail at run time, naming
/// the engine and the address).
bool MemoryLowering::mayReachPast(const Expr& size, const Expr& start, int64_t extent) const {
  if (extent <= 1) return false;
  int64_t multiple = 0; // what the size is known to be a multiple of
  if (size.constant() == 0 && size.terms().size() == 1 &&
      size.terms()[0].first->kind == Atom::Kind::Sym) {
    for (const ScalarArgument& s : l_.args().scalars)
      if (s.name == size.terms()[0].first->sym)
        multiple = s.multipleOf * std::abs(size.terms()[0].second);
  }
  if (multiple == 0 || multiple % extent != 0) return true;
  for (const auto& [atom, coef] : start.terms()) {
    bool aligned = coef % extent == 0;
    if (!aligned && atom->kind == Atom::Kind::Sym)
      for (const ScalarArgument& s : l_.args().scalars)
        if (s.name == atom->sym && (s.multipleOf * coef) % extent == 0) aligned = true;
    if (!aligned) return true;
  }
  return start.constant() % extent != 0;
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
  for (const ViewPart& r : desc->parts) {
    // The tile's box in view coordinates, intersected with the partition: [a, a + count)
    // in tensor coordinates, from view coordinate `first` of the partition.
    std::vector<Expr> a(rank), count(rank), first(rank);
    bool empty = false, dynamic = false, masked = false;
    for (unsigned j = 0; j < rank; ++j) {
      unsigned v = perm[j];
      Expr start = base[v] + Expr(lo[v]);
      if (!desc->distributed) {
        a[j] = Expr(0);
        count[j] = Expr(ext[v]);
        first[v] = start;
        if (v < r.launchSizes.size() && r.launchSizes[v] &&
            mayReachPast(*r.launchSizes[v], start, ext[v])) {
          // The view's size is a launch value the tile may reach past: the elements from
          // it on are left out (a load leaves the tile's padding value there, a store does
          // not write them), as ktir-cpu and Triton's masked accesses do.
          const Expr& size = *r.launchSizes[v];
          count[j] = max(min(Expr(ext[v]), size - start), Expr(0));
          dynamic = masked = true;
        }
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
    p.masked = masked;
    Expr elem = r.base;
    for (unsigned v = 0; v < rank; ++v) elem = elem + first[v] * r.strides[v];
    p.mem = elem * Expr(es);
    p.sp = Expr(value.offset);
    for (unsigned j = 0; j < rank; ++j) p.sp = p.sp + a[j] * Expr(value.strides[j]);
    // DMA dimensions, innermost first.
    std::vector<DmaDim> dims;
    for (unsigned j = rank; j-- > 0;) {
      if (count[j].isConst() && count[j].constant() == 1) continue;
      dims.push_back({count[j], r.strides[perm[j]] * Expr(es), value.strides[j]});
    }
    // The innermost run: contiguous on both sides, then merged outwards.
    p.run = Expr(es);
    size_t k = 0;
    bool first0 = true;
    while (k < dims.size() && p.run.isConst() && dims[k].mem == Expr(p.run.constant()) &&
           dims[k].sp == p.run.constant() && (first0 || dims[k].count.isConst())) {
      p.run = p.run * dims[k].count;
      first0 = false;
      ++k;
      if (!p.run.isConst()) break;
    }
    std::vector<DmaDim> rest(dims.begin() + static_cast<long>(k), dims.end());
    // Merge adjacent dimensions that chain.
    std::vector<DmaDim> merged;
    for (const DmaDim& d : rest) {
      if (!merged.empty() && merged.back().count.isConst() && d.count.isConst() &&
          d.mem == merged.back().mem * merged.back().count.constant() &&
          d.sp == merged.back().sp * merged.back().count.constant()) {
        merged.back().count = Expr(merged.back().count.constant() * d.count.constant());
        continue;
      }
      merged.push_back(d);
    }
    // A run whose length may be zero (DMA runs are never empty). Masked: the run is the
    // clamped length (at least one element) in a dimension of 0 or 1 runs, one descriptor
    // whatever the length. Routed between partitions: one element a run, the length a
    // dimension.
    if (!p.run.isConst() && masked) {
      Expr n = p.run;
      p.run = max(n, Expr(es));
      merged.insert(merged.begin(), DmaDim{min(floorDiv(n, Expr(es)), Expr(1)), es, es});
    } else if (!p.run.isConst()) {
      Expr n = p.run;
      p.run = Expr(es);
      merged.insert(merged.begin(), DmaDim{floorDiv(n, Expr(es)), es, es});
    }
    p.dims = merged;
    if (dynamic) {
      p.spLo = vlo;
      p.spHi = vhi;
    } else {
      p.spLo = p.sp.constant();
      p.spHi = p.sp.constant() + p.run.constant();
      for (const DmaDim& d : p.dims) {
        int64_t span = (d.count.constant() - 1) * d.sp;
        (span < 0 ? p.spLo : p.spHi) += span;
      }
    }
    out.push_back(p);
  }
  if (out.empty()) return op->emitOpError("accesses no element of its distributed view"), failure();
  return out;
}

} // namespace chipless::sched
