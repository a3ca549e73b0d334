#include "sim/tpu/system.h"

#include "support/error.h"
#include "support/tpuprog/binary.h"
#include "support/tpuprog/isa.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <unistd.h>

namespace chipless::sim::tpu {

using namespace tpuprog;

System::System(const TpuArch& arch, const std::vector<DeviceMemory*>& memories, bool timingOnly)
    : arch_(arch), memories_(memories), timingOnly_(timingOnly),
      ici_(arch, static_cast<int>(memories.size())), arbiter_("arbiter"), launchEvent_("launch"),
      abortEvent_("abort"), periodPs_(1000.0 / arch.chip.clock_ghz),
      progressToTty_(isatty(2) != 0) {
  if (memories.empty()) throw Error("a TPU system needs at least one chip");
  for (int c = 0; c < static_cast<int>(memories.size()); ++c) {
    auto chip = std::make_unique<ChipModel>(arch_, c);
    for (int k = 0; k < arch_.chip.tensorcores; ++k)
      chip->cores.push_back(new TensorCore(
          ("chip" + std::to_string(c) + "_core" + std::to_string(k)).c_str(), *this, c, k));
    chip->ici = new IciEngine(("chip" + std::to_string(c) + "_ici").c_str(), *this, c);
    chips_.push_back(std::move(chip));
  }
}

System::~System() {
  // The modules belong to SystemC's hierarchy of this context; delete them with the System.
  for (auto& c : chips_) {
    for (TensorCore* k : c->cores) delete k;
    delete c->ici;
  }
}

Cycles System::now() const {
  return sc_core::sc_time_stamp().to_double() / periodPs_ - base_;
}

sc_core::sc_time System::toScTime(Cycles c) const {
  return sc_core::sc_time(c * periodPs_, sc_core::SC_PS);
}

void System::reportFault(const std::string& message, std::optional<int64_t> trapCode) {
  if (fault_.empty()) {
    fault_ = message;
    faultTrap_ = trapCode;
  }
  aborting_ = true;
  abortEvent_.notify(sc_core::SC_ZERO_TIME);
}

void System::checkProgram(const Program& p, size_t index) const {
  const int sregs = arch_.scalar.registers;
  for (size_t bi = 0; bi < p.bundles.size(); ++bi) {
    const Bundle& b = p.bundles[bi];
    std::string at = "program " + std::to_string(index) + " bundle " + std::to_string(bi);
    std::string slots = checkBundleSlots(b, arch_.scalar.slots);
    if (!slots.empty())
      throw Error(at + ": " + slots + " (scalar.slots = " + std::to_string(arch_.scalar.slots) +
                  ")");
    for (const Op& op : b.ops) {
      const OpcodeInfo& info = opcodeInfo(op.op);
      for (size_t i = 0; i < info.operands.size(); ++i) {
        const Operand& o = op.operands[i];
        if (o.reg >= 0 && o.reg < kMaxGeneralRegs && o.reg >= sregs)
          throw Error(at + " (" + info.mnemonic + "): operand '" + info.operands[i].name +
                      "' uses s" + std::to_string(o.reg) + " but a TensorCore has s0..s" +
                      std::to_string(sregs - 1) + " (scalar.registers)");
        if (info.operands[i].kind == OperandKind::VReg && o.imm >= arch_.vpu.registers)
          throw Error(at + " (" + info.mnemonic + "): operand '" + info.operands[i].name +
                      "' is v" + std::to_string(o.imm) + " but a TensorCore has v0..v" +
                      std::to_string(arch_.vpu.registers - 1) + " (vpu.registers)");
      }
    }
  }
}

void System::assignPrograms(const JobBinary& binary) {
  const int nchips = chips(), ncores = arch_.chip.tensorcores;
  std::vector<long> owner(static_cast<size_t>(nchips) * ncores, -1);
  for (auto& c : chips_) {
    for (TensorCore* k : c->cores) k->arm(nullptr, 0);
    c->ici->arm(0);
  }
  for (size_t pi = 0; pi < binary.programs.size(); ++pi) {
    const Program& p = binary.programs[pi];
    std::string what = "program " + std::to_string(pi);
    int lastChip = p.chipLast == kAll ? nchips - 1 : p.chipLast;
    int lastCore = p.coreLast == kAll ? ncores - 1 : p.coreLast;
    if (p.chipFirst >= nchips || lastChip >= nchips)
      throw Error(what + " is for chips " + std::to_string(p.chipFirst) + "-" +
                  std::to_string(lastChip) + " but the system has " + std::to_string(nchips) +
                  " chip(s) (--chips)");
    if (p.coreFirst >= ncores || lastCore >= ncores)
      throw Error(what + " is for cores " + std::to_string(p.coreFirst) + "-" +
                  std::to_string(lastCore) + " but a chip has " + std::to_string(ncores) +
                  " TensorCore(s) (chip.tensorcores)");
    checkProgram(p, pi);
    for (int c = p.chipFirst; c <= lastChip; ++c)
      for (int k = p.coreFirst; k <= lastCore; ++k) {
        long& o = owner[static_cast<size_t>(c) * ncores + k];
        if (o >= 0)
          throw Error(what + " and program " + std::to_string(o) + " both target " +
                      chips_[c]->cores[k]->label());
        o = static_cast<long>(pi);
        chips_[c]->cores[k]->arm(&p, 0);
      }
  }
}

void System::abortLaunch(std::string message) {
  aborting_ = true;
  abortEvent_.notify(sc_core::SC_ZERO_TIME);
  sc_core::sc_start();
  aborting_ = false;
  fault_.clear();
  std::optional<int64_t> trap = faultTrap_;
  faultTrap_.reset();
  trace_ = nullptr;
  resourceLog_.clear();
  if (trap) throw ProgramTrap(message, *trap);
  throw Error(message);
}

LaunchResult System::launch(const JobBinary& binary, const std::vector<int64_t>& symbolValues,
                            TraceWriter* trace) {
  if (symbolValues.size() != binary.symbols.size())
    throw Error("launch: " + std::to_string(symbolValues.size()) + " symbol values for " +
                std::to_string(binary.symbols.size()) + " symbols");
  auto hostStart = std::chrono::steady_clock::now();
  progressStart_ = progressLast_ = hostStart;
  symbols_ = &symbolValues;
  // A new time frame: units ran ahead of SystemC time, so the previous launch may end after
  // now(). Every reservation of the previous launch is over by then.
  base_ = std::max(now(), lastActivity_) + base_;
  lastActivity_ = 0;
  trace_ = trace;
  fault_.clear();
  faultTrap_.reset();
  aborting_ = false;
  const Cycles past = std::numeric_limits<Cycles>::infinity();
  for (auto& c : chips_) {
    c->hbm.resetCounters();
    for (int h = 0; h < c->hbm.channels(); ++h) c->hbm.channel(h).retire(past);
  }
  ici_.resetCounters();
  for (auto& l : ici_.links()) l.retire(past);
  assignPrograms(binary);
  if (trace_) nameTraceTracks();

  if (started_) launchEvent_.notify(sc_core::SC_ZERO_TIME);
  started_ = true;
  sc_core::sc_start();

  if (progressToTty_ && progressLast_ != progressStart_) std::fprintf(stderr, "\n");
  if (!fault_.empty()) abortLaunch(fault_);
  LaunchResult result;
  std::vector<std::string> blocked;
  for (auto& c : chips_) {
    for (TensorCore* k : c->cores) {
      result.bundles += k->counters().bundles;
      lastActivity_ = std::max(lastActivity_, k->localTime());
      if (k->state() == Unit::State::Running)
        blocked.push_back(k->label() + " pc " + std::to_string(k->pc()) + ": waiting for " +
                          (k->blockedOn().empty() ? std::string("an event") : k->blockedOn()));
    }
    if (c->ici->busy())
      blocked.push_back(
          c->ici->label() + ": waiting for " +
          (c->ici->blockedOn().empty() ? std::string("an event") : c->ici->blockedOn()));
  }
  if (!blocked.empty()) {
    std::string msg = "deadlock: the program can never finish; " + std::to_string(blocked.size()) +
                      " unit(s) are blocked:";
    for (size_t i = 0; i < blocked.size(); ++i) {
      if (i == 24) {
        msg += "\n  ... and " + std::to_string(blocked.size() - 24) + " more";
        break;
      }
      msg += "\n  " + blocked[i];
    }
    abortLaunch(msg);
  }
  result.cycles = lastActivity_;
  if (trace_) flushResourceTraces();
  result.hostSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - hostStart).count();
  trace_ = nullptr;
  return result;
}

void System::progress() {
  if (!progressToTty_) return;
  auto t = std::chrono::steady_clock::now();
  if (t - progressLast_ < std::chrono::seconds(1)) return;
  progressLast_ = t;
  double host = std::chrono::duration<double>(t - progressStart_).count();
  std::fprintf(stderr, "\r[tpu-sim] %.3f M cycles simulated, %.1f s", now() / 1e6, host);
  std::fflush(stderr);
}

// ---- tracing ------------------------------------------------------------------------------

void System::nameTraceTracks() {
  const int ncores = arch_.chip.tensorcores;
  for (int c = 0; c < chips(); ++c)
    for (int k = 0; k < ncores; ++k) {
      int pid = tracePid(c, k);
      trace_->processName(pid, "chip " + std::to_string(c) + " core " + std::to_string(k));
      trace_->processSortIndex(pid, pid);
      trace_->threadName(pid, kTrackScalar, "scalar");
      trace_->threadName(pid, kTrackVld, "vld");
      trace_->threadName(pid, kTrackVst, "vst");
      trace_->threadName(pid, kTrackValu, "valu");
      for (int m = 0; m < arch_.mxu.count; ++m) {
        trace_->threadName(pid, trackMxuWeights(m), "mxu" + std::to_string(m) + " weights");
        trace_->threadName(pid, trackMxuStream(m), "mxu" + std::to_string(m) + " stream");
      }
      for (int e = 0; e < arch_.dma.engines; ++e)
        trace_->threadName(pid, trackDma(e), "dma" + std::to_string(e));
      if (k == 0) trace_->threadName(pid, trackIci(), "ici");
    }
  const int base = chips() * ncores;
  for (int c = 0; c < chips(); ++c) {
    trace_->processName(base + c, "chip " + std::to_string(c) + " HBM channels (GB/s)");
    trace_->processSortIndex(base + c, base + c);
  }
  trace_->processName(base + chips(), "ICI links (GB/s)");
  trace_->processSortIndex(base + chips(), base + chips());
}

void System::traceSpan(int pid, int track, const std::string& name, Cycles start, Cycles end,
                       int64_t pc) {
  if (!trace_) return;
  trace_->complete(pid, track, name, toUs(start), toUs(end) - toUs(start), {{"pc", pc}});
}

void System::traceInstant(int pid, int track, const std::string& name, Cycles t, Cycles stall) {
  if (!trace_) return;
  trace_->instant(pid, track, name, toUs(t), {{"stall_cycles", stall}});
}

void System::traceResource(Cycles start, double bytes, const Timeline& resource, int chip) {
  if (!trace_) return;
  ResourceLog& log = resourceLog_[resource.name()];
  log.resource = &resource;
  log.pid = chips() * arch_.chip.tensorcores + (chip < 0 ? chips() : chip);
  log.busy.emplace_back(start, start + bytes / resource.bytesPerCycle());
}

void System::flushResourceTraces() {
  // Reservations fill gaps, so they are noted out of order: sort and merge them first.
  for (auto& [name, log] : resourceLog_) {
    std::sort(log.busy.begin(), log.busy.end());
    const double gbs = log.resource->bytesPerCycle() * arch_.chip.clock_ghz;
    for (size_t i = 0; i < log.busy.size();) {
      Cycles start = log.busy[i].first, end = log.busy[i].second;
      for (++i; i < log.busy.size() && log.busy[i].first <= end; ++i)
        end = std::max(end, log.busy[i].second);
      trace_->counter(log.pid, name, toUs(start), "GB/s", gbs);
      trace_->counter(log.pid, name, toUs(end), "GB/s", 0);
    }
  }
  resourceLog_.clear();
}

// ---- statistics ---------------------------------------------------------------------------

void System::collectStats(Stats& s, const LaunchResult& r) const {
  const Cycles cycles = std::max(r.cycles, 1e-9);
  const int ncores = arch_.chip.tensorcores;
  s.set("cycles", r.cycles, "cycles", "from launch to the last unit or transfer finishing");
  s.set("time_us", r.cycles / (arch_.chip.clock_ghz * 1000.0), "us",
        "simulated time at the modelled clock");
  s.set("bundles", static_cast<double>(r.bundles), "bundles", "issued by all TensorCores");
  s.set("chips", chips(), "chips");
  double flops = 0, valuBusy = 0, dmaBusy = 0, hbmBytes = 0, iciBusy = 0, iciBytes = 0;
  for (int c = 0; c < chips(); ++c) {
    const ChipModel& chip = *chips_[c];
    std::string p = "chip[" + std::to_string(c) + "].";
    for (int k = 0; k < ncores; ++k) {
      const TensorCore& core = *chip.cores[k];
      core.addStats(s, p + "core[" + std::to_string(k) + "].", cycles);
      for (const auto& m : core.mxuCounters()) flops += m.flops;
      valuBusy += core.counters().valuBusy;
      for (Cycles b : core.dmaBusy()) dmaBusy += b;
    }
    double busy = 0;
    for (int h = 0; h < chip.hbm.channels(); ++h) busy += chip.hbm.channel(h).busyCycles();
    s.set(p + "hbm.bytes_read", chip.hbm.bytesRead, "bytes", "by DMAs into VMEM/SMEM");
    s.set(p + "hbm.bytes_written", chip.hbm.bytesWritten, "bytes", "by DMAs out of VMEM/SMEM");
    s.set(p + "hbm.channel_busy_cycles", busy, "cycles", "summed over the channels");
    s.set(p + "hbm.bandwidth_gb_s",
          (chip.hbm.bytesRead + chip.hbm.bytesWritten) / cycles * arch_.chip.clock_ghz, "GB/s",
          "achieved over the launch");
    hbmBytes += chip.hbm.bytesRead + chip.hbm.bytesWritten;
    s.set(p + "ici.collectives", static_cast<double>(chip.ici->collectives), "collectives");
    s.set(p + "ici.bytes_sent", chip.ici->bytesSent, "bytes", "by collectives");
    s.set(p + "ici.busy_cycles", chip.ici->busyCycles, "cycles", "inside collectives");
  }
  const auto& links = ici_.links();
  for (size_t i = 0; i < links.size(); ++i) {
    std::string p = "ici.link[" + std::to_string(i) + "].";
    s.set(p + "bytes", links[i].bytes(), "bytes", links[i].name());
    s.set(p + "busy_cycles", links[i].busyCycles(), "cycles", links[i].name());
    iciBusy += links[i].busyCycles();
    iciBytes += links[i].bytes();
  }
  s.set("ici.links", static_cast<double>(links.size()), "links", ici_.describe());
  s.set("ici.bytes", iciBytes, "bytes", "summed over links (a byte counts once per hop)");
  const double cores = static_cast<double>(chips()) * ncores;
  s.set("mxu_flops", flops, "FLOP", "all MXUs of all chips");
  s.set("utilization.mxu",
        flops / (cycles * static_cast<double>(arch_.peakBf16FlopsPerCycle()) * chips()), "fraction",
        "MXU FLOPs / (cycles x peak bf16 FLOP per cycle)");
  s.set("utilization.vpu", valuBusy / (cycles * cores), "fraction", "vector ALUs issuing");
  s.set("utilization.dma", dmaBusy / (cycles * cores * arch_.dma.engines), "fraction",
        "DMA engines issuing");
  s.set("utilization.hbm", hbmBytes / (cycles * arch_.hbmBytesPerCycle() * chips()), "fraction",
        "HBM bandwidth used");
  s.set("utilization.ici", links.empty() ? 0.0 : iciBusy / (cycles * links.size()), "fraction",
        "ICI links busy");
}

} // namespace chipless::sim::tpu
