#include "sim/spyre/corelet_engine.h"

#include "sim/common/wide_text.h"
#include "sim/spyre/chip.h"
#include "sim/spyre/core.h"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstring>
#include <limits>

namespace chipless::sim::spyre {

using namespace spyrecode;

namespace {
/// Largest piece handled at once in functional mode (bounds the staging buffers).
constexpr int64_t kMaxFunctionalPiece = 2048;

/// Calls copy(address, index, sticks) for runs of sticks with consecutive addresses among
/// sticks [first, first + count) of a box (index: of the run's first stick, from `first`), in
/// order. Sticks of the innermost dimensions whose strides continue one another (ignoring
/// dimensions of one) form blocks of `block` consecutive addresses.
template <class Copy>
void forBoxRuns(int64_t base, const int64_t n[3], const int64_t s[3], int64_t first, int64_t count,
                int64_t stick, Copy&& copy) {
  int64_t block = 1;
  for (int d = 0; d < 3; ++d) {
    if (n[d] == 1) continue;
    if (s[d] != block * stick) break;
    block *= n[d];
  }
  for (int64_t item = first, end = first + count; item < end;) {
    const int64_t run = std::min(block - item % block, end - item);
    copy(boxAddress(base, item, n, s), item - first, run);
    item += run;
  }
}
} // namespace

void gatherBox(const uint8_t* pad, int64_t base, const int64_t n[3], const int64_t s[3],
               int64_t first, int64_t count, int64_t stick, uint8_t* stream) {
  forBoxRuns(base, n, s, first, count, stick, [&](int64_t address, int64_t at, int64_t run) {
    std::memcpy(stream + at * stick, pad + address, static_cast<size_t>(run * stick));
  });
}

void scatterBox(uint8_t* pad, int64_t base, const int64_t n[3], const int64_t s[3], int64_t first,
                int64_t count, int64_t stick, const uint8_t* stream) {
  forBoxRuns(base, n, s, first, count, stick, [&](int64_t address, int64_t at, int64_t run) {
    std::memcpy(pad + address, stream + at * stick, static_cast<size_t>(run * stick));
  });
}

bool CoreletEngine::functional() const {
  return !chip_.timingOnly();
}
int64_t CoreletEngine::stickBytes() const {
  return chip_.arch().chip.stick_bytes;
}
uint8_t* CoreletEngine::scratchpad() {
  return core_.scratchpad();
}

StreamFifo& CoreletEngine::inputFifo(int64_t port) {
  int n = chip_.arch().fifo.inputs_per_corelet;
  if (port < kPortIn || port >= kPortIn + n)
    fault("'" + portName(port) + "' is not an input FIFO (this corelet has in0..in" +
          std::to_string(n - 1) + ")");
  return core_.inputFifo(corelet_, static_cast<int>(port - kPortIn));
}

StreamFifo& CoreletEngine::outputFifo(int64_t port) {
  int n = chip_.arch().fifo.outputs_per_corelet;
  if (port < kPortOut || port >= kPortOut + n)
    fault("'" + portName(port) + "' is not an output FIFO (this corelet has out0..out" +
          std::to_string(n - 1) + ")");
  return core_.outputFifo(corelet_, static_cast<int>(port - kPortOut));
}

int64_t CoreletEngine::boxItems(const int64_t n[3]) {
  const double items =
      static_cast<double>(n[0]) * static_cast<double>(n[1]) * static_cast<double>(n[2]);
  if (items > static_cast<double>(INT64_MAX) / 4)
    fault("counts " + std::to_string(n[0]) + " x " + std::to_string(n[1]) + " x " +
          std::to_string(n[2]) + ": more sticks than any stream can move");
  return n[0] * n[1] * n[2];
}

void CoreletEngine::checkStickBox(const char* what, int64_t addr, const int64_t n[3],
                                  const int64_t s[3]) {
  const int64_t stick = stickBytes();
  // The whole box before any stick moves (128-bit: an absurd count times a stride must not
  // wrap around into the scratchpad).
  __int128 lo = addr, hi = addr;
  for (int d = 0; d < 3; ++d) {
    if (n[d] < 0) fault(std::string(what) + ": negative count " + std::to_string(n[d]));
    if (n[d] == 0) return;
    if (n[d] > 1 && s[d] % stick != 0)
      fault(std::string(what) + ": stride " + std::to_string(s[d]) +
            " is not a multiple of the stick (" + std::to_string(stick) + " bytes)");
    const __int128 span = static_cast<__int128>(n[d] - 1) * s[d];
    (span < 0 ? lo : hi) += span;
  }
  if (addr % stick != 0)
    fault(std::string(what) + ": scratchpad address " + std::to_string(addr) +
          " is not stick-aligned (" + std::to_string(stick) + " bytes)");
  int64_t size = chip_.arch().scratchpad.bytes;
  if (lo < 0 || hi + stick > size)
    fault(std::string(what) + ": scratchpad addresses " + wideText(lo) + ".." +
          wideText(hi + stick) + " outside the scratchpad (0.." + std::to_string(size) +
          ") (counts " + std::to_string(n[0]) + ", " + std::to_string(n[1]) + ", " +
          std::to_string(n[2]) + ")");
}

Cycles CoreletEngine::stream(int64_t items, Cycles interval, Cycles latency, const Ports& ins,
                             const Ports& outs, const Work& work) {
  const bool fn = functional();
  Cycles firstStart = -1;
  int64_t done = 0;
  const uint8_t* inPtr[4] = {};
  uint8_t* outPtr[4] = {};
  // A stream that could not end within --max-cycles fails before its first stick.
  const Cycles limit = chip_.maxCycles();
  if (limit > 0 && static_cast<double>(items) * interval + local_ - chip_.launchStart() > limit) {
    char text[160];
    std::snprintf(text, sizeof text,
                  "a stream of %lld items takes at least %.4g cycles, past --max-cycles %lld",
                  static_cast<long long>(items), static_cast<double>(items) * interval,
                  static_cast<long long>(limit));
    fault(text);
  }
  while (done < items) {
    checkLimits();
    int64_t k = items - done;
    if (fn) k = std::min(k, kMaxFunctionalPiece);
    const Port* starved = nullptr;
    for (const Port& p : ins) {
      int64_t can = static_cast<int64_t>(p.fifo->available()) / p.sticksPerItem;
      if (can < k) k = can;
      if (can == 0 && !starved) starved = &p;
    }
    if (k == 0) {
      blockWith(starved->fifo->changed(), [starved] {
        return "data in " + starved->fifo->name() + " (needs " +
               std::to_string(starved->sticksPerItem) + " stick(s), has " +
               std::to_string(starved->fifo->available()) + ")";
      });
      continue;
    }
    // When the piece could run: inputs ready, engine free, consumers not too far behind.
    Cycles first = local_, last = -std::numeric_limits<Cycles>::infinity();
    for (const Port& p : ins) {
      uint64_t base = p.fifo->popped();
      first = std::max(first, p.fifo->readyTime(base + p.sticksPerItem - 1));
      last = std::max(last, p.fifo->readyTime(base + k * p.sticksPerItem - 1));
    }
    auto backPressure = [&](const Port& p, uint64_t stickIndex, Cycles& t) {
      uint64_t depth = static_cast<uint64_t>(p.fifo->depth());
      if (stickIndex >= depth && stickIndex - depth < p.fifo->popped())
        t = std::max(t, p.fifo->popTime(stickIndex - depth) - latency);
    };
    for (const Port& p : outs) {
      uint64_t g = p.fifo->pushed();
      backPressure(p, g + p.sticksPerItem - 1, first);
      backPressure(p, g + k * p.sticksPerItem - 1, last);
    }
    last = std::max(last, first + static_cast<Cycles>(k - 1) * interval);
    stallUntil(first);
    if (firstStart < 0) firstStart = first;

    // The work reads its inputs where they lie in the FIFOs and writes its outputs in place
    // (the engine's FIFOs are its own: no other engine runs until it yields).
    for (size_t i = 0; i < ins.size(); ++i) {
      const Port& p = ins[i];
      inPtr[i] = p.fifo->front();
      p.fifo->pop(static_cast<uint64_t>(k * p.sticksPerItem), first, last, nullptr);
    }
    for (size_t j = 0; j < outs.size(); ++j)
      outPtr[j] = outs[j].fifo->reserve(static_cast<uint64_t>(k * outs[j].sticksPerItem));
    if (fn) work(done, k, inPtr, outPtr);
    for (size_t j = 0; j < outs.size(); ++j) {
      const Port& p = outs[j];
      p.fifo->push(static_cast<uint64_t>(k * p.sticksPerItem), first + latency, last + latency,
                   outPtr[j]);
    }
    // The last stick of the piece may only be pushed once the consumer has popped the
    // stick `depth` places before it.
    for (const Port& p : outs) {
      uint64_t depth = static_cast<uint64_t>(p.fifo->depth());
      uint64_t g = p.fifo->pushed() - 1;
      if (g < depth) continue;
      while (p.fifo->popped() <= g - depth)
        blockWith(p.fifo->changed(), [&p] {
          return "space in " + p.fifo->name() + " (consumer has popped " +
                 std::to_string(p.fifo->popped()) + " of " + std::to_string(p.fifo->pushed()) +
                 " sticks)";
        });
      last = std::max(last, p.fifo->popTime(g - depth) - latency);
    }
    Cycles work_ = static_cast<Cycles>(k) * interval;
    Cycles elapsed = last + interval - first;
    counters_.busy += work_;
    if (elapsed > work_) counters_.stall += elapsed - work_;
    local_ = last + interval;
    done += k;
  }
  if (firstStart < 0) firstStart = local_;
  // The operation is complete when its last result has left the pipeline.
  local_ = std::max(local_, local_ - interval + latency);
  return firstStart;
}

} // namespace chipless::sim::spyre
