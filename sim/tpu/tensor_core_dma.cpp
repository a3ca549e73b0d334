/// The TensorCore's transfers: DMAs between HBM and VMEM/SMEM on the dma.engines engines,
/// ICI sends to other chips, and the collectives handed to the chip's ICI engine.
#include "sim/tpu/system.h"
#include "sim/tpu/tensor_core.h"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstring>

namespace chipless::sim::tpu {

using namespace tpuprog;

// ---- DMA and ICI ----------------------------------------------------------------------------

void TensorCore::checkWindow(const char* what, __int128 lo, __int128 hi) const {
  if (std::string problem = partition_.outsideWindow("HBM", lo, hi); !problem.empty())
    fault(std::string(what) + ": " + problem);
}

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
  // Footprints that do not fit 64 bits (an absurd row count times a stride) fail here,
  // before the block arithmetic below could wrap around.
  const __int128 localSpan = static_cast<__int128>(rows - 1) * localStride;
  if (localSpan > INT64_MAX / 4 || localSpan < INT64_MIN / 4)
    fault(std::string(smem ? "SMEM" : "VMEM") +
          " footprint of the transfer does not fit 64 bits (rows = " + std::to_string(rows) +
          ", stride " + std::to_string(localStride) + ")");
  const StridedBlock localB{local, bytes, localStride, rows};
  if (smem) {
    if (localB.lo() < 0 || localB.hi() > arch.smem.bytes)
      fault("SMEM bytes " + hex(localB.lo()) + ".." + hex(localB.hi()) + " outside SMEM (0.." +
            hex(arch.smem.bytes) + ", smem.bytes)");
  } else {
    checkVmem(what, localB);
  }
  // The whole HBM footprint, and a transfer that could not end within --max-cycles (rows in
  // the billions), fail before a row moves.
  const __int128 hbmSpan = static_cast<__int128>(rows - 1) * hbmStride;
  if (hbmAddr + hbmSpan < 0 || hbmAddr + hbmSpan + bytes > static_cast<__int128>(INT64_MAX))
    fault("HBM footprint of the transfer is outside the address space (rows = " +
          std::to_string(rows) + ", HBM stride " + std::to_string(hbmStride) + ")");
  checkWindow(what, hbmAddr + std::min<__int128>(hbmSpan, 0),
              hbmAddr + std::max<__int128>(hbmSpan, 0) + bytes);
  const double minCycles = static_cast<double>(rows) * static_cast<double>(bytes) /
                           static_cast<double>(arch.dma.bytes_per_cycle);
  if (system_.maxCycles() > 0 && minCycles + local_ - system_.launchStart() > system_.maxCycles()) {
    char text[160];
    std::snprintf(text, sizeof text,
                  "rows = %lld: the transfer's rows of %lld bytes take at least %.4g cycles, past "
                  "--max-cycles %lld",
                  static_cast<long long>(rows), static_cast<long long>(bytes), minCycles,
                  static_cast<long long>(system_.maxCycles()));
    fault(text);
  }
  DeviceMemory& memory = system_.memory(chip_);
  Hbm& hbm = system_.hbm(chip_);
  std::fill(perChannel_.begin(), perChannel_.end(), 0.0);
  const bool fn = !system_.timingOnly();
  uint8_t* base = smem ? smem_.data() : vmem_.get();
  for (int64_t j = 0; j < rows; ++j) {
    if ((j & 255) == 255) checkLimits(); // --timeout reaches into a long transfer
    const int64_t at = hbmAddr + j * hbmStride;
    const uint64_t h = deviceAddress(at);
    uint8_t* p = memory.span(h, static_cast<uint64_t>(bytes));
    if (!p)
      fault("HBM address " + hex(at) + " (" + std::to_string(bytes) + " bytes, row " +
            std::to_string(j) + ") is outside every allocation: " + memory.describe(h));
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
      if (system_.tracing())
        system_.traceResource(starts_[0], perChannel_[c], *path[0], system_.hbmTracePid(chip));
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
  checkWindow("ici.send source", src, static_cast<__int128>(src) + bytes);
  checkWindow("ici.send destination", dst, static_cast<__int128>(dst) + bytes);
  DeviceMemory& here = system_.memory(chip_);
  DeviceMemory& there = system_.memory(static_cast<int>(to));
  uint8_t* from = here.span(deviceAddress(src), static_cast<uint64_t>(bytes));
  if (!from)
    fault("HBM address " + hex(src) + " (" + std::to_string(bytes) +
          " bytes) is outside every allocation of chip " + std::to_string(chip_) + ": " +
          here.describe(deviceAddress(src)));
  uint8_t* into = there.span(deviceAddress(dst), static_cast<uint64_t>(bytes));
  if (!into)
    fault("HBM address " + hex(dst) + " (" + std::to_string(bytes) +
          " bytes) is outside every allocation of chip " + std::to_string(to) + ": " +
          there.describe(deviceAddress(dst)));
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
          system_.traceResource(starts_[i], static_cast<double>(bytes), *path[i],
                                system_.iciTracePid());
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
  if (!partition_.whole())
    fault("collectives need the whole system, and this program runs on a share of the device (" +
          partition_.describe() + ")");
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

} // namespace chipless::sim::tpu
