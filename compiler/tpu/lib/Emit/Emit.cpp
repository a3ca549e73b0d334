// TPU assembly from kernel specifications. Each kernel runs as a loop over its units on every
// TensorCore (the core's share from tpu-split-cores):
//
//   prologue: the first unit's inputs, the first RHS panels; output buffers marked free
//   per unit: prefetch the next unit's inputs into the other half of VMEM; wait for this
//             unit's; run the folds (panel by panel, prefetching panels ahead); run the vector
//             program over the unit's rows; start the output DMAs
//   epilogue: wait for everything (fence), then a barrier with the other TensorCores
//
// Semaphores (fixed numbers, reused by every kernel since each drains before the next):
// 0 barrier, 1/2 inputs of half 0/1 landed, 3/4 output buffers of half 0/1 free, 5 folds of a
// unit done (resident RHS), 6.. RHS panels landed (and, when streamed, their folds done).
#include "tpuc/Emit.h"

#include "tpuc/Plan.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

namespace chipless::tpuc {

namespace {

using tpuprog::Opcode;

constexpr int kSemBarrier = 0, kSemIn = 1, kSemOut = 3, kSemFolds = 5, kSemPanels = 6;
/// Semaphores for the panels of a resident RHS; panels past the last share the last one.
constexpr int kMaxResidentSems = 8;

std::string num(int64_t v) {
  return std::to_string(v);
}

std::string fnum(double v) {
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  if (std::isnan(v)) return "nan";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

/// Assembly text of one program.
class Asm {
public:
  void op(const std::string& s) { text_ += "    " + s + "\n"; }
  void comment(const std::string& s) { text_ += "    ; " + s + "\n"; }
  void label(const std::string& l) { text_ += l + ":\n"; }
  std::string newLabel(const std::string& base) { return base + "_" + num(labels_++); }
  const std::string& text() const { return text_; }

private:
  std::string text_;
  int labels_ = 0;
};

/// The general scalar registers s0..s(scalar.registers-1).
class RegPool {
public:
  RegPool(int n, std::string where)
      : used_(static_cast<size_t>(n), false), where_(std::move(where)) {}
  int take() {
    for (size_t i = 0; i < used_.size(); ++i)
      if (!used_[i]) {
        used_[i] = true;
        return static_cast<int>(i);
      }
    throw CompileError(where_, "the kernel needs more than " + num(used_.size()) +
                                   " scalar registers (scalar.registers)");
  }
  void give(int r) { used_[static_cast<size_t>(r)] = false; }

private:
  std::vector<bool> used_;
  std::string where_;
};

/// A scalar register held while in scope.
class SReg {
public:
  explicit SReg(RegPool& p) : pool_(&p), r_(p.take()) {}
  SReg(SReg&& o) noexcept : pool_(o.pool_), r_(o.r_) { o.pool_ = nullptr; }
  SReg& operator=(SReg&&) = delete;
  SReg(const SReg&) = delete;
  ~SReg() {
    if (pool_) pool_->give(r_);
  }
  std::string str() const { return "s" + num(r_); }
  operator std::string() const { return str(); }

private:
  RegPool* pool_;
  int r_;
};

/// A value known at compile time or held in a register (plus a constant).
struct Val {
  std::string reg;
  int64_t c = 0;
  static Val constant(int64_t v) { return {"", v}; }
  static Val of(const std::string& r, int64_t c = 0) { return {r, c}; }
  bool isConst() const { return reg.empty(); }
  Val plus(int64_t d) const { return {reg, c + d}; }
  std::string str() const {
    if (reg.empty()) return num(c);
    if (c == 0) return reg;
    return reg + (c > 0 ? "+" : "-") + num(c > 0 ? c : -c);
  }
};

/// `@sym+reg+c` (reg may be empty).
std::string symExpr(const std::string& sym, const Val& v) {
  std::string s = "@" + sym;
  if (!v.reg.empty()) s += "+" + v.reg;
  if (v.c > 0) s += "+" + num(v.c);
  if (v.c < 0) s += "-" + num(-v.c);
  return s;
}

const char* typeSuffix(bool isInt) {
  return isInt ? "i32" : "f32";
}

const char* mnemonic(Opcode op) {
  return tpuprog::opcodeInfo(op).mnemonic;
}

/// The identity of a reduction's combining operation.
double identityOf(Opcode op) {
  if (op == Opcode::VMax) return -INFINITY;
  if (op == Opcode::VMin) return INFINITY;
  return 0.0;
}

int64_t esize(DType t) {
  return static_cast<int64_t>(dtypeSize(t));
}

// ---- the vector program: passes over the columns of a block of rows --------------------------

/// One pass over the columns of a block of rows. Full values are recomputed in every pass that
/// needs them (from loads and column values); column values live in registers for the block.
struct VPass {
  std::vector<int> columnOps;  ///< column values computed before the pass's column loop
  std::vector<int> reductions; ///< reductions accumulated in this pass
  std::vector<int> outputs;    ///< output indices stored in this pass
  std::vector<int> tileValues; ///< full values computed per tile, in order
  bool masked = false;         ///< the last tile is partial and the pass reduces: mask it
};

struct VProgram {
  std::vector<VPass> passes;
  std::vector<int> columnValues; ///< every column value (one register slot each)
};

/// Buffer ids of the vector phase: -1 the accumulator, i >= 0 input i, kOutputBase + j output j.
constexpr int kAccBuffer = -1;
constexpr int kOutputBase = 1000;

/// Whether output j is written back straight from the accumulator (no vector work).
bool fromAcc(const KernelSpec& k, size_t j) {
  return k.memory.outputOffsets[j] < 0;
}

VProgram planPasses(const KernelSpec& k, int64_t lanes) {
  const auto& ops = k.ops;
  const size_t n = ops.size();
  std::vector<int> pass(n, 0), ready(n, 0);
  for (size_t i = 0; i < n; ++i) {
    const VOp& o = ops[i];
    int p = 0;
    for (int x : {o.a, o.b, o.c}) {
      if (x < 0) continue;
      const VOp& src = ops[static_cast<size_t>(x)];
      if (src.kind == VKind::Const) continue;
      p = std::max(p, src.column ? ready[static_cast<size_t>(x)] : pass[static_cast<size_t>(x)]);
    }
    if (o.kind == VKind::Reduce) {
      pass[i] = pass[static_cast<size_t>(o.a)];
      ready[i] = pass[i] + 1;
    } else if (o.column) {
      ready[i] = p;
      pass[i] = p;
    } else {
      pass[i] = p;
    }
  }
  int passes = 1;
  bool any = false;
  for (size_t i = 0; i < n; ++i)
    if (ops[i].kind == VKind::Reduce) {
      passes = std::max(passes, pass[i] + 1);
      any = true;
    }
  for (size_t j = 0; j < k.outputs.size(); ++j)
    if (!fromAcc(k, j)) {
      passes = std::max(passes, pass[static_cast<size_t>(k.outputs[j].value)] + 1);
      any = true;
    }
  if (!any) passes = 0; // nothing for the vector unit to do
  VProgram prog;
  prog.passes.resize(static_cast<size_t>(passes));
  for (size_t i = 0; i < n; ++i) {
    const VOp& o = ops[i];
    if (o.column && o.kind != VKind::Const) prog.columnValues.push_back(static_cast<int>(i));
    if (o.kind == VKind::Reduce)
      prog.passes[static_cast<size_t>(pass[i])].reductions.push_back(static_cast<int>(i));
    else if (o.column && o.kind != VKind::Const)
      prog.passes[static_cast<size_t>(ready[i])].columnOps.push_back(static_cast<int>(i));
  }
  for (size_t j = 0; j < k.outputs.size(); ++j)
    if (!fromAcc(k, j))
      prog.passes[static_cast<size_t>(pass[static_cast<size_t>(k.outputs[j].value)])]
          .outputs.push_back(static_cast<int>(j));
  // Tile values of each pass: the full values its roots need, in program order.
  for (VPass& p : prog.passes) {
    std::vector<bool> need(n, false);
    std::vector<int> stack;
    for (int r : p.reductions) stack.push_back(ops[static_cast<size_t>(r)].a);
    for (int j : p.outputs) stack.push_back(k.outputs[static_cast<size_t>(j)].value);
    while (!stack.empty()) {
      int v = stack.back();
      stack.pop_back();
      if (v < 0 || need[static_cast<size_t>(v)]) continue;
      const VOp& o = ops[static_cast<size_t>(v)];
      if (o.column && o.kind != VKind::Const) continue;
      need[static_cast<size_t>(v)] = true;
      for (int x : {o.a, o.b, o.c}) stack.push_back(x);
    }
    for (size_t i = 0; i < n; ++i)
      if (need[i]) p.tileValues.push_back(static_cast<int>(i));
    p.masked = !p.reductions.empty() && k.n % lanes != 0;
  }
  return prog;
}

// ---- one kernel on one TensorCore ------------------------------------------------------------

class KernelEmitter {
public:
  KernelEmitter(const KernelSpec& k, const TpuArch& arch, int core, Asm& a)
      : k_(k), arch_(arch), core_(core), a_(a), regs_(arch.scalar.registers, k.where),
        p_(k.memory) {
    S_ = arch.vpu.sublanes;
    L_ = arch.vpu.lanes;
    np_ = roundUp(k.n, L_);
    ct_ = np_ / L_;
    upb_ = k.unitsPerBatch();
    first_ = k.cores[static_cast<size_t>(core)].first;
    end_ = k.cores[static_cast<size_t>(core)].second;
    nIn_ = static_cast<int>(k.inputs.size()) + (k.matmul ? 1 : 0);
    nOut_ = static_cast<int>(k.outputs.size());
    if (k.matmul) {
      const MatmulSpec& mm = *k.matmul;
      rhsBatched_ = false;
      for (int64_t s : mm.rhs.batchStrides) rhsBatched_ |= s != 0;
      panelsPerGroup_ = ceilDiv(mm.kChunks, p_.panelChunks);
      panels_ = mm.groups * panelsPerGroup_;
    }
  }

  void emit() {
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

private:
  struct Geometry {
    Val b;    ///< flat batch index
    Val m0;   ///< first row
    Val rows; ///< rows of the unit
    std::vector<SReg> held;
  };

  /// Emits the unit's batch index, first row and row count for unit `u`.
  Geometry geometry(const Val& u) {
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

  /// Emits dst = the byte offset of the unit's first row in `acc` (without symbol and offset).
  /// Returns a constant when it is one.
  Val unitOffset(const Geometry& g, const HbmAccess& acc, const std::string& dst,
                 bool rowsToo = true) {
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

  void rhsBatchOffset(const Geometry& g, const std::string& dst) {
    Val v = unitOffset(g, k_.matmul->rhs, dst, false);
    if (v.isConst()) a_.op("li " + dst + ", " + num(v.c));
  }

  /// DMAs of a unit's inputs (LHS rows and vector inputs) into the half at `half`, signalling
  /// semaphore `sem`.
  void issueInputs(const Geometry& g, const Val& half, const Val& sem) {
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
    if (k_.matmul) one(k_.matmul->lhs, p_.lhsOffset, p_.lhsRowBytes, false);
    for (size_t i = 0; i < k_.inputs.size(); ++i)
      one(k_.inputs[i].access, p_.inputOffsets[i], p_.inputRowBytes[i], k_.inputs[i].rowVector);
  }

  // ---- the unit body -------------------------------------------------------------------------

  void unitBody() {
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

  // ---- the matmul phase ----------------------------------------------------------------------

  /// Resident RHS: (semaphore, panels it counts) for the panels' landing semaphores.
  std::vector<std::pair<int, int64_t>> residentSems() const {
    const int64_t groups = k_.matmul->groups;
    const int64_t nsem = std::min<int64_t>(groups, kMaxResidentSems);
    std::vector<std::pair<int, int64_t>> r;
    for (int64_t s = 0; s < nsem; ++s)
      r.push_back({kSemPanels + static_cast<int>(s), s + 1 < nsem ? 1 : groups - (nsem - 1)});
    return r;
  }
  int residentSem(int64_t group) const {
    return kSemPanels + static_cast<int>(std::min<int64_t>(
                            group, std::min<int64_t>(k_.matmul->groups, kMaxResidentSems) - 1));
  }

  int64_t groupTiles(int64_t g) const {
    const MatmulSpec& mm = *k_.matmul;
    return std::min(mm.mxus, mm.nTiles - g * mm.mxus);
  }

  /// DMA of panel `j` (group, k range) of the unit whose RHS batch offset is `batchOff` into the
  /// VMEM slot at `slot`, signalling `sem`.
  void panelDma(int64_t j, const Val& batchOff, const Val& slotAddr, const Val& sem) {
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
    a_.op("dma.in dst=" + slotAddr.str() + ", src=" + symExpr(mm.rhs.symbol, src) + ", bytes=" +
          num(bytes) + ", rows=" + num(rows) + ", src_stride=" + num(mm.rhs.rowStride) +
          ", dst_stride=" + num(p_.panelRowBytes) + ", sem=" + sem.str());
  }

  void panelPrologue() {
    const MatmulSpec& mm = *k_.matmul;
    if (p_.rhsResident) {
      a_.comment("the whole RHS stays in VMEM: " + num(mm.groups) + " panels, loaded once");
      for (int64_t g = 0; g < mm.groups; ++g)
        panelDma(g, Val::constant(0), Val::constant(p_.panelOffset + g * p_.panelBytes),
                 Val::constant(residentSem(g)));
      return;
    }
    a_.comment("RHS streamed in " + num(panels_) + " panels per unit through " +
               num(p_.panelSlots) + " slots");
    const Val batchOff = rhsBatched_ ? Val::of(sBnext_) : Val::constant(0);
    for (int64_t t = 0; t + 1 < p_.panelSlots; ++t)
      panelDma(t, batchOff, Val::constant(p_.panelOffset + t * p_.panelBytes),
               Val::constant(kSemPanels + t));
    a_.op("li " + sslot_ + ", 0");
  }

  /// The folds of panel j of this unit; the panel sits at `panelBase` (+ the slot register).
  /// The last fold of each MXU in the panel (resident: in the unit) signals `foldSem`.
  void panelFolds(int64_t j, const Val& panelBase, const Val& foldSem, bool lastInUnitOnly,
                  const Geometry& g) {
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
      a_.op("add " + sl.str() + ", " + shalf_ + ", " +
            num(p_.lhsOffset + (c0 + 1) * mm.kChunk * es));
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

  int64_t mxusInPanel(int64_t j) const { return groupTiles(j / panelsPerGroup_); }

  void matmulPhase(const Geometry& g) {
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
        panelFolds(grp, Val::constant(p_.panelOffset + grp * p_.panelBytes),
                   Val::constant(kSemFolds), true, g);
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

  // ---- the vector phase ----------------------------------------------------------------------

  /// Register slots: the vector registers in groups of U.
  class Slots {
  public:
    Slots(int count) : free_(static_cast<size_t>(count), true) {}
    int take() {
      for (size_t i = 0; i < free_.size(); ++i)
        if (free_[i]) {
          free_[i] = false;
          ++inUse_;
          peak_ = std::max(peak_, inUse_);
          return static_cast<int>(i);
        }
      overflow_ = true;
      return 0;
    }
    void give(int s) {
      if (!free_[static_cast<size_t>(s)]) {
        free_[static_cast<size_t>(s)] = true;
        --inUse_;
      }
    }
    bool overflow() const { return overflow_; }

  private:
    std::vector<bool> free_;
    int inUse_ = 0, peak_ = 0;
    bool overflow_ = false;
  };

  /// Scalar registers of the vector phase: each buffer's address in the current block of rows
  /// and in the current tile (row vectors: only the tile's).
  struct BlockContext {
    std::map<int, std::string> tilePtr;
    std::map<int, std::string> blockPtr;
  };

  /// Whether the vector program fits the vector registers in blocks of U registers (emits the
  /// code of one block into a scratch text and checks the register slots).
  bool feasible(int U, bool hoist) {
    Asm dry;
    Asm* saved = out_;
    out_ = &dry;
    BlockContext ctx;
    for (int b : allBuffers()) ctx.tilePtr[b] = "s0";
    const bool ok = block(U, hoist, ctx);
    out_ = saved;
    return ok;
  }

  void chooseRegisterBlock() {
    prog_ = planPasses(k_, L_);
    for (const VOp& o : k_.ops) hasIndex_ |= o.kind == VKind::Index;
    if (prog_.passes.empty()) return;
    const int uMax = maxRegisterBlock(p_.rowsPerUnit, static_cast<int>(S_));
    for (int U : {8, 4, 2, 1}) {
      if (U > uMax || p_.bufferRows % (int64_t{U} * S_) != 0) continue;
      for (bool hoist : {true, false}) {
        if (feasible(U, hoist)) {
          U_ = U;
          hoist_ = hoist;
          return;
        }
      }
    }
    throw CompileError(k_.where, "the fused element-wise program of kernel " + k_.name +
                                     " needs more than vpu.registers (" + num(arch_.vpu.registers) +
                                     ") vector registers");
  }

  std::vector<int> allBuffers() const {
    std::vector<int> b;
    if (k_.matmul) b.push_back(kAccBuffer);
    for (size_t i = 0; i < k_.inputs.size(); ++i) b.push_back(static_cast<int>(i));
    for (size_t j = 0; j < k_.outputs.size(); ++j)
      if (p_.outputOffsets[j] >= 0) b.push_back(kOutputBase + static_cast<int>(j));
    return b;
  }

  int64_t bufferOffset(int b) const {
    if (b == kAccBuffer) return p_.accOffset;
    if (b >= kOutputBase) return p_.outputOffsets[static_cast<size_t>(b - kOutputBase)];
    return p_.inputOffsets[static_cast<size_t>(b)];
  }
  int64_t bufferRowBytes(int b) const {
    if (b == kAccBuffer) return p_.accRowBytes;
    if (b >= kOutputBase) return p_.outputRowBytes[static_cast<size_t>(b - kOutputBase)];
    return p_.inputRowBytes[static_cast<size_t>(b)];
  }
  bool bufferIsRowVector(int b) const {
    return b >= 0 && b < kOutputBase && k_.inputs[static_cast<size_t>(b)].rowVector;
  }
  /// Bytes of one element of a buffer's rows.
  int64_t bufferElement(int b) const { return bufferRowBytes(b) / np_; }
  std::string bufferType(int b) const {
    if (b == kAccBuffer) return k_.matmul->dtype == DType::I8 ? "i32" : "f32";
    if (b >= kOutputBase)
      return dtypeName(k_.outputs[static_cast<size_t>(b - kOutputBase)].access.dtype);
    return dtypeName(k_.inputs[static_cast<size_t>(b)].access.dtype);
  }

  /// Buffers the tile body of pass p reads or writes.
  std::vector<int> passBuffers(const VPass& p) const {
    std::set<int> s;
    for (int v : p.tileValues) {
      const VOp& o = k_.ops[static_cast<size_t>(v)];
      if (o.kind == VKind::Acc) s.insert(kAccBuffer);
      if (o.kind == VKind::Load) s.insert(o.input);
    }
    for (int j : p.outputs)
      if (p_.outputOffsets[static_cast<size_t>(j)] >= 0) s.insert(kOutputBase + j);
    return {s.begin(), s.end()};
  }

  std::string vr(int slot, int U) const { return "v" + num(slot * U); }

  /// Emits (into out_) one block: every pass over the tiles. Pointers: ctx.tilePtr holds the
  /// register of each buffer's tile address (advanced by the caller's loop code emitted here).
  /// Returns false when the registers do not suffice.
  bool block(int U, bool hoist, BlockContext& ctx) {
    Asm& a = *out_;
    const int slots = arch_.vpu.registers / U;
    Slots pool(slots);
    const std::string n = ", n=" + num(U);
    std::map<int, int> colSlot;
    for (int v : prog_.columnValues) colSlot[v] = pool.take();
    for (size_t pi = 0; pi < prog_.passes.size(); ++pi) {
      const VPass& pass = prog_.passes[pi];
      // Column values ready now.
      for (int v : pass.columnOps) {
        const VOp& o = k_.ops[static_cast<size_t>(v)];
        std::vector<int> temps;
        auto operand = [&](int x) -> std::string {
          const VOp& src = k_.ops[static_cast<size_t>(x)];
          if (src.kind == VKind::Const) {
            int s = pool.take();
            temps.push_back(s);
            a.op(std::string("vsplat.") + typeSuffix(src.isInt) + " " + vr(s, U) + ", " +
                 fnum(src.value) + n);
            return vr(s, U);
          }
          return vr(colSlot.at(x), U);
        };
        emitValueOp(a, o, vr(colSlot.at(v), U), operand, n);
        for (int s : temps) pool.give(s);
      }
      // Hoisted constants of the tile body.
      std::map<int, int> constSlot;
      if (hoist)
        for (int v : pass.tileValues) {
          const VOp& o = k_.ops[static_cast<size_t>(v)];
          if (o.kind != VKind::Const) continue;
          constSlot[v] = pool.take();
          a.op(std::string("vsplat.") + typeSuffix(o.isInt) + " " + vr(constSlot[v], U) + ", " +
               fnum(o.value) + n);
        }
      // Accumulators.
      std::map<int, int> accSlot;
      for (int r : pass.reductions) {
        const VOp& o = k_.ops[static_cast<size_t>(r)];
        accSlot[r] = pool.take();
        a.op(std::string("vsplat.") + typeSuffix(o.isInt) + " " + vr(accSlot[r], U) + ", " +
             fnum(identityOf(o.op)) + n);
      }
      // The tiles.
      const std::vector<int> bufs = passBuffers(pass);
      for (int b : bufs) {
        const std::string& ptr = ctx.tilePtr.at(b);
        const std::string& blockPtr = ctx.blockPtr.count(b) ? ctx.blockPtr.at(b) : ptr;
        if (bufferIsRowVector(b))
          a.op("add " + ptr + ", " + shalf_ + ", " + num(bufferOffset(b)));
        else
          a.op("li " + ptr + ", " + blockPtr);
      }
      if (hasIndex_) a.op("li " + idxCol_ + ", 0");
      const int64_t full = pass.masked ? ct_ - 1 : ct_;
      if (full > 0) {
        if (full > 1) a.op("loop " + num(full));
        tile(U, pass, constSlot, accSlot, colSlot, pool, ctx, false);
        if (full > 1 || pass.masked) {
          for (int b : bufs)
            a.op("add " + ctx.tilePtr.at(b) + ", " + ctx.tilePtr.at(b) + ", " +
                 num(L_ * bufferElement(b)));
          if (hasIndex_) a.op("add " + idxCol_ + ", " + idxCol_ + ", " + num(L_));
        }
        if (full > 1) a.op("endloop");
      }
      if (pass.masked) tile(U, pass, constSlot, accSlot, colSlot, pool, ctx, true);
      // Lane reductions into the column values.
      for (int r : pass.reductions) {
        const VOp& o = k_.ops[static_cast<size_t>(r)];
        const std::string t = typeSuffix(o.isInt);
        const std::string acc = vr(accSlot[r], U), col = vr(colSlot.at(r), U);
        if (o.op == Opcode::VAdd) {
          a.op("vsum.lanes." + t + " " + col + ", " + acc + n);
        } else if (o.op == Opcode::VMax) {
          a.op("vmax.lanes." + t + " " + col + ", " + acc + n);
        } else { // min = -max(-x)
          a.op("vneg." + t + " " + acc + ", " + acc + n);
          a.op("vmax.lanes." + t + " " + col + ", " + acc + n);
          a.op("vneg." + t + " " + col + ", " + col + n);
        }
        if (o.hasInit) {
          a.op("vsplat." + t + " " + acc + ", " + fnum(o.value) + n);
          a.op(std::string(mnemonic(o.op)) + "." + t + " " + col + ", " + col + ", " + acc + n);
        }
        pool.give(accSlot[r]);
      }
      for (auto& [v, s] : constSlot) pool.give(s);
    }
    return !pool.overflow();
  }

  /// Emits `o` into register range `dst` with operands from `operand(index)`.
  template <typename F>
  void emitValueOp(Asm& a, const VOp& o, const std::string& dst, F&& operand,
                   const std::string& n) {
    const std::string t = typeSuffix(o.isInt);
    switch (o.kind) {
    case VKind::Unary:
      a.op(std::string(mnemonic(o.op)) + "." + t + " " + dst + ", " + operand(o.a) + n);
      return;
    case VKind::Binary:
      a.op(std::string(mnemonic(o.op)) + "." + t + " " + dst + ", " + operand(o.a) + ", " +
           operand(o.b) + n);
      return;
    case VKind::Select:
      a.op("vsel." + t + " " + dst + ", " + operand(o.c) + ", " + operand(o.a) + ", " +
           operand(o.b) + n);
      return;
    default:
      throw CompileError(o.where, "internal: unexpected vector value kind");
    }
  }

  /// One tile of pass `pass`: every tile value, the outputs' stores and the reductions'
  /// accumulation (masked: lanes past N take the identity).
  void tile(int U, const VPass& pass, const std::map<int, int>& constSlot,
            const std::map<int, int>& accSlot, const std::map<int, int>& colSlot, Slots& pool,
            BlockContext& ctx, bool masked) {
    Asm& a = *out_;
    const std::string n = ", n=" + num(U);
    // Uses of each tile value within this tile.
    std::map<int, int> uses;
    for (int v : pass.tileValues) {
      const VOp& o = k_.ops[static_cast<size_t>(v)];
      for (int x : {o.a, o.b, o.c})
        if (x >= 0) ++uses[x];
    }
    for (int r : pass.reductions) ++uses[k_.ops[static_cast<size_t>(r)].a];
    for (int j : pass.outputs) ++uses[k_.outputs[static_cast<size_t>(j)].value];
    std::map<int, int> slotOf;
    int maskSlot = -1, identSlot = -1;
    if (masked) {
      maskSlot = pool.take();
      identSlot = pool.take();
      a.op("viota.f32 " + vr(maskSlot, U) + ", lanes" + n);
      a.op("vsplat.f32 " + vr(identSlot, U) + ", " + num(k_.n % L_) + n);
      a.op("vcmp.lt.f32 " + vr(maskSlot, U) + ", " + vr(maskSlot, U) + ", " + vr(identSlot, U) + n);
    }
    auto release = [&](int x) {
      if (x < 0) return;
      const VOp& src = k_.ops[static_cast<size_t>(x)];
      if (src.column && src.kind != VKind::Const) return;
      if (constSlot.count(x)) return;
      if (--uses[x] == 0 && slotOf.count(x)) pool.give(slotOf[x]);
    };
    auto reg = [&](int x) -> std::string {
      const VOp& src = k_.ops[static_cast<size_t>(x)];
      if (constSlot.count(x)) return vr(constSlot.at(x), U);
      if (src.column && src.kind != VKind::Const) return vr(colSlot.at(x), U);
      return vr(slotOf.at(x), U);
    };
    for (int v : pass.tileValues) {
      const VOp& o = k_.ops[static_cast<size_t>(v)];
      if (constSlot.count(v)) continue;
      const std::string t = typeSuffix(o.isInt);
      switch (o.kind) {
      case VKind::Const: {
        slotOf[v] = pool.take();
        a.op("vsplat." + t + " " + vr(slotOf[v], U) + ", " + fnum(o.value) + n);
        break;
      }
      case VKind::Index: {
        // The lane (N) or row (M) index within the tile, plus the tile's column or row base.
        slotOf[v] = pool.take();
        const int base = pool.take();
        const bool alongN = o.value == 0;
        a.op("viota." + t + " " + vr(slotOf[v], U) + (alongN ? ", lanes" : ", sublanes") + n);
        a.op("vbcast." + t + " " + vr(base, U) + ", " + (alongN ? idxCol_ : idxRow_) + n);
        a.op("vadd." + t + " " + vr(slotOf[v], U) + ", " + vr(slotOf[v], U) + ", " + vr(base, U) +
             n);
        pool.give(base);
        break;
      }
      case VKind::Load:
      case VKind::Acc: {
        const int b = o.kind == VKind::Acc ? kAccBuffer : o.input;
        slotOf[v] = pool.take();
        a.op("vld." + bufferType(b) + " " + vr(slotOf[v], U) + ", " + ctx.tilePtr.at(b) + n +
             ", stride=" + num(bufferIsRowVector(b) ? 0 : bufferRowBytes(b)));
        break;
      }
      default: {
        // Operands are read before the result is written, so the result may reuse a slot of an
        // operand that dies here.
        std::vector<int> ops;
        for (int x : {o.a, o.b, o.c})
          if (x >= 0) ops.push_back(x);
        std::string opnd[3];
        int idx = 0;
        for (int x : {o.a, o.b, o.c}) opnd[idx++] = x >= 0 ? reg(x) : "";
        for (int x : ops) release(x);
        slotOf[v] = pool.take();
        auto byIndex = [&](int x) {
          if (x == o.a) return opnd[0];
          if (x == o.b) return opnd[1];
          return opnd[2];
        };
        emitValueOp(a, o, vr(slotOf[v], U), byIndex, n);
        break;
      }
      }
      // Stores and reductions that use v.
      for (int j : pass.outputs) {
        const VOutput& out = k_.outputs[static_cast<size_t>(j)];
        if (out.value != v) continue;
        if (p_.outputOffsets[static_cast<size_t>(j)] >= 0) {
          const int b = kOutputBase + j;
          a.op("vst." + bufferType(b) + " " + reg(v) + ", " + ctx.tilePtr.at(b) + n +
               ", stride=" + num(bufferRowBytes(b)));
        }
        release(v);
      }
      for (int r : pass.reductions) {
        const VOp& ro = k_.ops[static_cast<size_t>(r)];
        if (ro.a != v) continue;
        const std::string rt = typeSuffix(ro.isInt);
        std::string x = reg(v);
        int tmp = -1;
        if (masked) {
          tmp = pool.take();
          a.op("vsplat." + rt + " " + vr(identSlot, U) + ", " + fnum(identityOf(ro.op)) + n);
          a.op("vsel." + rt + " " + vr(tmp, U) + ", " + vr(maskSlot, U) + ", " + x + ", " +
               vr(identSlot, U) + n);
          x = vr(tmp, U);
        }
        const std::string acc = vr(accSlot.at(r), U);
        a.op(std::string(mnemonic(ro.op)) + "." + rt + " " + acc + ", " + acc + ", " + x + n);
        if (tmp >= 0) pool.give(tmp);
        release(v);
      }
    }
    for (auto& [v, s] : slotOf)
      if (uses[v] > 0) pool.give(s);
    if (masked) {
      pool.give(maskSlot);
      pool.give(identSlot);
    }
  }

  void vectorPhase(const Geometry& g) {
    if (prog_.passes.empty()) return;
    // Blocks of U register rows.
    const int64_t rowsPerBlock = int64_t{U_} * S_;
    std::optional<SReg> nb;
    std::string count;
    if (g.rows.isConst()) {
      count = num(ceilDiv(g.rows.c, rowsPerBlock));
    } else {
      nb.emplace(regs_);
      a_.op("add " + nb->str() + ", " + g.rows.str() + ", " + num(rowsPerBlock - 1));
      a_.op("div " + nb->str() + ", " + nb->str() + ", " + num(rowsPerBlock));
      count = nb->str();
    }
    BlockContext ctx;
    std::vector<SReg> held;
    for (int b : allBuffers()) {
      bool used = false;
      for (const VPass& p : prog_.passes)
        for (int x : passBuffers(p)) used |= x == b;
      if (!used) continue;
      held.emplace_back(regs_);
      ctx.tilePtr[b] = held.back().str();
      if (!bufferIsRowVector(b)) {
        held.emplace_back(regs_);
        ctx.blockPtr[b] = held.back().str();
        a_.op("add " + ctx.blockPtr[b] + ", " + shalf_ + ", " + num(bufferOffset(b)));
      }
    }
    // Index values: the block's first row and the tile's first column.
    std::optional<SReg> row, col;
    if (hasIndex_) {
      row.emplace(regs_);
      col.emplace(regs_);
      idxRow_ = row->str();
      idxCol_ = col->str();
      if (g.m0.isConst())
        a_.op("li " + idxRow_ + ", " + num(g.m0.c));
      else
        a_.op("add " + idxRow_ + ", " + g.m0.reg + ", " + num(g.m0.c));
    }
    a_.comment("vector program: " + num(prog_.passes.size()) + " pass(es) over " + num(ct_) +
               " column tile(s) per block of " + num(rowsPerBlock) + " rows");
    a_.op("loop " + count);
    block(U_, hoist_, ctx);
    for (auto& [b, ptr] : ctx.blockPtr)
      a_.op("add " + ptr + ", " + ptr + ", " + num(rowsPerBlock * bufferRowBytes(b)));
    if (hasIndex_) a_.op("add " + idxRow_ + ", " + idxRow_ + ", " + num(rowsPerBlock));
    a_.op("endloop");
  }

  const KernelSpec& k_;
  const TpuArch& arch_;
  int core_;
  Asm& a_;
  Asm* out_ = &a_;
  RegPool regs_;
  const MemoryPlan& p_;
  int64_t S_, L_, np_, ct_, upb_, first_, end_;
  int nIn_, nOut_;
  bool rhsBatched_ = false;
  int64_t panelsPerGroup_ = 0, panels_ = 0;
  std::string su_, spar_, shalf_, sBcur_, sBnext_, sslot_, sn_;
  VProgram prog_;
  bool hasIndex_ = false;                     ///< the vector program uses element indices
  std::string idxRow_ = "s0", idxCol_ = "s0"; ///< their row and column bases (scalar registers)
  int U_ = 1;
  bool hoist_ = true;
};

} // namespace

std::string emitProgram(const ProgramSpec& program, const TpuArch& arch) {
  std::string head = "; " + program.name + ": generated by tpu-compile for tpu-" +
                     arch.chip.generation + "\n.kernel " + program.name + "\n";
  for (const auto& arg : program.args) {
    head += std::string(arg.output ? ".output " : ".input  ") + arg.name + " " +
            dtypeName(arg.dtype) + " [";
    for (size_t i = 0; i < arg.shape.size(); ++i) head += (i ? ", " : "") + num(arg.shape[i]);
    head += "] tile=1x" + num(arch.vpu.lanes) + "\n";
  }
  if (program.scratchBytes > 0) head += ".buffer scratch " + num(program.scratchBytes) + "\n";
  const int cores = arch.chip.tensorcores;
  std::string text = head;
  for (int c = 0; c < cores; ++c) {
    Asm a;
    for (size_t i = 0; i < program.kernels.size(); ++i) {
      KernelEmitter(program.kernels[i], arch, c, a).emit();
      if (cores > 1 && i + 1 < program.kernels.size()) {
        a.comment("barrier: every TensorCore has finished kernel " + program.kernels[i].name);
        for (int o = 0; o < cores; ++o)
          if (o != c) a.op("sem.signal " + num(kSemBarrier) + ", core=" + num(o));
        a.op("sem.wait " + num(kSemBarrier) + ", count=" + num(cores - 1));
      }
    }
    text += "\n.program cores=" + num(c) + "\n" + a.text() + ".end\n";
  }
  return text;
}

} // namespace chipless::tpuc
