#include "sim/spyre/chip.h"

#include "sim/spyre/compute_unit.h"
#include "support/error.h"
#include "support/spyrecode/isa.h"

#include <algorithm>
#include <limits>

namespace chipless::sim::spyre {

using namespace spyrecode;

Chip::Chip(const SpyreArch& arch, DeviceMemory& memory, bool timingOnly)
    : LaunchHost(arch.chip.clock_ghz, timingOnly, "spyre-sim"), arch_(arch), memory_(memory),
      fp16Format_(*parseFp16Format(arch.numerics.fp16_format)), ring_(arch), dram_(arch) {
  for (int c = 0; c < arch.chip.cores; ++c) cores_.push_back(std::make_unique<Core>(*this, c));
}

Cycles Chip::ringLatency(int fromCore, int toCore) const {
  int a = ring_.coreStop(fromCore), b = ring_.coreStop(toCore);
  int h = std::min(ring_.hops(a, b, RingDir::Cw), ring_.hops(a, b, RingDir::Ccw));
  return static_cast<Cycles>(h) * arch_.ring.hop_latency_cycles;
}

void Chip::assignPrograms(const std::vector<SpyreLaunchPart>& parts) {
  const int cores = arch_.chip.cores, corelets = arch_.chip.corelets_per_core;
  std::vector<const Program*> assigned(static_cast<size_t>(cores) * (3 + 3 * corelets), nullptr);
  std::vector<size_t> owner(assigned.size(), 0);
  std::vector<int> partOf(static_cast<size_t>(cores), -1);
  for (auto& c : cores_)
    for (Engine* e : c->engines()) e->arm(nullptr, launchStart(), {}, nullptr);
  for (size_t part = 0; part < parts.size(); ++part) {
    const SpyreLaunchPart& lp = parts[part];
    const Partition& where = lp.partition;
    const int first = where.coreFirst, count = where.coreCount(cores);
    // Which part's programs these are, in errors of a launch of several.
    const std::string of = parts.size() > 1 ? " of part " + std::to_string(part) : "";
    if (first < 0 || first + count > cores)
      throw Error("part " + std::to_string(part) + " runs on " + where.describe() +
                  " but the chip has " + std::to_string(cores) + " cores (chip.cores)");
    for (int k = first; k < first + count; ++k) {
      if (partOf[k] >= 0)
        throw Error("parts " + std::to_string(partOf[k]) + " and " + std::to_string(part) +
                    " both run on core " + std::to_string(k));
      partOf[k] = static_cast<int>(part);
    }
    const JobBinary& binary = *lp.binary;
    for (size_t pi = 0; pi < binary.programs.size(); ++pi) {
      const Program& p = binary.programs[pi];
      std::string what = "program " + std::to_string(pi) + of + " (" + unitName(p.unit) + ")";
      int last = p.coreLast == kAllCores ? count - 1 : p.coreLast;
      if (p.coreFirst >= count || last >= count)
        throw Error(what + " is for cores " + std::to_string(p.coreFirst) + "-" +
                    std::to_string(last) + " but " +
                    (where.cores > 0
                         ? "its share has " + std::to_string(count) + " cores"
                         : "the chip has " + std::to_string(cores) + " cores (chip.cores)"));
      if (p.corelet >= corelets)
        throw Error(what + " is for corelet " + std::to_string(p.corelet) + " but a core has " +
                    std::to_string(corelets) + " (chip.corelets_per_core)");
      for (int c = first + p.coreFirst; c <= first + last; ++c) {
        int lo = isCoreletUnit(p.unit) ? (p.corelet < 0 ? 0 : p.corelet) : 0;
        int hi = isCoreletUnit(p.unit) ? (p.corelet < 0 ? corelets - 1 : p.corelet) : 0;
        for (int l = lo; l <= hi; ++l) {
          Engine& e = cores_[c]->engine(p.unit, l);
          size_t slot =
              static_cast<size_t>(c) * (3 + 3 * corelets) + static_cast<size_t>(e.traceTrack());
          if (assigned[slot])
            throw Error(what + " and program " + std::to_string(owner[slot]) + " both target " +
                        e.label());
          assigned[slot] = &p;
          owner[slot] = pi;
          e.arm(&p, launchStart(), where, lp.symbols);
        }
      }
    }
  }
}

void Chip::resetShared() {
  // Every launch starts at time 0, and every reservation of the previous one is over: a
  // launch's times (and their rounding) do not depend on what ran before it.
  ring_.resetCounters();
  dram_.resetCounters();
  const Cycles past = std::numeric_limits<Cycles>::infinity();
  for (int s = 0; s < ring_.stops(); ++s)
    for (RingDir d : {RingDir::Cw, RingDir::Ccw}) ring_.link(s, d).retire(past);
  for (int c = 0; c < dram_.channels(); ++c) dram_.channel(c).retire(past);
  for (auto& c : cores_) c->resetForLaunch();
}

LaunchResult Chip::launch(const JobBinary& binary, const std::vector<int64_t>& symbolValues,
                          TraceWriter* trace) {
  return launch({SpyreLaunchPart{&binary, &symbolValues, {}}}, trace).front();
}

std::vector<LaunchResult> Chip::launch(const std::vector<SpyreLaunchPart>& parts,
                                       TraceWriter* trace) {
  checkLaunchParts(parts);
  // The parts' symbols reach their engines (Engine::arm); the host's own table is the first
  // part's.
  const std::vector<int64_t>& firstSymbols = *parts.front().symbols;
  LaunchTimes times = runLaunch(firstSymbols.size(), firstSymbols, trace, [&] {
    resetShared();
    assignPrograms(parts);
  });
  const int cores = arch_.chip.cores;
  std::vector<LaunchResult> results;
  for (const SpyreLaunchPart& lp : parts) {
    LaunchResult r{times, 0};
    const int first = lp.partition.coreFirst, count = lp.partition.coreCount(cores);
    Cycles finished = launchStart();
    for (int c = first; c < first + count; ++c)
      for (const Engine* e : cores_[c]->engines()) {
        r.instructions += e->counters().instructions;
        finished = std::max(finished, e->finishedAt());
      }
    // One part on the whole chip keeps the launch's own end.
    if (parts.size() > 1 || !lp.partition.whole()) r.cycles = finished - launchStart();
    results.push_back(r);
  }
  return results;
}

void Chip::nameTraceTracks(TraceWriter& trace) {
  const int cores = arch_.chip.cores;
  for (int c = 0; c < cores; ++c) {
    trace.processName(c, "core " + std::to_string(c));
    trace.processSortIndex(c, c);
    for (Engine* e : cores_[c]->engines()) {
      std::string name = unitName(e->unit());
      if (isCoreletUnit(e->unit())) name += std::to_string(e->corelet());
      trace.threadName(c, e->traceTrack(), name);
    }
  }
  trace.processName(ringTracePid(), "ring links (GB/s)");
  trace.processSortIndex(ringTracePid(), ringTracePid());
  trace.processName(dramTracePid(), "dram channels (GB/s)");
  trace.processSortIndex(dramTracePid(), dramTracePid());
}

void Chip::collectStats(Stats& s, const LaunchResult& r) const {
  const Cycles cycles = std::max(r.cycles, 1e-9);
  const int cores = arch_.chip.cores, corelets = arch_.chip.corelets_per_core;
  s.set("chip.cycles", r.cycles, "cycles", "from launch to the last engine finishing");
  s.set("chip.time_us", r.cycles / (arch_.chip.clock_ghz * 1000.0), "us",
        "simulated time at the modelled clock");
  s.set("chip.instructions", static_cast<double>(r.instructions), "instructions");
  double busy[kUnitCount] = {};
  for (int c = 0; c < cores; ++c)
    for (const Engine* e : cores_[c]->engines()) {
      std::string name = unitName(e->unit());
      if (isCoreletUnit(e->unit())) name += std::to_string(e->corelet());
      std::string p = "chip.core[" + std::to_string(c) + "]." + name + ".";
      const auto& k = e->counters();
      s.set(p + "instructions", static_cast<double>(k.instructions), "instructions");
      s.set(p + "busy_cycles", k.busy, "cycles", "executing operations");
      s.set(p + "stall_cycles", k.stall, "cycles", "waiting for data, FIFO space or tokens");
      s.set(p + "utilization", k.busy / cycles, "fraction", "busy_cycles / chip.cycles");
      e->addUnitStats(s, p);
      busy[static_cast<int>(e->unit())] += k.busy;
    }
  double ringBytes = 0, ringBusy = 0;
  const Ring& ring = ring_;
  for (int st = 0; st < ring.stops(); ++st)
    for (RingDir d : {RingDir::Cw, RingDir::Ccw}) {
      const Timeline& l = ring.link(st, d);
      std::string p =
          "chip.ring.link[" + std::to_string(st) + "]." + (d == RingDir::Cw ? "cw." : "ccw.");
      s.set(p + "bytes", l.bytes(), "bytes");
      s.set(p + "busy_cycles", l.busyCycles(), "cycles");
      ringBytes += l.bytes();
      ringBusy += l.busyCycles();
    }
  s.set("chip.ring.bytes", ringBytes, "bytes", "summed over links (a byte counts once per hop)");
  double dramBytes = 0;
  const Dram& dram = dram_;
  for (int ch = 0; ch < dram.channels(); ++ch) {
    const Timeline& t = dram.channel(ch);
    std::string p = "chip.dram.channel[" + std::to_string(ch) + "].";
    s.set(p + "bytes", t.bytes(), "bytes");
    s.set(p + "busy_cycles", t.busyCycles(), "cycles");
    dramBytes += t.bytes();
  }
  s.set("chip.dram.bytes", dramBytes, "bytes", "read and written");
  s.set("chip.dram.bandwidth_gb_s", dramBytes / cycles * arch_.chip.clock_ghz, "GB/s",
        "achieved over the launch");
  const double units = static_cast<double>(cores) * corelets;
  double ptBusy = 0, sfuBusy = 0;
  for (int c = 0; c < cores; ++c)
    for (const Engine* e : cores_[c]->engines())
      if (auto* cu = dynamic_cast<const ComputeUnit*>(e)) {
        ptBusy += cu->ptBusyCycles();
        sfuBusy += cu->sfuBusyCycles();
      }
  s.set("chip.utilization.pt", ptBusy / (cycles * units), "fraction", "PT arrays busy");
  s.set("chip.utilization.sfu", sfuBusy / (cycles * units), "fraction", "SFUs busy");
  s.set("chip.utilization.dma",
        (busy[static_cast<int>(Unit::DmaIn)] + busy[static_cast<int>(Unit::DmaOut)]) /
            (cycles * cores * 2),
        "fraction", "DMA engines issuing");
  s.set("chip.utilization.ring", ringBusy / (cycles * ring.stops() * 2), "fraction",
        "ring links busy");
  s.set("chip.utilization.dram", dramBytes / (cycles * arch_.dramBytesPerCycle()), "fraction",
        "DRAM bandwidth used");
}

} // namespace chipless::sim::spyre
