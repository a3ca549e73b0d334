#pragma once
#include "sim/spyre/corelet_engine.h"

namespace chipless::sim::spyre {

/// The corelet store unit: pops sticks from an output FIFO into the scratchpad
/// (st.stream).
class StoreUnit : public CoreletEngine {
public:
  StoreUnit(sc_core::sc_module_name name, Chip& chip, Core& core, int corelet)
      : CoreletEngine(name, chip, core, spyrecode::Unit::Store, corelet) {}
  void addUnitStats(Stats& stats, const std::string& prefix) const override;

protected:
  void executeUnitOp(const spyrecode::Instruction& ins) override;
  void resetUnit() override { sticks_ = 0; }

private:
  uint64_t sticks_ = 0;
};

} // namespace chipless::sim::spyre
