#include "sim/spyre/dma_engine.h"

#include "sim/spyre/chip.h"
#include "sim/spyre/core.h"
#include "support/spyrecode/plan.h"

#include <climits>
#include <cstdio>
#include <cstring>

namespace chipless::sim::spyre {

using namespace spyrecode;

DmaEngine::DmaEngine(sc_core::sc_module_name name, Chip& chip, Core& core, Unit unit)
    : Engine(name, chip, core, unit, -1) {}

void DmaEngine::addUnitStats(Stats& stats, const std::string& prefix) const {
  stats.set(prefix + "bytes", bytes_, "bytes");
  stats.set(prefix + "transfers", static_cast<double>(transfers_), "descriptors");
}

void DmaEngine::checkFootprint(uint64_t mem, int64_t bytes, const int64_t n[3],
                               const int64_t ms[3]) {
  // The whole footprint before any run moves: device addresses that cannot overflow, and a
  // transfer that ends within --max-cycles (a count of billions fails here, not after hours).
  __int128 lo = static_cast<__int128>(mem), hi = lo + bytes;
  double runs = 1;
  for (int d = 0; d < 3; ++d) {
    const __int128 span = static_cast<__int128>(n[d] > 0 ? n[d] - 1 : 0) * ms[d];
    (span < 0 ? lo : hi) += span;
    runs *= static_cast<double>(n[d]);
  }
  auto field = [&](int d) { return "n" + std::to_string(d + 1) + " = " + std::to_string(n[d]); };
  int widest = 0;
  for (int d = 1; d < 3; ++d)
    if (n[d] > n[widest]) widest = d;
  if (lo < 0 || hi > static_cast<__int128>(UINT64_MAX))
    fault("device footprint of the transfer is outside the address space (" + field(widest) +
          ", memory strides " + std::to_string(ms[0]) + ", " + std::to_string(ms[1]) + ", " +
          std::to_string(ms[2]) + ")");
  const Cycles limit = chip_.maxCycles();
  if (limit <= 0 || runs == 0) return;
  // At least its bytes at the DMA rate.
  const double cycles =
      runs * static_cast<double>(bytes) / static_cast<double>(chip_.arch().dma.bytes_per_cycle);
  if (cycles + local_ - chip_.launchStart() > limit) {
    char text[160];
    std::snprintf(text, sizeof text,
                  ": the transfer's %.4g runs of %lld bytes take at least %.4g cycles, past "
                  "--max-cycles %lld",
                  runs, static_cast<long long>(bytes), cycles, static_cast<long long>(limit));
    fault(field(widest) + text);
  }
}

void DmaEngine::executeUnitOp(const Instruction& ins) {
  const SpyreArch& arch = chip_.arch();
  const bool load = ins.op == Opcode::DmaLoad || ins.op == Opcode::DmaLoadB;
  // dma.loadb / dma.storeb: any bytes, addresses and strides; charged by the sticks touched.
  const bool bytewise = ins.op == Opcode::DmaLoadB || ins.op == Opcode::DmaStoreB;
  const int64_t stick = arch.chip.stick_bytes;
  const int64_t sp = arg(ins, 0);
  const uint64_t programMem = static_cast<uint64_t>(arg(ins, 1));
  const int64_t bytes = arg(ins, 2);
  int64_t n[3], ms[3], ss[3];
  for (int d = 0; d < 3; ++d) {
    n[d] = arg(ins, 3 + 3 * d);
    ms[d] = arg(ins, 4 + 3 * d);
    ss[d] = arg(ins, 5 + 3 * d);
    if (n[d] < 0) fault("negative count n" + std::to_string(d + 1) + " = " + std::to_string(n[d]));
  }
  const int64_t done = arg(ins, 12);
  if (bytewise) {
    if (bytes <= 0) fault("bytes = " + std::to_string(bytes) + " is not positive");
  } else {
    if (bytes <= 0 || bytes % stick != 0)
      fault("bytes = " + std::to_string(bytes) + " is not a positive whole number of sticks (" +
            std::to_string(stick) + " bytes)");
    if (sp % stick != 0 || programMem % static_cast<uint64_t>(stick) != 0)
      fault("misaligned transfer: scratchpad address " + std::to_string(sp) + ", device address " +
            spyrecode::formatDevPtr(programMem) + " (both must be multiples of " +
            std::to_string(stick) + ")");
    for (int d = 0; d < 3; ++d)
      if (n[d] > 1 && (ss[d] % stick != 0 || ms[d] % stick != 0))
        fault("stride of dimension " + std::to_string(d + 1) + " is not a multiple of the stick");
  }
  if (done < -1 || done >= core_.tokens().size()) // -1: no token
    fault("token " + std::to_string(done) + " out of range (0.." +
          std::to_string(core_.tokens().size() - 1) + ")");
  // Scratchpad extent (128-bit: an absurd count times a stride must not wrap around).
  __int128 lo = sp, hi = sp;
  for (int d = 0; d < 3; ++d) {
    const __int128 span = static_cast<__int128>(n[d] > 0 ? n[d] - 1 : 0) * ss[d];
    (span < 0 ? lo : hi) += span;
  }
  if (lo < 0 || hi + bytes > arch.scratchpad.bytes) {
    auto text = [](__int128 v) {
      return v > INT64_MAX || v < INT64_MIN ? std::string("(beyond 64 bits)")
                                            : std::to_string(static_cast<int64_t>(v));
    };
    fault("scratchpad range " + text(lo) + ".." + text(hi + bytes) +
          " outside the scratchpad (0.." + std::to_string(arch.scratchpad.bytes) + ")");
  }
  checkFootprint(programMem, bytes, n, ms);
  // A share's program addresses its window from 0: its footprint must lie there.
  if (partition().memoryBytes) {
    __int128 lo = static_cast<__int128>(programMem), hi = lo + bytes;
    for (int d = 0; d < 3; ++d) {
      const __int128 span = static_cast<__int128>(n[d] > 0 ? n[d] - 1 : 0) * ms[d];
      (span < 0 ? lo : hi) += span;
    }
    if (std::string problem = partition().outsideWindow("device memory", lo, hi); !problem.empty())
      fault(problem);
  }
  const uint64_t mem = partition().deviceAddress(programMem);

  perChannel_.assign(static_cast<size_t>(chip_.dram().channels()), 0.0);
  DeviceMemory& memory = chip_.memory();
  uint8_t* pad = core_.scratchpad();
  const bool fn = !chip_.timingOnly();
  // When every run lies in one allocation (the usual case), look it up once: a run's bytes
  // are then at a fixed offset from the first. Otherwise each run is looked up, and the
  // first one outside every allocation faults.
  uint64_t memLo = mem, memHi = mem + static_cast<uint64_t>(bytes);
  for (int d = 0; d < 3; ++d) {
    const int64_t span = (n[d] > 0 ? n[d] - 1 : 0) * ms[d];
    (span < 0 ? memLo : memHi) += static_cast<uint64_t>(span);
  }
  uint8_t* whole = memLo <= mem && memHi >= memLo ? memory.span(memLo, memHi - memLo) : nullptr;
  int64_t total = 0;
  for (int64_t i3 = 0; i3 < n[2]; ++i3)
    for (int64_t i2 = 0; i2 < n[1]; ++i2)
      for (int64_t i1 = 0; i1 < n[0]; ++i1) {
        if ((++runsSinceCheck_ & 255) == 0) checkLimits(); // --timeout reaches into a long transfer
        uint64_t m = mem + static_cast<uint64_t>(i1 * ms[0] + i2 * ms[1] + i3 * ms[2]);
        int64_t s = sp + i1 * ss[0] + i2 * ss[1] + i3 * ss[2];
        uint8_t* p = whole ? (fn ? whole + (m - memLo) : whole)
                           : memory.span(m, static_cast<uint64_t>(bytes));
        if (!p)
          fault("device address " + spyrecode::formatDevPtr(m) + " (" + std::to_string(bytes) +
                " bytes, run " + std::to_string(i1) + "," + std::to_string(i2) + "," +
                std::to_string(i3) + ") is outside every allocation: " + memory.describe(m));
        if (fn) {
          if (load)
            std::memcpy(pad + s, p, static_cast<size_t>(bytes));
          else
            std::memcpy(p, pad + s, static_cast<size_t>(bytes));
        }
        if (bytewise) {
          // The device memory moves whole sticks: every stick the run touches.
          const uint64_t st = static_cast<uint64_t>(stick);
          const uint64_t first = m / st * st,
                         last = (m + static_cast<uint64_t>(bytes) + st - 1) / st * st;
          chip_.dram().split(first, last - first, perChannel_);
          total += static_cast<int64_t>(last - first);
        } else {
          chip_.dram().split(m, static_cast<uint64_t>(bytes), perChannel_);
          total += bytes;
        }
      }
  if (total == 0) { // nothing to move: the empty transfer has landed at once
    if (done >= 0) core_.tokens().send(static_cast<int>(done), local_);
    return;
  }

  // Timing: reserve the channels' time and the ring links between each channel's port
  // and this core, in simulated-time order with every other transfer.
  const Cycles issue = arch.dma.setup_cycles +
                       static_cast<Cycles>(total) / static_cast<Cycles>(arch.dma.bytes_per_cycle);
  Cycles t = 0, finish = 0;
  reserveShared([&] {
    t = local_;
    finish = t + issue;
    Ring& ring = chip_.ring();
    const int coreStop = ring.coreStop(core_.index());
    for (int c = 0; c < chip_.dram().channels(); ++c) {
      if (perChannel_[c] == 0) continue;
      Timeline& channel = chip_.dram().channel(c);
      const int port = ring.channelStop(c);
      path_.clear();
      if (load) {
        path_.push_back(&channel);
        ring.appendPath(port, coreStop, ring.shortest(port, coreStop), path_);
      } else {
        ring.appendPath(coreStop, port, ring.shortest(coreStop, port), path_);
        path_.push_back(&channel);
      }
      finish = std::max(finish, reservePath(chip_.now(), t + arch.dma.setup_cycles, perChannel_[c],
                                            path_, &starts_));
      for (size_t i = 0; chip_.tracing() && i < path_.size(); ++i)
        chip_.traceResource(starts_[i], perChannel_[c], *path_[i],
                            path_[i] == &channel ? chip_.dramTracePid() : chip_.ringTracePid());
    }
  });
  busySpan(opcodeInfo(ins.op).mnemonic, t, t + issue);
  local_ = t + issue;
  bytes_ += static_cast<double>(total);
  ++transfers_;
  noteAsyncDone(finish);
  if (done >= 0) core_.tokens().send(static_cast<int>(done), finish);
}

} // namespace chipless::sim::spyre
