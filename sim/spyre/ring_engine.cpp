#include "sim/spyre/ring_engine.h"

#include "sim/common/wide_text.h"
#include "sim/spyre/chip.h"
#include "sim/spyre/core.h"
#include "sim/spyre/sfu_math.h"

#include <cstring>

namespace chipless::sim::spyre {

using namespace spyrecode;

RingEngine::RingEngine(sc_core::sc_module_name name, Chip& chip, Core& core)
    : Engine(name, chip, core, Unit::Ring, -1) {}

void RingEngine::addUnitStats(Stats& stats, const std::string& prefix) const {
  stats.set(prefix + "bytes", bytes_, "bytes", "sent to other cores");
  stats.set(prefix + "messages", static_cast<double>(messages_), "messages");
}

void RingEngine::executeUnitOp(const Instruction& ins) {
  const SpyreArch& arch = chip_.arch();
  const int64_t stick = arch.chip.stick_bytes;
  const int64_t dstCore = arg(ins, 0), src = arg(ins, 1), dst = arg(ins, 2), bytes = arg(ins, 3);
  const int64_t dir = ins.operands[4].imm, op = ins.operands[5].imm;
  const int64_t token = arg(ins, 6), done = arg(ins, 7);
  const int target = physicalCore(dstCore, "destination core");
  if (bytes <= 0 || bytes % stick != 0)
    fault("bytes = " + std::to_string(bytes) + " is not a positive whole number of sticks");
  if (src % stick != 0 || dst % stick != 0)
    fault("misaligned scratchpad address (src " + std::to_string(src) + ", dst " +
          std::to_string(dst) + "; must be multiples of " + std::to_string(stick) + ")");
  for (auto [name, addr] : {std::pair<const char*, int64_t>{"src", src}, {"dst", dst}})
    if (addr < 0 || bytes > arch.scratchpad.bytes || addr > arch.scratchpad.bytes - bytes)
      fault(std::string(name) + " range " + std::to_string(addr) + ".." +
            wideText(static_cast<__int128>(addr) + bytes) + " outside the scratchpad (0.." +
            std::to_string(arch.scratchpad.bytes) + ")");
  Core& to = chip_.core(target);
  for (int64_t t : {token, done})
    if (t < -1 || t >= core_.tokens().size()) // -1: no token
      fault("token " + std::to_string(t) + " out of range (0.." +
            std::to_string(core_.tokens().size() - 1) + ")");

  if (!chip_.timingOnly()) {
    const uint8_t* from = core_.scratchpad() + src;
    uint8_t* into = to.scratchpad() + dst;
    if (op == 0)
      std::memmove(into, from, static_cast<size_t>(bytes));
    else
      combineSticks(static_cast<RingOp>(op), *ins.dtype, chip_.fp16Format(), from, into,
                    static_cast<size_t>(bytes / stick), static_cast<size_t>(stick));
  }

  const Cycles sendTime =
      static_cast<Cycles>(bytes) / static_cast<Cycles>(arch.ring.bytes_per_cycle);
  Cycles t = 0, arrival = 0;
  reserveShared([&] {
    t = local_;
    Ring& ring = chip_.ring();
    const int a = ring.coreStop(core_.index()), b = ring.coreStop(target);
    const RingDir d = dir == 0 ? ring.shortest(a, b) : dir == 1 ? RingDir::Cw : RingDir::Ccw;
    path_.clear();
    ring.appendPath(a, b, d, path_);
    arrival = t + sendTime;
    if (!path_.empty())
      arrival = std::max(arrival,
                         reservePath(chip_.now(), t, static_cast<double>(bytes), path_, &starts_));
    for (size_t i = 0; chip_.tracing() && i < path_.size(); ++i)
      chip_.traceResource(starts_[i], static_cast<double>(bytes), *path_[i], chip_.ringTracePid());
  });
  busySpan(op == 0 ? "ring.send" : "ring.send+reduce", t, t + sendTime);
  local_ = t + sendTime;
  bytes_ += static_cast<double>(bytes);
  ++messages_;
  noteAsyncDone(arrival);
  if (token >= 0) to.tokens().send(static_cast<int>(token), arrival);
  if (done >= 0) core_.tokens().send(static_cast<int>(done), local_);
}

} // namespace chipless::sim::spyre
