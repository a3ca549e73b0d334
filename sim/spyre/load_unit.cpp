#include "sim/spyre/load_unit.h"

#include "sim/spyre/chip.h"

namespace chipless::sim::spyre {

using namespace spyrecode;

void LoadUnit::addUnitStats(Stats& stats, const std::string& prefix) const {
  stats.set(prefix + "sticks", static_cast<double>(sticks_), "sticks", "pushed into FIFOs");
}

void LoadUnit::executeUnitOp(const Instruction& ins) {
  const int64_t n[3] = {arg(ins, 0), arg(ins, 6), arg(ins, 7)};
  const int64_t addr = arg(ins, 2), addrB = arg(ins, 9);
  const int64_t s[3] = {arg(ins, 3), arg(ins, 4), arg(ins, 5)};
  const int64_t sb[3] = {arg(ins, 10), arg(ins, 11), arg(ins, 12)};
  const bool twoLanes = ins.operands[8].imm != kPortNone;
  StreamFifo& a = inputFifo(ins.operands[1].imm);
  StreamFifo* b = twoLanes ? &inputFifo(ins.operands[8].imm) : nullptr;
  if (b == &a) fault("both lanes push into " + a.name());
  checkStickBox("lane a", addr, n, s);
  if (twoLanes) checkStickBox("lane b", addrB, n, sb);
  const int64_t items = boxItems(n);
  if (items == 0) return;
  const int64_t stick = stickBytes();
  const Cycles interval = static_cast<Cycles>((twoLanes ? 2 : 1) * stick) /
                          static_cast<Cycles>(chip_.arch().scratchpad.port_bytes_per_cycle);
  const uint8_t* pad = scratchpad();
  auto work = [&](int64_t first, int64_t count, const uint8_t* const*, uint8_t* const* out) {
    gatherBox(pad, addr, n, s, first, count, stick, out[0]);
    if (twoLanes) gatherBox(pad, addrB, n, sb, first, count, stick, out[1]);
  };
  Cycles start = twoLanes ? stream(items, interval, 0, {}, {{&a, 1}, {b, 1}}, work)
                          : stream(items, interval, 0, {}, {{&a, 1}}, work);
  traceSpan("ld.stream", start, local_);
  sticks_ += static_cast<uint64_t>(items * (twoLanes ? 2 : 1));
}

} // namespace chipless::sim::spyre
