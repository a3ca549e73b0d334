//===- LowerIndirect.cpp - gathers and scatters through indirect tiles ----===//
//
// Part of chipless. See MemoryLowering.h. An indirect access tile reads some coordinates
// from index views: the part of each index view the subscripts reach is loaded into the
// scratchpad, and the engine reads the indices (ld.scalar.i32) to address one byte
// descriptor per combination of the variables that do not fit in a descriptor's strided
// dimensions.
//
//===----------------------------------------------------------------------===//

#include "AffineToExpr.h"
#include "MemoryLowering.h"
#include "dataflow/Dialect/Dfir/DfirOps.h"
#include "ktir/Dialect/Ktdp/KtdpTileSets.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <functional>
#include <map>

using namespace mlir;

namespace chipless::sched {

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
  const ViewPart& r = desc->parts.front();
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
    std::vector<Expr> indexLo; ///< where the loaded box starts in the index view
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
    if (ie.isInteger(64)) ie = IntegerType::get(ie.getContext(), 32); // stored as i32 (Kernel.cpp)
    if (!ie.isInteger(32))
      return tile.emitOpError("reads indices of type ")
                 << ie << "; engines read i32 or i64 indices (ld.scalar.i32)",
             failure();
    std::vector<Expr> ilo;
    std::vector<int64_t> iext;
    for (const Expr& e : sub.index) {
      if (auto rg = rangeOf(e, ranges)) {
        ilo.push_back(Expr(rg->lo));
        iext.push_back(rg->hi - rg->lo + 1);
        continue;
      }
      // A subscript that also moves with values known only when the tile runs (a loop
      // variable without constant bounds, a launch value): the box starts where the
      // variables of the tile are 0, and spans what they add.
      Expr base = e;
      for (unsigned v = 0; v < nvars; ++v)
        base = base.substitute("v:" + std::to_string(-3000 - static_cast<int>(v)), Expr(0));
      auto rg = rangeOf(e - base, ranges);
      if (!rg)
        return tile.emitOpError("has index subscripts whose range is not known when the kernel "
                                "is compiled"),
               failure();
      ilo.push_back(base + Expr(rg->lo));
      iext.push_back(rg->hi - rg->lo + 1);
    }
    sub.indexValue = l_.newDense(iext, ie, "gather indices");
    sub.indexLo = ilo;
    const ViewPart& ir = idesc->parts.front();
    // One piece: the box [ilo, ilo + iext) of the index view, row-major.
    Piece p;
    p.arg = ir.arg;
    Expr elem = ir.base;
    for (size_t k = 0; k < ilo.size(); ++k) elem = elem + ilo[k] * ir.strides[k];
    p.mem = elem * Expr(4);
    p.sp = Expr(sub.indexValue.offset);
    std::vector<DmaDim> dims;
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
    while (k < dims.size() && dims[k].mem == Expr(p.run.constant()) &&
           dims[k].sp == p.run.constant()) {
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
            addr = addr + (at0(sub.index[i]) - sub.indexLo[i]) * Expr(sub.indexValue.strides[i]);
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

} // namespace chipless::sched
