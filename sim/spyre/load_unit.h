#pragma once
/// The corelet load unit: streams sticks from the scratchpad into input FIFOs
/// (ld.stream), one or two lanes in lockstep, with an address generator of up to three
/// nested counts and strides.
#include "sim/spyre/corelet_engine.h"

namespace chipless::sim::spyre {

class LoadUnit : public CoreletEngine {
public:
  LoadUnit(sc_core::sc_module_name name, Chip& chip, Core& core, int corelet)
      : CoreletEngine(name, chip, core, spyrecode::Unit::Load, corelet) {}
  void addUnitStats(Stats& stats, const std::string& prefix) const override;

protected:
  void executeUnitOp(const spyrecode::Instruction& ins) override;
  void resetUnit() override { sticks_ = 0; }

private:
  uint64_t sticks_ = 0;
};

} // namespace chipless::sim::spyre
