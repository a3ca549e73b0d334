// The matmul phase of a unit: RHS panels loaded once (resident) or streamed through slots
// of VMEM, and the MXU folds over each panel's K chunks and column tiles.
#include "KernelEmitter.h"
#include "tpuc/Plan.h"

#include <set>

namespace chipless::tpuc::emitter {

std::vector<std::pair<int, int64_t>> KernelEmitter::residentSems() const {
  const int64_t groups = k_.matmul->groups;
  const int64_t nsem = std::min<int64_t>(groups, kMaxResidentSems);
  std::vector<std::pair<int, int64_t>> r;
  for (int64_t s = 0; s < nsem; ++s)
    r.push_back({kSemPanels + static_cast<int>(s), s + 1 < nsem ? 1 : groups - (nsem - 1)});
  return r;
}

int KernelEmitter::residentSem(int64_t group) const {
  return kSemPanels + static_cast<int>(std::min<int64_t>(
                          group, std::min<int64_t>(k_.matmul->groups, kMaxResidentSems) - 1));
}

int64_t KernelEmitter::groupTiles(int64_t g) const {
  const MatmulSpec& mm = *k_.matmul;
  return std::min(mm.mxus, mm.nTiles - g * mm.mxus);
}

void KernelEmitter::panelDma(int64_t j, const Val& batchOff, const Val& slotAddr, const Val& sem) {
  const MatmulSpec& mm = *k_.matmul;
  const int64_t es = esize(mm.dtype);
  const int64_t g = j / panelsPerGroup_, pk = j % panelsPerGroup_;
  const int64_t k0 = pk * p_.panelChunks * mm.kChunk;
  const int64_t kRows = std::min(p_.panelChunks * mm.kChunk, mm.k - k0);
  const int64_t n0 = g * mm.mxus * mm.nTile;
  const int64_t nCols = std::min(mm.mxus * mm.nTile, k_.n - n0);
  const int64_t align = arch_.dma.alignment_bytes;
  Val src = batchOff.plus(mm.rhs.offset);
  int64_t rows, bytes;
  if (mm.transposeRhs) {
    src = src.plus(n0 * mm.rhs.rowStride + k0 * es);
    rows = nCols;
    bytes = roundUp(kRows * es, align);
  } else {
    src = src.plus(k0 * mm.rhs.rowStride + n0 * es);
    rows = kRows;
    bytes = roundUp(nCols * es, align);
  }
  a_.op("dma.in dst=" + slotAddr.str() + ", src=" + symExpr(mm.rhs.symbol, src) +
        ", bytes=" + num(bytes) + ", rows=" + num(rows) + ", src_stride=" + num(mm.rhs.rowStride) +
        ", dst_stride=" + num(p_.panelRowBytes) + ", sem=" + sem.str());
}

void KernelEmitter::panelPrologue() {
  const MatmulSpec& mm = *k_.matmul;
  if (p_.rhsResident) {
    a_.comment("the whole RHS stays in VMEM: " + num(mm.groups) + " panels, loaded once");
    for (int64_t g = 0; g < mm.groups; ++g)
      panelDma(g, Val::constant(0), Val::constant(p_.panelOffset + g * p_.panelBytes),
               Val::constant(residentSem(g)));
    return;
  }
  a_.comment("RHS streamed in " + num(panels_) + " panels per unit through " + num(p_.panelSlots) +
             " slots");
  const Val batchOff = rhsBatched_ ? Val::of(sBnext_) : Val::constant(0);
  for (int64_t t = 0; t + 1 < p_.panelSlots; ++t)
    panelDma(t, batchOff, Val::constant(p_.panelOffset + t * p_.panelBytes),
             Val::constant(kSemPanels + t));
  a_.op("li " + sslot_ + ", 0");
}

void KernelEmitter::panelFolds(int64_t j, const Val& panelBase, const Val& foldSem,
                               bool lastInUnitOnly, const Geometry& g) {
  const MatmulSpec& mm = *k_.matmul;
  const int64_t es = esize(mm.dtype);
  const int64_t grp = j / panelsPerGroup_, pk = j % panelsPerGroup_;
  const int64_t c0 = pk * p_.panelChunks, c1 = std::min(mm.kChunks, c0 + p_.panelChunks);
  const int64_t tiles = groupTiles(grp);
  const std::string foldOp =
      std::string(mm.transposeRhs ? "mxu.matmul.nt." : "mxu.matmul.") + dtypeName(mm.dtype);
  // The weights of chunk i (local il) and tile t (local tl) of the panel.
  auto rhsOffset = [&](int64_t il, int64_t tl) {
    return mm.transposeRhs ? tl * mm.nTile * p_.panelRowBytes + il * mm.kChunk * es
                           : il * mm.kChunk * p_.panelRowBytes + tl * mm.nTile * es;
  };
  auto fold = [&](int64_t tl, int64_t i, const Val& lhs, const Val& rhs, bool signal) {
    const int64_t t = grp * mm.mxus + tl;
    const int64_t kk = std::min(mm.kChunk, mm.k - i * mm.kChunk);
    const int64_t nn = std::min(mm.nTile, k_.n - t * mm.nTile);
    std::string s = foldOp + " mxu=" + num(tl) + ", lhs=" + lhs.str() + ", rows=" + g.rows.str() +
                    ", k=" + num(kk) + ", lhs_stride=" + num(p_.lhsRowBytes) +
                    ", rhs=" + rhs.str() + ", n=" + num(nn) +
                    ", rhs_stride=" + num(p_.panelRowBytes) +
                    ", out=" + Val::of(shalf_, p_.accOffset + t * mm.nTile * 4).str() +
                    ", out_stride=" + num(p_.accRowBytes) + ", acc=" + (i > 0 ? "1" : "0");
    if (signal) s += ", sem=" + foldSem.str();
    a_.op(s);
  };
  const bool lastPanelOfGroup = c1 == mm.kChunks;
  // The last fold on MXU tl in the unit: the last chunk of the last group using that MXU.
  auto signals = [&](int64_t tl, int64_t i) {
    if (i != c1 - 1) return false;
    if (!lastInUnitOnly) return true;
    if (!lastPanelOfGroup) return false;
    // Later groups that use MXU tl?
    for (int64_t later = grp + 1; later < mm.groups; ++later)
      if (groupTiles(later) > tl) return false;
    return true;
  };
  // First chunk, middle chunks in a loop, last chunk (so the signalling folds are explicit).
  auto chunk = [&](int64_t i, const Val& lhs, const Val& rhs) {
    for (int64_t tl = 0; tl < tiles; ++tl)
      fold(tl, i, lhs, rhs.plus(rhsOffset(0, tl)), signals(tl, i));
  };
  const Val lhs0 = Val::of(shalf_, p_.lhsOffset);
  chunk(c0, lhs0.plus(c0 * mm.kChunk * es), panelBase.plus(rhsOffset(0, 0)));
  if (c1 - c0 > 2) {
    SReg sl(regs_), sr(regs_);
    a_.op("add " + sl.str() + ", " + shalf_ + ", " + num(p_.lhsOffset + (c0 + 1) * mm.kChunk * es));
    if (panelBase.isConst())
      a_.op("li " + sr.str() + ", " + num(panelBase.c + rhsOffset(1, 0)));
    else
      a_.op("add " + sr.str() + ", " + panelBase.reg + ", " + num(panelBase.c + rhsOffset(1, 0)));
    a_.op("loop " + num(c1 - c0 - 2));
    for (int64_t tl = 0; tl < tiles; ++tl)
      fold(tl, c0 + 1, Val::of(sl.str()), Val::of(sr.str(), rhsOffset(0, tl)), false);
    a_.op("add " + sl.str() + ", " + sl.str() + ", " + num(mm.kChunk * es));
    a_.op("add " + sr.str() + ", " + sr.str() + ", " + num(rhsOffset(1, 0)));
    a_.op("endloop");
  } else if (c1 - c0 == 2) {
    // no middle
  }
  if (c1 - c0 >= 2) {
    const int64_t i = c1 - 1;
    chunk(i, lhs0.plus(i * mm.kChunk * es), panelBase.plus(rhsOffset(i - c0, 0)));
  }
}

void KernelEmitter::matmulPhase(const Geometry& g) {
  const MatmulSpec& mm = *k_.matmul;
  if (p_.rhsResident) {
    std::set<int> waited;
    for (int64_t grp = 0; grp < mm.groups; ++grp) {
      // The panels' tokens: taken and given back, so later units pass at once.
      const int sem = residentSem(grp);
      if (waited.insert(sem).second) {
        int64_t count = 0;
        for (auto [s, c] : residentSems())
          if (s == sem) count = c;
        a_.op("sem.wait " + num(sem) + ", count=" + num(count));
        a_.op("sem.signal " + num(sem) + ", count=" + num(count));
      }
      panelFolds(grp, Val::constant(p_.panelOffset + grp * p_.panelBytes), Val::constant(kSemFolds),
                 true, g);
    }
    a_.op("sem.wait " + num(kSemFolds) + ", count=" + num(std::min(mm.mxus, mm.nTiles)));
    return;
  }
  const int64_t P = p_.panelSlots;
  const Val landed = Val::of(sslot_, kSemPanels), foldsDone = Val::of(sslot_, kSemPanels + P);
  for (int64_t j = 0; j < panels_; ++j) {
    a_.op("sem.wait " + landed.str());
    {
      SReg sa(regs_);
      a_.op("mul " + sa.str() + ", " + sslot_ + ", " + num(p_.panelBytes));
      a_.op("add " + sa.str() + ", " + sa.str() + ", " + num(p_.panelOffset));
      panelFolds(j, Val::of(sa.str()), foldsDone, false, g);
    }
    // Prefetch panel j+P-1 into the slot of panel j-1 once its folds are done. A panel of
    // the next unit is only loaded when there is one: on the last unit the wait for panel
    // j-1's folds is deferred to the end of the phase, so it does not hold back the issue
    // of this unit's remaining folds.
    SReg sp(regs_), sa(regs_);
    a_.op("add " + sp.str() + ", " + sslot_ + ", " + num(P - 1));
    a_.op("rem " + sp.str() + ", " + sp.str() + ", " + num(P));
    const std::string waitPrevious = j > 0 ? "sem.wait " + sp.str() + "+" + num(kSemPanels + P) +
                                                 ", count=" + num(mxusInPanel(j - 1))
                                           : "";
    const int64_t t = j + P - 1;
    const Val sem = Val::of(sp.str(), kSemPanels);
    if (t < panels_) {
      if (j > 0) a_.op(waitPrevious);
      a_.op("mul " + sa.str() + ", " + sp.str() + ", " + num(p_.panelBytes));
      a_.op("add " + sa.str() + ", " + sa.str() + ", " + num(p_.panelOffset));
      panelDma(t, rhsBatched_ ? Val::of(sBcur_) : Val::constant(0), Val::of(sa.str()), sem);
    } else {
      const std::string skip = a_.newLabel("no_next_panel");
      a_.op("bge " + sn_ + ", " + num(end_) + ", " + skip);
      if (j > 0) a_.op(waitPrevious);
      a_.op("mul " + sa.str() + ", " + sp.str() + ", " + num(p_.panelBytes));
      a_.op("add " + sa.str() + ", " + sa.str() + ", " + num(p_.panelOffset));
      panelDma(t - panels_, rhsBatched_ ? Val::of(sBnext_) : Val::constant(0), Val::of(sa.str()),
               sem);
      a_.label(skip);
    }
    a_.op("add " + sslot_ + ", " + sslot_ + ", 1");
    a_.op("rem " + sslot_ + ", " + sslot_ + ", " + num(P));
  }
  // The folds of the last panel, and on the last unit those of the panels whose waits were
  // deferred (j-1 for every j >= max(1, panels - P + 1)); the slot of panel i is
  // (sslot + i - panels) mod P now.
  auto waitFolds = [&](int64_t i) {
    SReg sp(regs_);
    const int64_t back = ((i - panels_) % P + P) % P;
    a_.op("add " + sp.str() + ", " + sslot_ + ", " + num(back));
    a_.op("rem " + sp.str() + ", " + sp.str() + ", " + num(P));
    a_.op("sem.wait " + sp.str() + "+" + num(kSemPanels + P) + ", count=" + num(mxusInPanel(i)));
  };
  const int64_t firstDeferred = std::max<int64_t>(1, panels_ - P + 1);
  if (firstDeferred < panels_) {
    const std::string done = a_.newLabel("deferred_done");
    a_.op("blt " + sn_ + ", " + num(end_) + ", " + done);
    for (int64_t j = firstDeferred; j < panels_; ++j) waitFolds(j - 1);
    a_.label(done);
  }
  waitFolds(panels_ - 1);
}

} // namespace chipless::tpuc::emitter
