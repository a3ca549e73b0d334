#include "sim/tpu/tensor_core.h"

#include "sim/common/scalar_alu.h"
#include "sim/tpu/mxu_math.h"
#include "sim/tpu/system.h"
#include "sim/tpu/vector_math.h"
#include "support/error.h"
#include "support/tpuprog/disassembler.h"
#include "support/tpuprog/plan.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>

namespace chipless::sim::tpu {

using namespace tpuprog;

namespace {

constexpr size_t kMaxLoopDepth = 16;
constexpr int kMxuUnit = 100; ///< asynchronous unit ids: kMxuUnit + mxu, kDmaUnit + engine
constexpr int kDmaUnit = 200;

std::string hex(int64_t v) {
  return formatDevPtr(static_cast<uint64_t>(v));
}

} // namespace

TensorCore::TensorCore(sc_core::sc_module_name name, System& system, int chip, int core)
    : Unit(name, system, chip * 256 + core), chip_(chip), core_(core),
      label_("chip " + std::to_string(chip) + " core " + std::to_string(core)),
      sems_(system.arch().scalar.semaphores),
      laneCount_(system.arch().vpu.sublanes * system.arch().vpu.lanes) {
  const TpuArch& a = system.arch();
  if (!system.timingOnly()) {
    // calloc: the pages are only committed once touched, so a large VMEM costs nothing
    // until a program uses it.
    vmem_.reset(static_cast<uint8_t*>(std::calloc(static_cast<size_t>(a.vmem.bytes), 1)));
    if (!vmem_)
      throw Error(label_ + ": cannot allocate " + std::to_string(a.vmem.bytes) +
                  " bytes of VMEM on the host (vmem.bytes); try --timing-only");
    vregs_.assign(static_cast<size_t>(a.vpu.registers) * laneCount_, 0);
  }
  smem_.assign(static_cast<size_t>(a.smem.bytes), 0);
  vready_.assign(a.vpu.registers, 0);
  vread_.assign(a.vpu.registers, 0);
  mxus_.resize(a.mxu.count);
  mxuCounters_.resize(a.mxu.count);
  dmaFree_.assign(a.dma.engines, 0);
  dmaBusy_.assign(a.dma.engines, 0);
  perChannel_.assign(a.hbm.channels, 0);
  SC_THREAD(thread);
}

void TensorCore::arm(const Program* program, Cycles start) {
  const TpuArch& a = system_.arch();
  program_ = program;
  armed_ = program != nullptr;
  state_ = armed_ ? State::Running : State::Idle;
  local_ = start;
  pc_ = 0;
  current_ = nullptr;
  counters_ = {};
  blockedOn_.clear();
  loops_.clear();
  for (auto& r : regs_) r = 0;
  regs_[kRegCore] = core_;
  regs_[kRegNCores] = a.chip.tensorcores;
  regs_[kRegChip] = chip_;
  regs_[kRegNChips] = system_.chips();
  regs_[kRegNMxu] = a.mxu.count;
  for (auto& t : regReady_) t = start;
  sems_.clear();
  std::fill(vready_.begin(), vready_.end(), start);
  std::fill(vread_.begin(), vread_.end(), start);
  vldFree_ = vstFree_ = valuFree_ = start;
  for (auto& m : mxus_) m = {start, start, start, start};
  for (auto& m : mxuCounters_) m = {};
  std::fill(dmaFree_.begin(), dmaFree_.end(), start);
  std::fill(dmaBusy_.begin(), dmaBusy_.end(), 0.0);
  inflight_.reset(a.vmem.bytes);
  lastAsyncDone_ = start;
  collectivesOutstanding_ = 0;
}

void TensorCore::thread() {
  while (true) {
    while (!armed_) wait(system_.launchEvent());
    armed_ = false;
    try {
      run();
      state_ = State::Done;
    } catch (const LaunchAborted&) {
      state_ = State::Aborted;
    } catch (const Error& e) {
      state_ = State::Failed;
      system_.reportFault(e.what());
    }
    system_.noteActivity(local_);
  }
}

void TensorCore::run() {
  const auto& bundles = program_->bundles;
  const Cycles cpb = system_.arch().scalar.cycles_per_bundle;
  while (pc_ < bundles.size()) {
    if (system_.aborting()) throw LaunchAborted{};
    const Bundle& b = bundles[pc_];
    size_t next = pc_ + 1;
    ++counters_.bundles;
    for (const Op& op : b.ops) {
      current_ = &op;
      ++counters_.ops;
      execute(op, next);
    }
    current_ = nullptr;
    local_ += cpb;
    pc_ = next;
    // Accesses over before now can no longer conflict with anything issued from now on.
    inflight_.prune(local_);
  }
}

bool TensorCore::execute(const Op& op, size_t& nextPc) {
  switch (opcodeInfo(op.op).slot) {
  case Slot::Scalar:
    return scalarOp(op, nextPc);
  case Slot::VLoad:
    vectorLoadStore(op, true);
    return false;
  case Slot::VStore:
    vectorLoadStore(op, false);
    return false;
  case Slot::VAlu:
    vectorAlu(op);
    return false;
  case Slot::Mxu:
    mxuMatmul(op);
    return false;
  case Slot::Dma:
    switch (op.op) {
    case Opcode::DmaIn:
      dma(op, true);
      break;
    case Opcode::DmaOut:
      dma(op, false);
      break;
    case Opcode::IciSend:
      iciSend(op);
      break;
    default:
      collective(op);
      break;
    }
    return false;
  }
  return false;
}

void TensorCore::fault(const std::string& message) const {
  std::string where = label_;
  if (current_) {
    const OpcodeInfo& info = opcodeInfo(current_->op);
    std::string m = info.mnemonic;
    if (current_->dtype) m += std::string(".") + dtypeName(*current_->dtype);
    where += std::string(" ") + slotName(info.slot) + " pc " + std::to_string(pc_) + " (" + m + ")";
  } else {
    where += " pc " + std::to_string(pc_);
  }
  throw Error(where + ": " + message);
}

void TensorCore::traceSpan(int track, const std::string& name, Cycles start, Cycles end) {
  system_.traceSpan(system_.tracePid(chip_, core_), track, name, start, end,
                    static_cast<int64_t>(pc_));
}

// ---- scalar unit ----------------------------------------------------------------------

int64_t TensorCore::arg(const Op& op, size_t index) {
  const Operand& o = op.operands[index];
  int64_t v = o.imm;
  if (o.reg >= 0) {
    if (o.reg < kMaxGeneralRegs && regReady_[o.reg] > local_) { // a scalar load in flight
      counters_.issueStall += regReady_[o.reg] - local_;
      local_ = regReady_[o.reg];
    }
    v += regs_[o.reg];
  }
  if (o.sym >= 0) v += system_.symbolValue(o.sym);
  return v;
}

bool TensorCore::scalarOp(const Op& op, size_t& nextPc) {
  auto rd = [&]() -> int64_t& { return regs_[op.operands[0].reg]; };
  auto a = [&] { return arg(op, 1); };
  auto b = [&] { return arg(op, 2); };
  const TpuArch& arch = system_.arch();
  if (std::optional<ScalarAluOp> alu = aluOp(op.op)) {
    std::optional<int64_t> v = scalarAlu(*alu, a(), b());
    if (!v) fault("division by zero");
    rd() = *v;
    return false;
  }
  switch (op.op) {
  case Opcode::Li:
    rd() = a();
    break;
  case Opcode::Sld:
  case Opcode::Sst: {
    int64_t addr = op.op == Opcode::Sld ? arg(op, 1) : arg(op, 0);
    if (addr % 4 != 0) fault("misaligned SMEM address " + hex(addr) + " (a multiple of 4)");
    if (addr < 0 || addr + 4 > arch.smem.bytes)
      fault("SMEM address " + hex(addr) + " outside SMEM (0.." + hex(arch.smem.bytes) + ")");
    uint8_t* p = smem_.data() + addr;
    if (op.op == Opcode::Sld) {
      int32_t v;
      std::memcpy(&v, p, 4);
      rd() = v;
      regReady_[op.operands[0].reg] = local_ + arch.scalar.smem_latency_cycles;
    } else {
      int32_t v = static_cast<int32_t>(arg(op, 1));
      std::memcpy(p, &v, 4);
    }
    break;
  }
  case Opcode::Jmp:
    nextPc = static_cast<size_t>(op.operands[0].imm);
    return true;
  case Opcode::Beq:
  case Opcode::Bne:
  case Opcode::Blt:
  case Opcode::Bge: {
    int64_t x = arg(op, 0), y = arg(op, 1);
    bool taken = op.op == Opcode::Beq   ? x == y
                 : op.op == Opcode::Bne ? x != y
                 : op.op == Opcode::Blt ? x < y
                                        : x >= y;
    if (taken) nextPc = static_cast<size_t>(op.operands[2].imm);
    return taken;
  }
  case Opcode::Loop: {
    int64_t count = arg(op, 0);
    if (count <= 0) {
      nextPc = static_cast<size_t>(op.operands[1].imm);
      return true;
    }
    if (loops_.size() >= kMaxLoopDepth)
      fault("loops nested deeper than " + std::to_string(kMaxLoopDepth));
    loops_.push_back({pc_ + 1, count});
    return false;
  }
  case Opcode::EndLoop:
    if (loops_.empty()) fault("endloop without an active loop");
    if (--loops_.back().remaining > 0) {
      nextPc = loops_.back().body;
      return true;
    }
    loops_.pop_back();
    return false;
  case Opcode::Nop: {
    int64_t n = arg(op, 0);
    if (n < 0) fault("nop with negative cycles " + std::to_string(n));
    local_ += static_cast<Cycles>(n);
    break;
  }
  case Opcode::SemSignal: {
    int64_t sem = arg(op, 0), count = arg(op, 1), target = arg(op, 2);
    if (target < 0) target = core_;
    if (target >= arch.chip.tensorcores)
      fault("sem.signal to core " + std::to_string(target) + " of " +
            std::to_string(arch.chip.tensorcores) + " (chip.tensorcores)");
    TokenBank& bank = system_.core(chip_, static_cast<int>(target)).semaphores();
    if (sem < 0 || sem >= bank.size())
      fault("semaphore " + std::to_string(sem) + " out of range (0.." +
            std::to_string(bank.size() - 1) + ", scalar.semaphores)");
    if (count < 0) fault("negative count " + std::to_string(count));
    for (int64_t i = 0; i < count; ++i) bank.send(static_cast<int>(sem), local_ + 1);
    break;
  }
  case Opcode::SemWait:
    semWait(arg(op, 0), arg(op, 1));
    break;
  case Opcode::Fence:
    fence();
    break;
  case Opcode::Trap:
    fault("trap " + std::to_string(arg(op, 0)) +
          ": the program stopped itself (a check of its preconditions failed; see its source)");
  default:
    fault("not a scalar operation");
  }
  return false;
}

void TensorCore::semWait(int64_t sem, int64_t count) {
  if (sem < 0 || sem >= sems_.size())
    fault("semaphore " + std::to_string(sem) + " out of range (0.." +
          std::to_string(sems_.size() - 1) + ", scalar.semaphores)");
  if (count < 0) fault("negative count " + std::to_string(count));
  Cycles t = local_;
  for (int64_t i = 0; i < count; ++i) {
    while (sems_.pending(static_cast<int>(sem)) == 0)
      block(sems_.changed(), "semaphore " + std::to_string(sem) + " (took " + std::to_string(i) +
                                 " of " + std::to_string(count) +
                                 " tokens; nothing issued will signal it)");
    t = std::max(t, sems_.take(static_cast<int>(sem)));
  }
  if (t > local_) {
    system_.traceInstant(system_.tracePid(chip_, core_), System::kTrackScalar,
                         "sem.wait " + std::to_string(sem), t, t - local_);
    counters_.issueStall += t - local_;
    local_ = t;
  }
}

void TensorCore::fence() {
  while (collectivesOutstanding_ > 0)
    block(collectiveEvent_, "fence: " + std::to_string(collectivesOutstanding_) +
                                " collective(s) still running on the ICI");
  Cycles t = std::max({local_, lastAsyncDone_, vldFree_, vstFree_, valuFree_});
  for (Cycles r : vready_) t = std::max(t, r);
  if (t > local_) {
    counters_.issueStall += t - local_;
    local_ = t;
  }
}

void TensorCore::collectiveDone(Cycles t) {
  --collectivesOutstanding_;
  async(t);
  collectiveEvent_.notify(sc_core::SC_ZERO_TIME);
}

// ---- VMEM hazards -------------------------------------------------------------------------

void TensorCore::checkVmem(const char* what, const StridedBlock& block) {
  const int64_t size = system_.arch().vmem.bytes;
  if (block.lo() < 0 || block.hi() > size)
    fault(std::string(what) + ": VMEM bytes " + hex(block.lo()) + ".." + hex(block.hi()) +
          " outside VMEM (0.." + hex(size) + ", vmem.bytes)");
}

Cycles TensorCore::vmemReady(const StridedBlock* blocks, size_t count, Cycles start, bool write,
                             int unit, const char* what) {
  constexpr size_t kMaxQueries = 8;
  if (count > kMaxQueries) { // rare: check in groups, each continuing from the last result
    for (size_t i = 0; i < count; i += kMaxQueries)
      start = vmemReady(blocks + i, std::min(kMaxQueries, count - i), start, write, unit, what);
    return start;
  }
  std::optional<VmemInflight::Query> queries[kMaxQueries];
  bool any = false;
  for (size_t i = 0; i < count; ++i) {
    queries[i].emplace(blocks[i]);
    any = any || inflight_.mayConflict(*queries[i], write);
  }
  if (!any) return start;
  Cycles t = start;
  for (const VmemInflight::Access& a : inflight_.entries()) {
    if (a.end <= t || (!write && !a.write)) continue;
    if (unit != kVectorUnit && a.unit == unit) continue; // ordered by the unit itself
    bool hit = false;
    for (size_t i = 0; i < count && !hit; ++i) hit = VmemInflight::meets(a, *queries[i]);
    if (!hit) continue;
    if (a.unit == kVectorUnit) {
      t = std::max(t, a.end); // the vector slots are interlocked
      continue;
    }
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.0f", a.end);
    fault(std::string("race on VMEM ") + hex(a.lo) + ".." + hex(a.hi) + ": " + what +
          (write ? " writes" : " reads") + " it while " + a.what + " (pc " + std::to_string(a.pc) +
          ") still " + (a.write ? "writes" : "reads") + " it until cycle " + buf +
          "; wait on that operation's semaphore first (or use another buffer)");
  }
  return t;
}

void TensorCore::noteAccess(const StridedBlock& block, Cycles start, Cycles end, bool write,
                            int unit, const char* what) {
  if (end <= local_) return;
  inflight_.add(block, start, end, write, unit, what, pc_);
}

// ---- vector unit ------------------------------------------------------------------------

int64_t TensorCore::vregIndex(const Op& op, size_t operand, int64_t n) {
  int64_t v = op.operands[operand].imm;
  const int regs = system_.arch().vpu.registers;
  if (v < 0 || v + n > regs)
    fault("vector registers v" + std::to_string(v) + "..v" + std::to_string(v + n - 1) +
          " beyond v" + std::to_string(regs - 1) + " (vpu.registers)");
  return v;
}

void TensorCore::vectorLoadStore(const Op& op, bool load) {
  const TpuArch& arch = system_.arch();
  const DType type = *op.dtype;
  const int64_t esize = static_cast<int64_t>(dtypeSize(type));
  const int S = arch.vpu.sublanes, L = arch.vpu.lanes;
  const int64_t n = arg(op, 2);
  if (n < 1) fault("n = " + std::to_string(n) + ": at least one register");
  const int64_t v = vregIndex(op, 0, n);
  const int64_t addr = arg(op, 1);
  const int64_t rowBytes = L * esize;
  int64_t stride = arg(op, 3), vstride = arg(op, 4);
  if (stride == -1) stride = rowBytes;
  if (vstride == -1) vstride = S * stride;
  if (addr % esize != 0 || stride % esize != 0 || vstride % esize != 0)
    fault("misaligned VMEM access: address " + hex(addr) + ", stride " + std::to_string(stride) +
          ", vstride " + std::to_string(vstride) + " must be multiples of the element size (" +
          std::to_string(esize) + ")");
  const char* what = load ? "vld" : "vst";
  // The rows as strided blocks: one block when registers follow each other, else one each.
  StridedBlock blocks[kMaxVRegs];
  size_t nblocks = 0;
  if (vstride == S * stride) {
    blocks[nblocks++] = {addr, rowBytes, stride, n * S};
  } else {
    for (int64_t i = 0; i < n; ++i) blocks[nblocks++] = {addr + i * vstride, rowBytes, stride, S};
  }
  for (size_t i = 0; i < nblocks; ++i) checkVmem(what, blocks[i]);

  const Cycles c = quantize(std::max(1.0, static_cast<double>(S * rowBytes) /
                                              static_cast<double>(arch.vmem.bytes_per_cycle)));
  Cycles start = std::max(local_, load ? vldFree_ : vstFree_);
  for (int64_t i = 0; i < n; ++i) {
    const size_t r = static_cast<size_t>(v + i);
    if (load)
      start = std::max({start, vread_[r] - i * c, vready_[r] - i * c});
    else
      start = std::max(start, vready_[r] - i * c);
  }
  start = vmemReady(blocks, nblocks, start, !load, kVectorUnit, what);
  const Cycles end = start + n * c;

  if (!system_.timingOnly()) {
    uint8_t* mem = vmem_.get();
    for (int64_t i = 0; i < n; ++i)
      for (int r = 0; r < S; ++r) {
        uint8_t* row = mem + addr + i * vstride + r * stride;
        uint32_t* lanes = vreg(v + i) + r * L;
        if (load)
          loadRow(type, row, lanes, L);
        else
          storeRow(type, lanes, row, L);
      }
  }
  for (int64_t i = 0; i < n; ++i) {
    const size_t r = static_cast<size_t>(v + i);
    if (load)
      vready_[r] = start + i * c + arch.vpu.latency_cycles;
    else
      vread_[r] = std::max(vread_[r], start + (i + 1) * c);
  }
  for (size_t i = 0; i < nblocks; ++i) noteAccess(blocks[i], start, end, !load, kVectorUnit, what);
  const double bytes = static_cast<double>(n * S * rowBytes);
  if (load) {
    vldFree_ = end;
    counters_.vldBusy += end - start;
    counters_.vmemBytesLoaded += bytes;
  } else {
    vstFree_ = end;
    counters_.vstBusy += end - start;
    counters_.vmemBytesStored += bytes;
  }
  if (system_.tracing())
    traceSpan(load ? System::kTrackVld : System::kTrackVst,
              std::string(what) + "." + dtypeName(type), start, end);
}

void TensorCore::vectorAlu(const Op& op) {
  const TpuArch& arch = system_.arch();
  const OpcodeInfo& info = opcodeInfo(op.op);
  const DType type = *op.dtype;
  const int64_t n = arg(op, info.operands.size() - 1);
  if (n < 1) fault("n = " + std::to_string(n) + ": at least one register");
  const int64_t vd = vregIndex(op, 0, n);
  int64_t src[3] = {-1, -1, -1};
  size_t nsrc = 0;
  for (size_t k = 1; k + 1 < info.operands.size(); ++k)
    if (info.operands[k].kind == OperandKind::VReg) src[nsrc++] = vregIndex(op, k, n);
  double scalar = 0;
  if (op.op == Opcode::VSplat)
    std::memcpy(&scalar, &op.operands[1].imm, sizeof scalar);
  else if (op.op == Opcode::VBcast)
    scalar = static_cast<double>(arg(op, 1));

  const bool trans = isTranscendental(op.op);
  const Cycles interval = trans ? arch.vpu.transcendental_interval_cycles : 1;
  const Cycles latency = trans ? arch.vpu.transcendental_latency_cycles : arch.vpu.latency_cycles;
  Cycles start = std::max(local_, valuFree_);
  for (int64_t i = 0; i < n; ++i) {
    for (size_t s = 0; s < nsrc; ++s)
      start = std::max(start, vready_[static_cast<size_t>(src[s] + i)] - i * interval);
    const size_t d = static_cast<size_t>(vd + i);
    start =
        std::max({start, vread_[d] - i * interval - latency, vready_[d] - i * interval - latency});
  }
  const Cycles end = start + n * interval;

  if (!system_.timingOnly()) {
    // Sources are read before any result is written, also when the ranges overlap.
    bool staged = false;
    for (size_t s = 0; s < nsrc; ++s) staged |= src[s] != vd && src[s] < vd + n && vd < src[s] + n;
    std::vector<uint32_t> tmp;
    if (staged) tmp.resize(static_cast<size_t>(n) * laneCount_);
    // Operand order in the table: vsel is (vd, vc, va, vb); binary (vd, va, vb); unary (vd, va).
    const bool sel = op.op == Opcode::VSel;
    for (int64_t i = 0; i < n; ++i) {
      uint32_t* d = staged ? &tmp[static_cast<size_t>(i) * laneCount_] : vreg(vd + i);
      const uint32_t* x = nsrc > (sel ? 1 : 0) ? vreg(src[sel ? 1 : 0] + i) : nullptr;
      const uint32_t* y = nsrc > (sel ? 2 : 1) ? vreg(src[sel ? 2 : 1] + i) : nullptr;
      const uint32_t* cond = sel ? vreg(src[0] + i) : nullptr;
      if (op.op == Opcode::VIota)
        iota(type, d, op.operands[1].imm == 1, i, arch.vpu.sublanes, arch.vpu.lanes);
      else
        valu(op.op, type, d, x, y, cond, scalar, arch.vpu.sublanes, arch.vpu.lanes);
    }
    if (staged) std::copy(tmp.begin(), tmp.end(), vreg(vd));
  }
  for (int64_t i = 0; i < n; ++i) {
    for (size_t s = 0; s < nsrc; ++s) {
      Cycles& r = vread_[static_cast<size_t>(src[s] + i)];
      r = std::max(r, start + i * interval + 1);
    }
    vready_[static_cast<size_t>(vd + i)] = start + i * interval + latency;
  }
  valuFree_ = end;
  counters_.valuBusy += end - start;
  counters_.vregOps += static_cast<uint64_t>(n);
  if (system_.tracing())
    traceSpan(System::kTrackValu, std::string(info.mnemonic) + "." + dtypeName(type), start, end);
}

// ---- MXU ----------------------------------------------------------------------------------

void TensorCore::mxuMatmul(const Op& op) {
  const TpuArch& arch = system_.arch();
  const DType type = *op.dtype;
  const int64_t esize = static_cast<int64_t>(dtypeSize(type));
  const int64_t m = arg(op, 0);
  if (m < 0 || m >= arch.mxu.count)
    fault("MXU " + std::to_string(m) + " out of range (0.." + std::to_string(arch.mxu.count - 1) +
          ", mxu.count)");
  const int64_t lhs = arg(op, 1), rows = arg(op, 2), k = arg(op, 3);
  int64_t lhsStride = arg(op, 4);
  const int64_t rhs = arg(op, 5), n = arg(op, 6);
  int64_t rhsStride = arg(op, 7);
  const int64_t out = arg(op, 8);
  int64_t outStride = arg(op, 9);
  const int64_t acc = arg(op, 10), sem = arg(op, 11);
  const int R = arch.mxu.rows, C = arch.mxu.cols;
  if (rows < 0) fault("rows = " + std::to_string(rows) + " is negative");
  if (k < 1 || k > R)
    fault("k = " + std::to_string(k) + " must be 1.." + std::to_string(R) + " (mxu.rows)");
  if (n < 1 || n > C)
    fault("n = " + std::to_string(n) + " must be 1.." + std::to_string(C) + " (mxu.cols)");
  const bool transposed = op.op == Opcode::MxuMatmulNT;
  if (lhsStride == -1) lhsStride = k * esize;
  if (rhsStride == -1) rhsStride = (transposed ? k : n) * esize;
  if (outStride == -1) outStride = n * 4;
  if (lhs % esize || rhs % esize || lhsStride % esize || rhsStride % esize || out % 4 ||
      outStride % 4)
    fault("misaligned MXU operands: lhs " + hex(lhs) + ", rhs " + hex(rhs) + " and their strides " +
          "must be multiples of " + std::to_string(esize) + " bytes, out " + hex(out) +
          " and out_stride multiples of 4");
  if (sem < -1 || sem >= sems_.size())
    fault("semaphore " + std::to_string(sem) + " out of range (0.." +
          std::to_string(sems_.size() - 1) + ")");
  const StridedBlock lhsB{lhs, k * esize, lhsStride, rows},
      rhsB = transposed ? StridedBlock{rhs, k * esize, rhsStride, n}
                        : StridedBlock{rhs, n * esize, rhsStride, k},
      outB{out, n * 4, outStride, rows};
  if (rows == 0) {
    if (sem >= 0) sems_.send(static_cast<int>(sem), local_);
    return;
  }
  checkVmem("mxu.matmul lhs", lhsB);
  checkVmem("mxu.matmul rhs", rhsB);
  checkVmem("mxu.matmul out", outB);

  // Streaming: one activation row per cycle (int8: mxu.int8_speedup rows; fp32: one pass of
  // bf16 pieces per numerics.fp32_matmul_precision).
  Cycles stream = static_cast<Cycles>(rows);
  if (type == DType::F32) stream *= arch.fp32Passes();
  if (type == DType::I8)
    stream = static_cast<Cycles>((rows + arch.mxu.int8_speedup - 1) / arch.mxu.int8_speedup);
  MxuState& u = mxus_[static_cast<size_t>(m)];
  const int unit = kMxuUnit + static_cast<int>(m);
  static const char* const kNames[] = {"mxu0",  "mxu1",  "mxu2",  "mxu3", "mxu4",  "mxu5",
                                       "mxu6",  "mxu7",  "mxu8",  "mxu9", "mxu10", "mxu11",
                                       "mxu12", "mxu13", "mxu14", "mxu15"};
  const char* what = m < 16 ? kNames[m] : "mxu";
  const bool overlap = arch.mxu.overlap_weight_load;
  // Weights enter from the top, R cycles; with overlap they load into the shadow registers
  // while the previous fold streams, else only after its last result is out.
  Cycles loadStart = std::max(local_, overlap ? u.weightFree : u.done);
  loadStart = vmemReady(&rhsB, 1, loadStart, false, unit, what);
  const Cycles loadEnd = loadStart + R;
  // Activations enter from the left, skewed a cycle per row; the last result leaves the
  // array R + C - 2 cycles after the last row went in.
  Cycles streamStart = std::max(loadEnd, u.streamFree);
  streamStart = vmemReady(&lhsB, 1, streamStart, false, unit, what);
  streamStart = vmemReady(&outB, 1, streamStart, true, unit, what);
  const Cycles streamEnd = streamStart + stream;
  const Cycles done = streamEnd + R + C - 2;
  u.weightFree = overlap ? streamStart : done;
  u.streamFree = streamEnd;
  u.done = done;

  MxuCounters& mc = mxuCounters_[static_cast<size_t>(m)];
  mc.busy += done - std::max(loadStart, u.busyEnd);
  u.busyEnd = std::max(u.busyEnd, done);
  ++mc.folds;
  mc.flops += 2.0 * static_cast<double>(rows) * static_cast<double>(k) * static_cast<double>(n);
  if (mc.firstStart < 0) mc.firstStart = loadStart;
  mc.lastDone = std::max(mc.lastDone, done);

  noteAccess(rhsB, loadStart, loadEnd, false, unit, what);
  noteAccess(lhsB, streamStart, streamEnd, false, unit, what);
  noteAccess(outB, streamStart, done, true, unit, what);
  if (!system_.timingOnly()) {
    uint8_t* mem = vmem_.get();
    foldMatmul({mem + lhs, lhsStride, mem + rhs, rhsStride, mem + out, outStride, rows, k, n, type,
                acc != 0, arch.fp32Passes(), transposed});
  }
  if (sem >= 0) sems_.send(static_cast<int>(sem), done);
  async(done);
  system_.noteActivity(done);
  if (system_.tracing()) {
    traceSpan(system_.trackMxuWeights(static_cast<int>(m)), "weights", loadStart, loadEnd);
    traceSpan(system_.trackMxuStream(static_cast<int>(m)), std::string("fold.") + dtypeName(type),
              streamStart, done);
  }
}

// ---- DMA and ICI ----------------------------------------------------------------------------

void TensorCore::dma(const Op& op, bool in) {
  const TpuArch& arch = system_.arch();
  const int64_t dst = arg(op, 0), src = arg(op, 1), bytes = arg(op, 2), rows = arg(op, 3);
  int64_t srcStride = arg(op, 4), dstStride = arg(op, 5);
  const int64_t sem = arg(op, 6);
  const bool smem = op.operands[7].imm == 1;
  const char* what = in ? "dma.in" : "dma.out";
  if (srcStride == -1) srcStride = bytes;
  if (dstStride == -1) dstStride = bytes;
  if (bytes < 0 || rows < 0)
    fault("bytes = " + std::to_string(bytes) + ", rows = " + std::to_string(rows) +
          ": must not be negative");
  if (sem < -1 || sem >= sems_.size())
    fault("semaphore " + std::to_string(sem) + " out of range (0.." +
          std::to_string(sems_.size() - 1) + ")");
  if (bytes == 0 || rows == 0) { // nothing to move: the empty transfer has landed at once
    if (sem >= 0) sems_.send(static_cast<int>(sem), local_);
    return;
  }
  const int64_t hbmAddr = in ? src : dst, local = in ? dst : src;
  const int64_t hbmStride = in ? srcStride : dstStride, localStride = in ? dstStride : srcStride;
  const int64_t align = smem ? 4 : arch.dma.alignment_bytes;
  const bool strided = rows > 1;
  if (hbmAddr % arch.dma.alignment_bytes || local % align || bytes % align ||
      (strided && (hbmStride % arch.dma.alignment_bytes || localStride % align)))
    fault("misaligned DMA: HBM address " + hex(hbmAddr) + ", " + (smem ? "SMEM" : "VMEM") +
          " address " + hex(local) + ", " + std::to_string(bytes) + " bytes per row" +
          (strided ? ", strides " + std::to_string(hbmStride) + "/" + std::to_string(localStride)
                   : std::string()) +
          " must be multiples of " + std::to_string(align) +
          (smem ? " (SMEM words)" : " (dma.alignment_bytes)"));
  const StridedBlock localB{local, bytes, localStride, rows};
  if (smem) {
    if (localB.lo() < 0 || localB.hi() > arch.smem.bytes)
      fault("SMEM bytes " + hex(localB.lo()) + ".." + hex(localB.hi()) + " outside SMEM (0.." +
            hex(arch.smem.bytes) + ", smem.bytes)");
  } else {
    checkVmem(what, localB);
  }
  DeviceMemory& memory = system_.memory(chip_);
  Hbm& hbm = system_.hbm(chip_);
  std::fill(perChannel_.begin(), perChannel_.end(), 0.0);
  const bool fn = !system_.timingOnly();
  uint8_t* base = smem ? smem_.data() : vmem_.get();
  for (int64_t j = 0; j < rows; ++j) {
    const uint64_t h = static_cast<uint64_t>(hbmAddr + j * hbmStride);
    uint8_t* p = memory.span(h, static_cast<uint64_t>(bytes));
    if (!p)
      fault("HBM address " + hex(static_cast<int64_t>(h)) + " (" + std::to_string(bytes) +
            " bytes, row " + std::to_string(j) +
            ") is outside every allocation: " + memory.describe(h));
    if (fn) {
      uint8_t* l = base + local + j * localStride;
      if (in)
        std::memcpy(l, p, static_cast<size_t>(bytes));
      else
        std::memcpy(p, l, static_cast<size_t>(bytes));
    }
    hbm.split(h, static_cast<uint64_t>(bytes), perChannel_);
  }
  const double total = static_cast<double>(bytes * rows);

  // The engine free earliest takes it; it waits for vector-slot accesses of the same VMEM.
  const size_t e =
      static_cast<size_t>(std::min_element(dmaFree_.begin(), dmaFree_.end()) - dmaFree_.begin());
  const int unit = kDmaUnit + static_cast<int>(e);
  Cycles t = std::max(local_, dmaFree_[e]);
  if (!smem) t = vmemReady(&localB, 1, t, in, unit, what);
  const Cycles issue =
      quantize(arch.dma.setup_cycles + total / static_cast<Cycles>(arch.dma.bytes_per_cycle));
  Cycles finish = t + issue;
  const int chip = chip_;
  reserveShared([&] {
    std::vector<Timeline*> path(1);
    for (int c = 0; c < hbm.channels(); ++c) {
      if (perChannel_[c] == 0) continue;
      path[0] = &hbm.channel(c);
      finish = std::max(finish, quantize(reservePath(system_.now(), t + arch.dma.setup_cycles,
                                                     perChannel_[c], path, &starts_)));
      if (system_.tracing()) system_.traceResource(starts_[0], perChannel_[c], *path[0], chip);
    }
  });
  dmaFree_[e] = t + issue;
  dmaBusy_[e] += issue;
  (in ? hbm.bytesRead : hbm.bytesWritten) += total;
  (in ? counters_.dmaBytesIn : counters_.dmaBytesOut) += total;
  ++counters_.dmas;
  if (!smem) noteAccess(localB, t, finish, in, unit, what);
  if (sem >= 0) sems_.send(static_cast<int>(sem), finish);
  async(finish);
  system_.noteActivity(finish);
  if (system_.tracing()) traceSpan(system_.trackDma(static_cast<int>(e)), what, t, t + issue);
}

void TensorCore::iciSend(const Op& op) {
  const TpuArch& arch = system_.arch();
  const int64_t to = arg(op, 0), dst = arg(op, 1), src = arg(op, 2), bytes = arg(op, 3);
  const int64_t sem = arg(op, 4), done = arg(op, 5);
  if (to < 0 || to >= system_.chips())
    fault("chip " + std::to_string(to) + " out of range (0.." +
          std::to_string(system_.chips() - 1) + ", --chips)");
  if (bytes < 0) fault("bytes = " + std::to_string(bytes) + " is negative");
  for (int64_t s : {sem, done})
    if (s < -1 || s >= sems_.size())
      fault("semaphore " + std::to_string(s) + " out of range (0.." +
            std::to_string(sems_.size() - 1) + ")");
  const int64_t align = arch.dma.alignment_bytes;
  if (dst % align || src % align || bytes % align)
    fault("misaligned ICI transfer: source " + hex(src) + ", destination " + hex(dst) + ", " +
          std::to_string(bytes) + " bytes must be multiples of " + std::to_string(align) +
          " (dma.alignment_bytes)");
  DeviceMemory& here = system_.memory(chip_);
  DeviceMemory& there = system_.memory(static_cast<int>(to));
  uint8_t* from = here.span(static_cast<uint64_t>(src), static_cast<uint64_t>(bytes));
  if (!from)
    fault("HBM address " + hex(src) + " (" + std::to_string(bytes) +
          " bytes) is outside every allocation of chip " + std::to_string(chip_) + ": " +
          here.describe(static_cast<uint64_t>(src)));
  uint8_t* into = there.span(static_cast<uint64_t>(dst), static_cast<uint64_t>(bytes));
  if (!into)
    fault("HBM address " + hex(dst) + " (" + std::to_string(bytes) +
          " bytes) is outside every allocation of chip " + std::to_string(to) + ": " +
          there.describe(static_cast<uint64_t>(dst)));
  if (!system_.timingOnly() && bytes > 0) std::memmove(into, from, static_cast<size_t>(bytes));

  const size_t e =
      static_cast<size_t>(std::min_element(dmaFree_.begin(), dmaFree_.end()) - dmaFree_.begin());
  const Cycles t = std::max(local_, dmaFree_[e]);
  const Cycles issue =
      quantize(arch.dma.setup_cycles +
               static_cast<Cycles>(bytes) / static_cast<Cycles>(arch.dma.bytes_per_cycle));
  Cycles arrival = t + issue, read = t + issue;
  std::vector<Timeline*> path = system_.ici().route(chip_, static_cast<int>(to));
  if (!path.empty() && bytes > 0)
    reserveShared([&] {
      arrival =
          std::max(arrival, quantize(reservePath(system_.now(), t + arch.dma.setup_cycles,
                                                 static_cast<double>(bytes), path, &starts_)));
      read = quantize(starts_[0] + static_cast<Cycles>(bytes) / path[0]->bytesPerCycle());
      if (system_.tracing())
        for (size_t i = 0; i < path.size(); ++i)
          system_.traceResource(starts_[i], static_cast<double>(bytes), *path[i], -1);
    });
  dmaFree_[e] = t + issue;
  dmaBusy_[e] += issue;
  counters_.iciBytesSent += static_cast<double>(bytes);
  if (sem >= 0)
    system_.core(static_cast<int>(to), core_).semaphores().send(static_cast<int>(sem), arrival);
  if (done >= 0) sems_.send(static_cast<int>(done), read);
  async(arrival);
  system_.noteActivity(arrival);
  if (system_.tracing()) traceSpan(system_.trackDma(static_cast<int>(e)), "ici.send", t, t + issue);
}

void TensorCore::collective(const Op& op) {
  const TpuArch& arch = system_.arch();
  CollectiveRequest r;
  r.kind = op.op;
  r.type = op.dtype ? *op.dtype : DType::I8;
  r.src = static_cast<uint64_t>(arg(op, 0));
  r.dst = static_cast<uint64_t>(arg(op, 1));
  r.bytes = arg(op, 2);
  r.sem = arg(op, 3);
  r.issuer = this;
  r.issued = local_;
  r.pc = pc_;
  const int64_t esize = op.dtype ? static_cast<int64_t>(dtypeSize(*op.dtype)) : 1;
  if (r.bytes <= 0 || r.bytes % esize != 0)
    fault("bytes = " + std::to_string(r.bytes) +
          " must be a positive multiple of the element size");
  if (r.sem < -1 || r.sem >= sems_.size())
    fault("semaphore " + std::to_string(r.sem) + " out of range (0.." +
          std::to_string(sems_.size() - 1) + ")");
  const int64_t align = arch.dma.alignment_bytes;
  if (r.src % static_cast<uint64_t>(align) || r.dst % static_cast<uint64_t>(align))
    fault("misaligned collective: source " + hex(static_cast<int64_t>(r.src)) + ", destination " +
          hex(static_cast<int64_t>(r.dst)) + " must be multiples of " + std::to_string(align) +
          " (dma.alignment_bytes)");
  const int64_t chips = system_.chips();
  const int64_t srcBytes = op.op == Opcode::IciReduceScatter ? chips * r.bytes : r.bytes;
  const int64_t dstBytes = op.op == Opcode::IciAllGather ? chips * r.bytes : r.bytes;
  DeviceMemory& memory = system_.memory(chip_);
  if (!memory.contains(r.src, static_cast<uint64_t>(srcBytes)))
    fault("source " + hex(static_cast<int64_t>(r.src)) + " (" + std::to_string(srcBytes) +
          " bytes) is outside every allocation: " + memory.describe(r.src));
  if (!memory.contains(r.dst, static_cast<uint64_t>(dstBytes)))
    fault("destination " + hex(static_cast<int64_t>(r.dst)) + " (" + std::to_string(dstBytes) +
          " bytes) is outside every allocation: " + memory.describe(r.dst));
  ++collectivesOutstanding_;
  ++counters_.collectives;
  system_.iciEngine(chip_).submit(r);
}

// ---- statistics ---------------------------------------------------------------------------

void TensorCore::addStats(Stats& s, const std::string& p, Cycles cycles) const {
  const TpuArch& arch = system_.arch();
  const Counters& k = counters_;
  s.set(p + "bundles", static_cast<double>(k.bundles), "bundles", "VLIW bundles issued");
  s.set(p + "ops", static_cast<double>(k.ops), "operations", "operations in those bundles");
  s.set(p + "scalar.issue_stall_cycles", k.issueStall, "cycles",
        "issue held by sem.wait, fence or a scalar load");
  s.set(p + "vpu.vld_busy_cycles", k.vldBusy, "cycles", "vector load slot moving registers");
  s.set(p + "vpu.vst_busy_cycles", k.vstBusy, "cycles", "vector store slot moving registers");
  s.set(p + "vpu.valu_busy_cycles", k.valuBusy, "cycles", "vector ALU issuing");
  s.set(p + "vpu.register_ops", static_cast<double>(k.vregOps), "registers",
        "vector registers processed by the ALU");
  s.set(p + "vpu.utilization", k.valuBusy / cycles, "fraction", "valu_busy_cycles / cycles");
  s.set(p + "vmem.bytes_loaded", k.vmemBytesLoaded, "bytes", "VMEM to vector registers");
  s.set(p + "vmem.bytes_stored", k.vmemBytesStored, "bytes", "vector registers to VMEM");
  double flops = 0, busy = 0;
  for (size_t i = 0; i < mxuCounters_.size(); ++i) {
    const MxuCounters& m = mxuCounters_[i];
    std::string q = p + "mxu[" + std::to_string(i) + "].";
    s.set(q + "folds", static_cast<double>(m.folds), "folds");
    s.set(q + "flops", m.flops, "FLOP", "2 x rows x k x n per fold");
    s.set(q + "busy_cycles", m.busy, "cycles", "from first weight in to last result out");
    s.set(q + "utilization", m.flops / (cycles * 2.0 * arch.mxu.rows * arch.mxu.cols), "fraction",
          "flops / (cycles x 2 x rows x cols)");
    flops += m.flops;
    busy += m.busy;
  }
  Cycles first = -1, last = 0;
  for (const auto& m : mxuCounters_)
    if (m.folds) {
      first = first < 0 ? m.firstStart : std::min(first, m.firstStart);
      last = std::max(last, m.lastDone);
    }
  s.set(p + "mxu_flops", flops, "FLOP", "all MXUs of the core");
  s.set(p + "mxu_busy_cycles", busy, "cycles", "summed over the MXUs");
  s.set(p + "mxu_span_cycles", first < 0 ? 0 : last - first, "cycles",
        "from the first fold's first weight in to the last fold's last result out");
  double dmaBusy = 0;
  for (size_t e = 0; e < dmaBusy_.size(); ++e) {
    s.set(p + "dma[" + std::to_string(e) + "].busy_cycles", dmaBusy_[e], "cycles",
          "descriptor setup and issue");
    dmaBusy += dmaBusy_[e];
  }
  s.set(p + "dma_transfers", static_cast<double>(k.dmas), "descriptors");
  s.set(p + "dma_bytes_in", k.dmaBytesIn, "bytes", "HBM to VMEM/SMEM");
  s.set(p + "dma_bytes_out", k.dmaBytesOut, "bytes", "VMEM/SMEM to HBM");
  s.set(p + "ici_bytes_sent", k.iciBytesSent, "bytes", "by ici.send");
  s.set(p + "collectives", static_cast<double>(k.collectives), "collectives", "issued");
  s.set(p + "dma_utilization", dmaBusy / (cycles * static_cast<double>(dmaBusy_.size())),
        "fraction", "DMA engines issuing");
}

} // namespace chipless::sim::tpu
