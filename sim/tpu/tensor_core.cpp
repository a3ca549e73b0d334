#include "sim/tpu/tensor_core.h"

#include "sim/common/loop_floor.h"
#include "sim/common/scalar_alu.h"
#include "sim/tpu/system.h"
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
/// What bundle `b` is to control flow (its one control operation, if any); every bundle
/// takes at least a bundle's time.
StepControl bundleControl(const Bundle& b) {
  StepControl c;
  for (const Op& op : b.ops) {
    if (op.op == Opcode::Trap) return {StepControl::Kind::Leave, 0, true};
    if (StepControl k = controlOf(op); k.kind != StepControl::Kind::Other) c = k;
  }
  return c;
}
} // namespace

std::string TensorCore::hex(int64_t v) {
  return formatDevPtr(static_cast<uint64_t>(v));
}

TensorCore::TensorCore(sc_core::sc_module_name name, System& system, int chip, int core)
    : Unit(name, system, "chip " + std::to_string(chip) + " core " + std::to_string(core),
           chip * 256 + core),
      chip_(chip), core_(core), sems_(system.arch().scalar.semaphores),
      laneCount_(system.arch().vpu.sublanes * system.arch().vpu.lanes) {
  const TpuArch& a = system.arch();
  if (!system.timingOnly()) {
    // calloc: the pages are only committed once touched, so a large VMEM costs nothing
    // until a program uses it.
    vmem_.reset(static_cast<uint8_t*>(std::calloc(static_cast<size_t>(a.vmem.bytes), 1)));
    if (!vmem_)
      throw Error(label() + ": cannot allocate " + std::to_string(a.vmem.bytes) +
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
  SC_THREAD(serveLaunches);
}

void TensorCore::arm(const Program* program, Cycles start, const Partition& partition,
                     const std::vector<int64_t>* symbols) {
  const TpuArch& a = system_.arch();
  armThread(program != nullptr, start);
  program_ = program;
  symbols_ = symbols;
  partition_ = partition;
  pc_ = 0;
  current_ = nullptr;
  counters_ = {};
  control_.reset(system_.maxCycles(), a.scalar.cycles_per_bundle, "bundles");
  for (auto& r : regs_) r = 0;
  regs_[kRegCore] = core_ - partition.coreFirst;
  regs_[kRegNCores] = partition.cores > 0 ? partition.cores : a.chip.tensorcores;
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

std::string TensorCore::where() const {
  return label() + " pc " + std::to_string(pc_);
}

void TensorCore::runProgram() {
  const auto& bundles = program_->bundles;
  const Cycles cpb = system_.arch().scalar.cycles_per_bundle;
  while (pc_ < bundles.size()) {
    if (system_.aborting()) throw LaunchAborted{};
    const Bundle& b = bundles[pc_];
    size_t next = pc_ + 1;
    ++counters_.bundles;
    checkLimits();
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
  throw Error(faultLocation() + ": " + message);
}

std::string TensorCore::faultLocation() const {
  std::string where = label();
  if (current_) {
    const OpcodeInfo& info = opcodeInfo(current_->op);
    std::string m = info.mnemonic;
    if (current_->dtype) m += std::string(".") + dtypeName(*current_->dtype);
    where += std::string(" ") + slotName(info.slot) + " pc " + std::to_string(pc_) + " (" + m + ")";
  } else {
    where += " pc " + std::to_string(pc_);
  }
  return where;
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
  if (o.sym >= 0) v += (*symbols_)[static_cast<size_t>(o.sym)];
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
  ControlStep c = control_.step(
      op.op, pc_, [&](size_t i) { return arg(op, i); },
      [&](size_t i) { return op.operands[i].imm; }, limitAt_ - local_,
      [&](size_t loop, size_t end) {
        return loopIterationFloor(loop, end,
                                  [&](size_t p) { return bundleControl(program_->bundles[p]); });
      });
  if (c.control) {
    if (!c.fault.empty()) fault(c.fault);
    if (c.jump) nextPc = *c.jump;
    return c.jump.has_value();
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
    throw ProgramTrap(faultLocation() + ": trap " + std::to_string(arg(op, 0)) +
                          ": the program stopped itself (a check of its preconditions failed)",
                      arg(op, 0));
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
