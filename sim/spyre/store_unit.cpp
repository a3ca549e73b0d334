#include "sim/spyre/store_unit.h"

#include "sim/spyre/chip.h"

namespace chipless::sim::spyre {

using namespace spyrecode;

void StoreUnit::addUnitStats(Stats& stats, const std::string& prefix) const {
  stats.set(prefix + "sticks", static_cast<double>(sticks_), "sticks", "popped from FIFOs");
}

void StoreUnit::executeUnitOp(const Instruction& ins) {
  const int64_t n[3] = {arg(ins, 0), arg(ins, 6), arg(ins, 7)};
  const int64_t addr = arg(ins, 2);
  const int64_t s[3] = {arg(ins, 3), arg(ins, 4), arg(ins, 5)};
  StreamFifo& f = outputFifo(ins.operands[1].imm);
  checkStickBox("st.stream", addr, n, s);
  const int64_t items = boxItems(n);
  if (items == 0) return;
  const int64_t stick = stickBytes();
  const Cycles interval = static_cast<Cycles>(stick) /
                          static_cast<Cycles>(chip_.arch().scratchpad.port_bytes_per_cycle);
  uint8_t* pad = scratchpad();
  Cycles start =
      stream(items, interval, 0, {{&f, 1}}, {},
             [&](int64_t first, int64_t count, const uint8_t* const* in, uint8_t* const*) {
               scatterBox(pad, addr, n, s, first, count, stick, in[0]);
             });
  traceSpan("st.stream", start, local_);
  sticks_ += static_cast<uint64_t>(items);
}

} // namespace chipless::sim::spyre
