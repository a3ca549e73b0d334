#include "sim/tpu/system.h"

#include "support/error.h"
#include "support/tpuprog/binary.h"
#include "support/tpuprog/isa.h"

#include <algorithm>
#include <limits>

namespace chipless::sim::tpu {

using namespace tpuprog;

System::System(const TpuArch& arch, const std::vector<DeviceMemory*>& memories, bool timingOnly)
    : LaunchHost(arch.chip.clock_ghz, timingOnly, "tpu-sim"), arch_(arch), memories_(memories),
      ici_(arch, static_cast<int>(memories.size())) {
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

void System::assignPrograms(const std::vector<TpuLaunchPart>& parts) {
  const int nchips = chips(), ncores = arch_.chip.tensorcores;
  std::vector<long> owner(static_cast<size_t>(nchips) * ncores, -1);
  std::vector<int> partOf(static_cast<size_t>(ncores), -1);
  for (auto& c : chips_) {
    for (TensorCore* k : c->cores) k->arm(nullptr, launchStart(), {}, nullptr);
    c->ici->arm(launchStart());
  }
  for (size_t part = 0; part < parts.size(); ++part) {
    const TpuLaunchPart& lp = parts[part];
    const Partition& where = lp.partition;
    const int first = where.coreFirst, count = where.cores > 0 ? where.cores : ncores;
    // Which part's programs these are, in errors of a launch of several.
    const std::string of = parts.size() > 1 ? " of part " + std::to_string(part) : "";
    if (first < 0 || first + count > ncores)
      throw Error("part " + std::to_string(part) + " runs on " + where.describe() +
                  " but a chip has " + std::to_string(ncores) +
                  " TensorCore(s) (chip.tensorcores)");
    for (int k = first; k < first + count; ++k) {
      if (partOf[k] >= 0)
        throw Error("parts " + std::to_string(partOf[k]) + " and " + std::to_string(part) +
                    " both run on chip core " + std::to_string(k));
      partOf[k] = static_cast<int>(part);
    }
    const JobBinary& binary = *lp.binary;
    for (size_t pi = 0; pi < binary.programs.size(); ++pi) {
      const Program& p = binary.programs[pi];
      std::string what = "program " + std::to_string(pi) + of;
      int lastChip = p.chipLast == kAll ? nchips - 1 : p.chipLast;
      int lastCore = p.coreLast == kAll ? count - 1 : p.coreLast;
      if (p.chipFirst >= nchips || lastChip >= nchips)
        throw Error(what + " is for chips " + std::to_string(p.chipFirst) + "-" +
                    std::to_string(lastChip) + " but the system has " + std::to_string(nchips) +
                    " chip(s) (--chips)");
      if (p.coreFirst >= count || lastCore >= count)
        throw Error(what + " is for cores " + std::to_string(p.coreFirst) + "-" +
                    std::to_string(lastCore) + " but " +
                    (where.cores > 0 ? "its share has " + std::to_string(count) + " TensorCore(s)"
                                     : "a chip has " + std::to_string(ncores) +
                                           " TensorCore(s) (chip.tensorcores)"));
      checkProgram(p, pi);
      for (int c = p.chipFirst; c <= lastChip; ++c)
        for (int k = first + p.coreFirst; k <= first + lastCore; ++k) {
          long& o = owner[static_cast<size_t>(c) * ncores + k];
          if (o >= 0)
            throw Error(what + " and program " + std::to_string(o) + " both target " +
                        chips_[c]->cores[k]->label());
          o = static_cast<long>(pi);
          chips_[c]->cores[k]->arm(&p, launchStart(), where, lp.symbols);
        }
    }
  }
}

LaunchResult System::launch(const JobBinary& binary, const std::vector<int64_t>& symbolValues,
                            TraceWriter* trace) {
  return launch({TpuLaunchPart{&binary, &symbolValues, {}}}, trace).front();
}

std::vector<LaunchResult> System::launch(const std::vector<TpuLaunchPart>& parts,
                                         TraceWriter* trace) {
  checkLaunchParts(parts);
  // The parts' symbols reach their cores (TensorCore::arm); the host's own table is the first
  // part's, for what still reads it there.
  const std::vector<int64_t>& first = *parts.front().symbols;
  LaunchTimes times = runLaunch(first.size(), first, trace, [&] {
    resetShared();
    assignPrograms(parts);
  });
  const int ncores = arch_.chip.tensorcores;
  std::vector<LaunchResult> results;
  for (const TpuLaunchPart& lp : parts) {
    LaunchResult r{times, 0};
    const int first = lp.partition.coreFirst;
    const int count = lp.partition.cores > 0 ? lp.partition.cores : ncores;
    Cycles finished = launchStart();
    for (auto& c : chips_)
      for (int k = first; k < first + count; ++k) {
        r.bundles += c->cores[k]->counters().bundles;
        finished = std::max(finished, c->cores[k]->finishedAt());
      }
    // One part on the whole system keeps the launch's own end (the ICI engines' work too).
    if (parts.size() > 1 || !lp.partition.whole()) r.cycles = finished - launchStart();
    results.push_back(r);
  }
  return results;
}

void System::resetShared() {
  // Every reservation of the previous launch is over when this one starts.
  const Cycles past = std::numeric_limits<Cycles>::infinity();
  for (auto& c : chips_) {
    c->hbm.resetCounters();
    for (int h = 0; h < c->hbm.channels(); ++h) c->hbm.channel(h).retire(past);
  }
  ici_.resetCounters();
  for (auto& l : ici_.links()) l.retire(past);
}

// ---- tracing ------------------------------------------------------------------------------

void System::nameTraceTracks(TraceWriter& trace) {
  const int ncores = arch_.chip.tensorcores;
  for (int c = 0; c < chips(); ++c)
    for (int k = 0; k < ncores; ++k) {
      int pid = tracePid(c, k);
      trace.processName(pid, "chip " + std::to_string(c) + " core " + std::to_string(k));
      trace.processSortIndex(pid, pid);
      trace.threadName(pid, kTrackScalar, "scalar");
      trace.threadName(pid, kTrackVld, "vld");
      trace.threadName(pid, kTrackVst, "vst");
      trace.threadName(pid, kTrackValu, "valu");
      for (int m = 0; m < arch_.mxu.count; ++m) {
        trace.threadName(pid, trackMxuWeights(m), "mxu" + std::to_string(m) + " weights");
        trace.threadName(pid, trackMxuStream(m), "mxu" + std::to_string(m) + " stream");
      }
      for (int e = 0; e < arch_.dma.engines; ++e)
        trace.threadName(pid, trackDma(e), "dma" + std::to_string(e));
      if (k == 0) trace.threadName(pid, trackIci(), "ici");
    }
  for (int c = 0; c < chips(); ++c) {
    trace.processName(hbmTracePid(c), "chip " + std::to_string(c) + " HBM channels (GB/s)");
    trace.processSortIndex(hbmTracePid(c), hbmTracePid(c));
  }
  trace.processName(iciTracePid(), "ICI links (GB/s)");
  trace.processSortIndex(iciTracePid(), iciTracePid());
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
