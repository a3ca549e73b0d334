// One kernel on one TensorCore: the loop over the core's units (Emit.cpp describes the
// program's shape and its semaphores), each unit's geometry, its input and output DMAs.
#include "KernelEmitter.h"

#include "tpuc/Plan.h"

#include <optional>

namespace chipless::tpuc::emitter {

KernelEmitter::KernelEmitter(const KernelSpec& k, const TpuArch& arch, int core, Asm& a)
    : k_(k), arch_(arch), core_(core), a_(a), regs_(arch.scalar.registers, k.where), p_(k.memory) {
  S_ = arch.vpu.sublanes;
  L_ = arch.vpu.lanes;
  np_ = roundUp(k.n, L_);
  ct_ = np_ / L_;
  upb_ = k.unitsPerBatch();
  first_ = k.cores[static_cast<size_t>(core)].first;
  end_ = k.cores[static_cast<size_t>(core)].second;
  // Tokens of a unit's input DMAs: one per input (a gathered one: one per row of the unit)
  // and LHS part.
  nIn_ = static_cast<int>(k.matmul ? k.matmul->lhs.size() : 0);
  for (const VInput& in : k.inputs) nIn_ += in.rowIndices ? static_cast<int>(p_.rowsPerUnit) : 1;
  nOut_ = static_cast<int>(k.outputs.size());
  if (k.matmul) {
    const MatmulSpec& mm = *k.matmul;
    rhsBatched_ = false;
    for (int64_t s : mm.rhs.batchStrides) rhsBatched_ |= s != 0;
    panelsPerGroup_ = ceilDiv(mm.kChunks, p_.panelChunks);
    panels_ = mm.groups * panelsPerGroup_;
  }
}

void KernelEmitter::emit() {
  if (end_ <= first_) {
    a_.comment("kernel " + k_.name + ": no units on this TensorCore");
    return;
  }
  const int needed = semaphoresNeeded(k_);
  if (needed > arch_.scalar.semaphores)
    throw CompileError(k_.where, "kernel " + k_.name + " needs " + num(needed) +
                                     " semaphores, scalar.semaphores is " +
                                     num(arch_.scalar.semaphores));
  chooseRegisterBlock();
  a_.comment("---- kernel " + k_.name + " (" + k_.where + "): units " + num(first_) + ".." +
             num(end_ - 1) + " of " + num(k_.units()) + ", " + num(p_.rowsPerUnit) +
             " rows each, vector blocks of " + num(U_) + " registers");
  SReg su(regs_), spar(regs_), shalf(regs_);
  su_ = su.str();
  spar_ = spar.str();
  shalf_ = shalf.str();
  std::optional<SReg> sBcur, sBnext, sslot;
  if (k_.matmul && rhsBatched_) {
    sBcur.emplace(regs_);
    sBnext.emplace(regs_);
    sBcur_ = sBcur->str();
    sBnext_ = sBnext->str();
  }
  if (k_.matmul && !p_.rhsResident) {
    sslot.emplace(regs_);
    sslot_ = sslot->str();
  }
  // Output buffers start free; the first unit's inputs go to half 0.
  if (nOut_ > 0)
    a_.op("sem.signal " + num(kSemOut) + ", count=" + num(nOut_) + " | sem.signal " +
          num(kSemOut + 1) + ", count=" + num(nOut_));
  a_.op("li " + su_ + ", " + num(first_));
  a_.op("li " + spar_ + ", 0");
  {
    Geometry g = geometry(Val::of(su_));
    issueInputs(g, Val::constant(0), Val::constant(kSemIn));
    if (k_.matmul) {
      if (rhsBatched_) rhsBatchOffset(g, sBnext_);
      panelPrologue();
    }
  }
  a_.op("loop " + num(end_ - first_));
  unitBody();
  a_.op("endloop");
  // Drain: every output written, resident panels' tokens taken back, then fence.
  if (nOut_ > 0) {
    a_.op("sem.wait " + num(kSemOut) + ", count=" + num(nOut_));
    a_.op("sem.wait " + num(kSemOut + 1) + ", count=" + num(nOut_));
  }
  if (k_.matmul && p_.rhsResident)
    for (auto [sem, count] : residentSems())
      a_.op("sem.wait " + num(sem) + ", count=" + num(count));
  a_.op("fence");
}

KernelEmitter::Geometry KernelEmitter::geometry(const Val& u) {
  Geometry g;
  const int64_t mb = p_.rowsPerUnit;
  if (upb_ == 1) {
    g.b = u;
    g.m0 = Val::constant(0);
  } else {
    SReg b(regs_), m0(regs_);
    if (k_.batchCount() > 1)
      a_.op("div " + b.str() + ", " + u.str() + ", " + num(upb_));
    else
      a_.op("li " + b.str() + ", 0");
    a_.op("rem " + m0.str() + ", " + u.str() + ", " + num(upb_));
    a_.op("mul " + m0.str() + ", " + m0.str() + ", " + num(mb));
    g.b = Val::of(b.str());
    g.m0 = Val::of(m0.str());
    g.held.push_back(std::move(b));
    g.held.push_back(std::move(m0));
  }
  if (k_.m % mb == 0) {
    g.rows = Val::constant(mb);
  } else {
    SReg r(regs_);
    a_.op("sub " + r.str() + ", " + num(k_.m) + ", " + g.m0.str());
    a_.op("min " + r.str() + ", " + r.str() + ", " + num(mb));
    g.rows = Val::of(r.str());
    g.held.push_back(std::move(r));
  }
  return g;
}

Val KernelEmitter::unitOffset(const Geometry& g, const HbmAccess& acc, const std::string& dst,
                              bool rowsToo) {
  bool any = false;
  auto addTerm = [&](const Val& v, int64_t scale) {
    if (scale == 0) return;
    if (v.isConst()) {
      if (v.c == 0) return;
      if (!any)
        a_.op("li " + dst + ", " + num(v.c * scale));
      else
        a_.op("add " + dst + ", " + dst + ", " + num(v.c * scale));
      any = true;
      return;
    }
    if (!any) {
      a_.op("mul " + dst + ", " + v.str() + ", " + num(scale));
    } else {
      SReg t(regs_);
      a_.op("mul " + t.str() + ", " + v.str() + ", " + num(scale));
      a_.op("add " + dst + ", " + dst + ", " + t.str());
    }
    any = true;
  };
  if (rowsToo) addTerm(g.m0, acc.rowStride);
  // Batch dimensions: b_i = (b / inner_i) % B_i.
  int64_t inner = 1;
  std::vector<int64_t> inners(k_.batch.size());
  for (size_t i = k_.batch.size(); i-- > 0;) {
    inners[i] = inner;
    inner *= k_.batch[i];
  }
  for (size_t i = 0; i < k_.batch.size(); ++i) {
    const int64_t stride = i < acc.batchStrides.size() ? acc.batchStrides[i] : 0;
    if (stride == 0 || k_.batch[i] == 1) continue;
    if (g.b.isConst()) {
      addTerm(Val::constant((g.b.c / inners[i]) % k_.batch[i]), stride);
      continue;
    }
    SReg t(regs_);
    std::string cur = g.b.str();
    if (inners[i] != 1) {
      a_.op("div " + t.str() + ", " + cur + ", " + num(inners[i]));
      cur = t.str();
    }
    if (i != 0) {
      a_.op("rem " + t.str() + ", " + cur + ", " + num(k_.batch[i]));
      cur = t.str();
    }
    if (!any) {
      a_.op("mul " + dst + ", " + cur + ", " + num(stride));
    } else {
      a_.op("mul " + t.str() + ", " + cur + ", " + num(stride));
      a_.op("add " + dst + ", " + dst + ", " + t.str());
    }
    any = true;
  }
  if (!any) return Val::constant(0);
  return Val::of(dst);
}

void KernelEmitter::rhsBatchOffset(const Geometry& g, const std::string& dst) {
  Val v = unitOffset(g, k_.matmul->rhs, dst, false);
  if (v.isConst()) a_.op("li " + dst + ", " + num(v.c));
}

void KernelEmitter::issueInputs(const Geometry& g, const Val& half, const Val& sem) {
  auto one = [&](const HbmAccess& acc, int64_t vmemOffset, int64_t rowBytes, bool rowVector) {
    SReg t(regs_);
    Val off = unitOffset(g, acc, t.str(), !rowVector);
    const Val rows = rowVector ? Val::constant(1) : g.rows;
    a_.op("dma.in dst=" + half.plus(vmemOffset).str() +
          ", src=" + symExpr(acc.symbol, off.plus(acc.offset)) + ", bytes=" + num(acc.runBytes) +
          ", rows=" + rows.str() +
          ", src_stride=" + num(acc.rowStride == 0 ? acc.runBytes : acc.rowStride) +
          ", dst_stride=" + num(rowBytes) + ", sem=" + sem.str());
  };
  // A packed column vector: the unit's rows' elements, in whole DMA chunks (a column in its
  // padded layout moves a chunk per row, as other inputs move rows).
  auto column = [&](const HbmAccess& acc, int64_t vmemOffset) {
    SReg t(regs_), c(regs_);
    Val off = unitOffset(g, acc, t.str(), true);
    const int64_t perChunk = acc.runBytes / acc.rowStride;
    const Val chunks =
        g.rows.isConst() ? Val::constant(ceilDiv(g.rows.c, perChunk)) : Val::of(c.str());
    if (!g.rows.isConst()) {
      a_.op("add " + c.str() + ", " + g.rows.str() + ", " + num(perChunk - 1));
      a_.op("div " + c.str() + ", " + c.str() + ", " + num(perChunk));
    }
    a_.op("dma.in dst=" + half.plus(vmemOffset).str() +
          ", src=" + symExpr(acc.symbol, off.plus(acc.offset)) + ", bytes=" + num(acc.runBytes) +
          ", rows=" + chunks.str() + ", src_stride=" + num(acc.runBytes) +
          ", dst_stride=" + num(acc.runBytes) + ", sem=" + sem.str());
  };
  if (k_.matmul) {
    int64_t column = 0; // bytes into the LHS rows
    for (const HbmAccess& part : k_.matmul->lhs) {
      one(part, p_.lhsOffset + column, p_.lhsRowBytes, false);
      column += part.runBytes;
    }
  }
  for (size_t i = 0; i < k_.inputs.size(); ++i)
    if (k_.inputs[i].rowIndices)
      gathered(g, k_.inputs[i], half.plus(p_.inputOffsets[i]), p_.inputRowBytes[i], sem);
    else if (k_.inputs[i].packed())
      column(k_.inputs[i].access, p_.inputOffsets[i]);
    else
      one(k_.inputs[i].access, p_.inputOffsets[i], p_.inputRowBytes[i], k_.inputs[i].rowVector);
}

void KernelEmitter::gathered(const Geometry& g, const VInput& in, const Val& dst, int64_t rowBytes,
                             const Val& sem) {
  const HbmAccess& table = in.access;
  const HbmAccess& idx = *in.rowIndices;
  const int64_t align = arch_.dma.alignment_bytes, mb = p_.rowsPerUnit;
  const bool packedIdx = idx.rowStride == static_cast<int64_t>(dtypeSize(idx.dtype));
  // Where index r lies in SMEM: packed, as in HBM; else one DMA run per index.
  const int64_t smemStride = packedIdx ? idx.rowStride : align;
  if (mb * smemStride + align > arch_.smem.bytes)
    throw CompileError(k_.where, "kernel " + k_.name + " gathers " + num(mb) +
                                     " rows per unit, whose indices need more than smem.bytes (" +
                                     num(arch_.smem.bytes) + ")");
  if (packedIdx && k_.units() > 1 && (mb * idx.rowStride) % align != 0)
    throw CompileError(k_.where, "kernel " + k_.name + ": units of " + num(mb) +
                                     " indices do not start on dma.alignment_bytes");
  // The unit's indices into SMEM (at 0), and waited for: the row DMAs need their values.
  SReg off(regs_), bytes(regs_);
  Val src = Val::constant(g.m0.c * idx.rowStride + idx.offset);
  if (!g.m0.isConst()) {
    a_.op("mul " + off.str() + ", " + g.m0.str() + ", " + num(idx.rowStride));
    src = Val::of(off.str(), idx.offset);
  }
  if (packedIdx) {
    // The unit's indices in whole DMA runs.
    Val size = Val::constant(roundUp(g.rows.c * idx.rowStride, align));
    if (!g.rows.isConst()) {
      a_.op("mul " + bytes.str() + ", " + g.rows.str() + ", " + num(idx.rowStride));
      a_.op("add " + bytes.str() + ", " + bytes.str() + ", " + num(align - 1));
      a_.op("div " + bytes.str() + ", " + bytes.str() + ", " + num(align));
      a_.op("mul " + bytes.str() + ", " + bytes.str() + ", " + num(align));
      size = Val::of(bytes.str());
    }
    a_.op("dma.in dst=0, src=" + symExpr(idx.symbol, src) + ", bytes=" + size.str() +
          ", sem=" + num(kSemIndices) + ", mem=smem");
  } else {
    a_.op("dma.in dst=0, src=" + symExpr(idx.symbol, src) + ", bytes=" + num(align) +
          ", rows=" + g.rows.str() + ", src_stride=" + num(idx.rowStride) +
          ", dst_stride=" + num(align) + ", sem=" + num(kSemIndices) + ", mem=smem");
  }
  a_.op("sem.wait " + num(kSemIndices));
  // One DMA per row of the unit from the table row its index names (clamped into the table,
  // as XLA clamps); past the unit's rows (its last unit), the last row's again, so that every
  // unit gives the same tokens.
  SReg r(regs_), last(regs_), at(regs_), to(regs_);
  if (g.rows.isConst())
    a_.op("li " + last.str() + ", " + num(g.rows.c - 1));
  else
    a_.op("sub " + last.str() + ", " + g.rows.str() + ", 1");
  a_.op("li " + r.str() + ", 0");
  a_.op("loop " + num(mb));
  a_.op("min " + at.str() + ", " + r.str() + ", " + last.str());
  a_.op("mul " + at.str() + ", " + at.str() + ", " + num(smemStride));
  a_.op("sld " + at.str() + ", " + at.str());
  a_.op("max " + at.str() + ", " + at.str() + ", 0");
  a_.op("min " + at.str() + ", " + at.str() + ", " + num(in.tableRows - 1));
  a_.op("mul " + at.str() + ", " + at.str() + ", " + num(table.rowStride));
  a_.op("mul " + to.str() + ", " + r.str() + ", " + num(rowBytes));
  if (!dst.isConst()) a_.op("add " + to.str() + ", " + to.str() + ", " + dst.reg);
  a_.op("dma.in dst=" + Val::of(to.str(), dst.c).str() +
        ", src=" + symExpr(table.symbol, Val::of(at.str(), table.offset)) +
        ", bytes=" + num(table.runBytes) + ", sem=" + sem.str());
  a_.op("add " + r.str() + ", " + r.str() + ", 1");
  a_.op("endloop");
}

void KernelEmitter::unitBody() {
  Geometry g = geometry(Val::of(su_));
  a_.op("mul " + shalf_ + ", " + spar_ + ", " + num(p_.halfBytes));
  // This unit's output offsets.
  std::vector<SReg> outRegs;
  std::vector<Val> outOff;
  for (const VOutput& o : k_.outputs) {
    outRegs.emplace_back(regs_);
    outOff.push_back(unitOffset(g, o.access, outRegs.back().str()));
  }
  if (k_.matmul && rhsBatched_) a_.op("li " + sBcur_ + ", " + sBnext_);
  // Prefetch the next unit's inputs into the other half.
  {
    SReg sn(regs_);
    sn_ = sn.str();
    a_.op("add " + sn_ + ", " + su_ + ", 1");
    if (nIn_ > 0 || (k_.matmul && rhsBatched_)) {
      const std::string skip = a_.newLabel("last_unit");
      a_.op("bge " + sn_ + ", " + num(end_) + ", " + skip);
      {
        Geometry gn = geometry(Val::of(sn_));
        SReg other(regs_), half(regs_);
        a_.op("xor " + other.str() + ", " + spar_ + ", 1");
        a_.op("mul " + half.str() + ", " + other.str() + ", " + num(p_.halfBytes));
        if (nIn_ > 0) issueInputs(gn, Val::of(half.str()), Val::of(other.str(), kSemIn));
        if (k_.matmul && rhsBatched_) rhsBatchOffset(gn, sBnext_);
      }
      a_.label(skip);
    }
    if (nIn_ > 0) a_.op("sem.wait " + spar_ + "+" + num(kSemIn) + ", count=" + num(nIn_));
    if (nOut_ > 0) a_.op("sem.wait " + spar_ + "+" + num(kSemOut) + ", count=" + num(nOut_));
    if (k_.matmul) matmulPhase(g);
    sn_.clear();
  }
  vectorPhase(g);
  for (size_t j = 0; j < k_.outputs.size(); ++j) {
    const VOutput& o = k_.outputs[j];
    const int64_t src = p_.outputOffsets[j] >= 0 ? p_.outputOffsets[j] : p_.accOffset;
    a_.op("dma.out dst=" + symExpr(o.access.symbol, outOff[j].plus(o.access.offset)) +
          ", src=" + Val::of(shalf_, src).str() + ", bytes=" + num(o.access.runBytes) +
          ", rows=" + g.rows.str() + ", src_stride=" + num(p_.outputRowBytes[j]) +
          ", dst_stride=" + num(o.access.rowStride) + ", sem=" + spar_ + "+" + num(kSemOut));
  }
  a_.op("add " + su_ + ", " + su_ + ", 1");
  a_.op("xor " + spar_ + ", " + spar_ + ", 1");
}

} // namespace chipless::tpuc::emitter
