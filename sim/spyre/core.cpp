#include "sim/spyre/core.h"

#include "sim/spyre/chip.h"
#include "sim/spyre/compute_unit.h"
#include "sim/spyre/dma_engine.h"
#include "sim/spyre/load_unit.h"
#include "sim/spyre/ring_engine.h"
#include "sim/spyre/store_unit.h"

namespace chipless::sim::spyre {

using spyrecode::Unit;

Core::Core(Chip& chip, int index) : index_(index), tokens_(chip.arch().sync.tokens_per_core) {
  const SpyreArch& arch = chip.arch();
  if (!chip.timingOnly()) scratchpad_ = ZeroedBuffer(static_cast<size_t>(arch.scratchpad.bytes));
  const int stick = static_cast<int>(arch.chip.stick_bytes);
  const int corelets = arch.chip.corelets_per_core;
  std::string prefix = "core " + std::to_string(index) + " corelet ";
  inputs_.resize(corelets);
  outputs_.resize(corelets);
  for (int c = 0; c < corelets; ++c) {
    for (int i = 0; i < arch.fifo.inputs_per_corelet; ++i)
      inputs_[c].push_back(std::make_unique<StreamFifo>(
          prefix + std::to_string(c) + " in" + std::to_string(i), arch.fifo.depth_sticks,
          arch.fifo.latency_cycles, stick, !chip.timingOnly()));
    for (int i = 0; i < arch.fifo.outputs_per_corelet; ++i)
      outputs_[c].push_back(std::make_unique<StreamFifo>(
          prefix + std::to_string(c) + " out" + std::to_string(i), arch.fifo.depth_sticks,
          arch.fifo.latency_cycles, stick, !chip.timingOnly()));
  }
  std::string base = "core" + std::to_string(index) + "_";
  engines_.push_back(new DmaEngine((base + "dma_in").c_str(), chip, *this, Unit::DmaIn));
  engines_.push_back(new DmaEngine((base + "dma_out").c_str(), chip, *this, Unit::DmaOut));
  engines_.push_back(new RingEngine((base + "ring").c_str(), chip, *this));
  for (int c = 0; c < corelets; ++c) {
    std::string n = std::to_string(c);
    engines_.push_back(new LoadUnit((base + "load" + n).c_str(), chip, *this, c));
    engines_.push_back(new ComputeUnit((base + "compute" + n).c_str(), chip, *this, c));
    engines_.push_back(new StoreUnit((base + "store" + n).c_str(), chip, *this, c));
  }
}

Core::~Core() {
  for (Engine* e : engines_) delete e;
}

Engine& Core::engine(Unit unit, int corelet) {
  if (!spyrecode::isCoreletUnit(unit)) return *engines_[static_cast<int>(unit)];
  return *engines_[3 + corelet * 3 + (static_cast<int>(unit) - static_cast<int>(Unit::Load))];
}

void Core::resetForLaunch() {
  tokens_.clear();
  for (auto& v : inputs_)
    for (auto& f : v) f->clear();
  for (auto& v : outputs_)
    for (auto& f : v) f->clear();
}

} // namespace chipless::sim::spyre
