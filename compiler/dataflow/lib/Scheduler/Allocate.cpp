//===- Allocate.cpp - scratchpad addresses from buffer lifetimes ----------===//
//
// Part of chipless. A buffer lives from the first step that touches it to the last, and
// through every loop in which it is used across iterations (touched outside the loop as
// well, or read in the loop before it is written). Buffers whose lifetimes do not overlap
// share addresses; the synchroniser orders the steps of the old and the new occupant.
// Addresses are whole sticks within SpyreArch::planningScratchpadBytes().
//
//===----------------------------------------------------------------------===//

#include "Stages.h"
#include "mlir/IR/Diagnostics.h"

#include <algorithm>
#include <limits>
#include <optional>

using namespace mlir;

namespace chipless::sched {

namespace {

void collect(const Node& node, std::vector<std::vector<std::pair<int, bool>>>& uses,
             std::vector<const Node*>& loops, std::vector<bool>& transferred) {
  if (node.isLoop()) {
    if (node.loop >= 0) loops.push_back(&node);
    for (const auto& c : node.body) collect(*c, uses, loops, transferred);
    return;
  }
  const int e = node.step->engine;
  const bool dma = e == Engines::dmaIn() || e == Engines::dmaOut() || e == Engines::ring();
  for (const Access& a : node.step->accesses)
    if (a.space == Access::Space::Scratch) {
      uses[static_cast<size_t>(a.buffer)].push_back({node.pos, a.write});
      if (dma) transferred[static_cast<size_t>(a.buffer)] = true;
    }
}

} // namespace

LogicalResult allocateScratchpad(CoreSchedule& s, int64_t budget, int64_t stick, MLIRContext* ctx) {
  std::vector<std::vector<std::pair<int, bool>>> uses(s.buffers.size());
  std::vector<const Node*> loops;
  std::vector<bool> transferred(s.buffers.size(), false); ///< touched by DMA or the ring
  collect(s.root, uses, loops, transferred);
  for (size_t i = 0; i < s.buffers.size(); ++i) {
    auto& u = uses[i];
    Buffer& b = s.buffers[i];
    if (b.resident) {
      b.first = 0;
      b.last = std::numeric_limits<int>::max();
      continue;
    }
    if (u.empty()) continue;
    std::sort(u.begin(), u.end());
    b.first = u.front().first;
    b.last = u.back().first;
    // Loops the value lives across.
    for (bool changed = true; changed;) {
      changed = false;
      for (const Node* loop : loops) {
        bool inside = false, outside = false, firstRead = false;
        bool seenInside = false;
        for (auto [pos, write] : u) {
          bool in = pos >= loop->pos && pos <= loop->end;
          if (in && !seenInside) {
            firstRead = !write;
            seenInside = true;
          }
          inside |= in;
          outside |= !in;
        }
        // Lifetime already covering accesses outside the loop on both sides also counts.
        bool spans = b.first < loop->pos || b.last > loop->end;
        if (!inside || !(outside || firstRead || spans)) continue;
        if (b.first > loop->pos || b.last < loop->end) {
          b.first = std::min(b.first, loop->pos);
          b.last = std::max(b.last, loop->end);
          changed = true;
        }
      }
    }
  }
  // Double buffering: a buffer used only within one iteration of a loop gets two copies,
  // one per parity of the iteration, so the next iteration's producer need not wait for
  // this iteration's consumers. When the copies do not all fit, only the buffers that DMA
  // or the ring fill or drain keep them (overlapping transfers with compute is what
  // pays); then none.
  std::vector<const Node*> loopOf(s.buffers.size(), nullptr);
  for (size_t i = 0; i < s.buffers.size(); ++i) {
    const Buffer& b = s.buffers[i];
    if (b.first < 0 || b.fixedAddr >= 0 || !b.exchange.empty()) continue;
    const Node* innermost = nullptr;
    for (const Node* loop : loops)
      if (loop->pos <= b.first && b.last <= loop->end && !loop->conditional &&
          (!innermost || loop->depth > innermost->depth))
        innermost = loop;
    // Not live across its iterations: the lifetime stays inside the body.
    if (innermost && (b.first > innermost->pos || b.last < innermost->end)) loopOf[i] = innermost;
  }
  // A block of the tile's own scratchpad must not overlap another buffer with a fixed
  // address (another such block, an exchange buffer).
  for (size_t i = 0; i < s.buffers.size(); ++i) {
    const Buffer& r = s.buffers[i];
    if (!r.resident) continue;
    for (size_t j = 0; j < s.buffers.size(); ++j) {
      const Buffer& o = s.buffers[j];
      if (j == i || o.fixedAddr < 0 || o.first < 0 || (o.resident && j < i)) continue;
      if (o.fixedAddr < r.fixedAddr + r.bytes && r.fixedAddr < o.fixedAddr + o.bytes)
        return emitError(r.loc ? *r.loc : UnknownLoc::get(ctx))
                   << "keeps bytes [" << r.fixedAddr << ", " << r.fixedAddr + r.bytes
                   << ") of the tile's own scratchpad, which overlap " << o.name << " at ["
                   << o.fixedAddr << ", " << o.fixedAddr + o.bytes << ") on core " << s.core,
               failure();
    }
  }
  enum class Doubling { None, Transferred, All };
  auto place = [&](Doubling mode) -> std::optional<size_t> {
    for (size_t i = 0; i < s.buffers.size(); ++i) {
      Buffer& b = s.buffers[i];
      // A buffer with a fixed address keeps it even when no step here touches it: the
      // other cores' copy of an exchange buffer that this core writes over the ring.
      b.addr = b.fixedAddr;
      b.phases = 1;
      b.phaseLoop = -1;
      const bool doubled =
          mode == Doubling::All || (mode == Doubling::Transferred && transferred[i]);
      if (doubled && loopOf[i]) {
        b.phases = 2;
        b.phaseLoop = loopOf[i]->loop;
        b.phase = floorDiv(Expr::var(loopOf[i]->loop) - loopOf[i]->lb, loopOf[i]->stride);
      }
    }
    // Buffers with a fixed address first, then first fit in order of first use.
    std::vector<size_t> order;
    for (size_t i = 0; i < s.buffers.size(); ++i)
      if (s.buffers[i].first >= 0) order.push_back(i);
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      bool fa = s.buffers[a].fixedAddr >= 0, fb = s.buffers[b].fixedAddr >= 0;
      if (fa != fb) return fa;
      return s.buffers[a].first < s.buffers[b].first;
    });
    std::vector<size_t> placed;
    for (size_t i : order) {
      Buffer& b = s.buffers[i];
      const int64_t size = b.bytes * b.phases;
      if (b.fixedAddr >= 0) {
        b.addr = b.fixedAddr;
        placed.push_back(i);
        continue;
      }
      std::vector<std::pair<int64_t, int64_t>> taken;
      for (size_t j : placed) {
        const Buffer& o = s.buffers[j];
        if (o.last < b.first || o.first > b.last) continue;
        taken.push_back({o.addr, o.addr + o.bytes * o.phases});
      }
      std::sort(taken.begin(), taken.end());
      int64_t addr = 0;
      for (auto [lo, hi] : taken) {
        if (addr + size <= lo) break;
        addr = std::max(addr, (hi + stick - 1) / stick * stick);
      }
      if (addr + size > budget) return i;
      b.addr = addr;
      placed.push_back(i);
    }
    return std::nullopt;
  };
  if (!place(Doubling::All) || !place(Doubling::Transferred)) return success();
  std::optional<size_t> failedAt = place(Doubling::None);
  if (!failedAt) return success();
  const Buffer& b = s.buffers[*failedAt];
  int64_t live = 0;
  for (const Buffer& o : s.buffers)
    if (o.addr >= 0 && !(o.last < b.first || o.first > b.last)) live += o.bytes * o.phases;
  InFlightDiagnostic d = emitError(b.loc ? *b.loc : UnknownLoc::get(ctx));
  d << "needs " << b.bytes << " bytes of scratchpad for " << b.name << " while " << live
    << " bytes are live on core " << s.core << ", over the planning budget of " << budget
    << " bytes (scratchpad.bytes - reserved_bytes, less planning_margin); tiles that large "
       "need strip-mining the scheduler does not do for this op";
  return failure();
}

} // namespace chipless::sched
