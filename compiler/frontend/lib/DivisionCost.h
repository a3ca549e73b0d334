//===- DivisionCost.h - the rates and sums of the division cost model ---*- C++ -*-===//
//
// Part of chipless. Private to the Spyre front end's division (Division.cpp for rows and
// matmul kernels, CopyDivisions.cpp for re-layouts, gathers, fills and windows): the
// architecture's rates the estimate reads and the sums every kind of kernel shares
// (Division.cpp's header says how a tile's cycles are estimated).
//
//===----------------------------------------------------------------------===//

#ifndef FRONTEND_DIVISIONCOST_H
#define FRONTEND_DIVISIONCOST_H

#include "Division.h"
#include "Layout.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace chipless::frontend {

/// The architecture's rates as the estimate uses them (per cycle of the chip's clock).
struct Rates {
  double dram, dma, sfu, latency, setup, ptPerCorelet, opFill, opChained, ring, hop;
  int64_t stick, budget, corelets, accumulatorElems, channels, interleave;
  explicit Rates(const SpyreArch& a)
      : dram(a.dramBytesPerCycle()), dma(static_cast<double>(a.dma.bytes_per_cycle)),
        sfu(a.sfu.sticks_per_cycle * a.chip.corelets_per_core), latency(a.dramLatencyCycles()),
        setup(static_cast<double>(a.dma.setup_cycles)),
        ptPerCorelet(static_cast<double>(a.peakFp16FlopsPerCycle()) / a.chip.cores /
                     a.chip.corelets_per_core),
        stick(a.chip.stick_bytes), budget(a.planningScratchpadBytes()),
        corelets(a.chip.corelets_per_core), accumulatorElems(a.pt.accumulator_bytes / 4),
        channels(a.dram.channels), interleave(a.dram.interleave_bytes) {
    // An op's stream fills the FIFOs to its SFU and back, then waits for the SFU pipeline.
    opFill = 2.0 * static_cast<double>(a.fifo.depth_sticks * a.fifo.latency_cycles) +
             static_cast<double>(a.sfu.latency_cycles);
    // An op right after another on the same SFU: its input fill overlaps the other's drain.
    opChained = static_cast<double>(a.fifo.depth_sticks * a.fifo.latency_cycles) +
                static_cast<double>(a.sfu.latency_cycles);
    ring = static_cast<double>(a.ring.bytes_per_cycle);
    hop = static_cast<double>(a.ring.hop_latency_cycles);
  }
  /// These rates for a kernel whose reads all fall in `bytes` of contiguous memory: DRAM
  /// serves them from the channels its interleaved blocks fall in, not all of them (a
  /// small tensor read by every tile is one or two channels' bandwidth).
  Rates within(int64_t bytes) const {
    Rates r = *this;
    const int64_t blocks = std::max<int64_t>(1, (bytes + interleave - 1) / interleave);
    r.dram = dram * static_cast<double>(std::min(blocks, channels)) / static_cast<double>(channels);
    return r;
  }
};

/// `v` rounded up to a multiple of `m`.
int64_t roundUp(int64_t v, int64_t m);

/// The divisors of `n`, ascending.
std::vector<int64_t> divisors(int64_t n);

/// Cycles of a tile that moves `in` and `out` bytes and works `work` cycles in `steps`
/// steps through `ops` ops, while all `tiles` tiles share DRAM.
double tileCycles(const Rates& r, double in, double out, double work, int64_t steps, int64_t tiles,
                  int64_t ops);

/// Bytes from the first element of `v` to its last.
int64_t spanBytes(const TensorView& v, int64_t elementBytes);

/// A re-layout, gather or fill: blocks of rows of one matrix of the result, or runs of whole
/// matrices, each a box of the source as it lies (CopyDivisions.cpp).
std::vector<Division> relayoutDivisions(const KernelGroup& k, const SpyreArch& arch,
                                        std::string& why);

/// A window kernel: tiles of whole output rows of one image (CopyDivisions.cpp).
std::vector<Division> windowDivisions(const KernelGroup& k, const SpyreArch& arch,
                                      std::string& why);

} // namespace chipless::frontend

#endif // FRONTEND_DIVISIONCOST_H
