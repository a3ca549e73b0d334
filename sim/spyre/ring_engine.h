#pragma once
/// The per-core ring engine: sends scratchpad data to another core's scratchpad over the
/// ring (ring.send), either copying or combining with what is there (add/max/min:
/// reduce as you go, for all-reduce and reduce-scatter of partial results).
#include "sim/spyre/engine.h"

#include <vector>

namespace chipless::sim::spyre {

class RingEngine : public Engine {
public:
  RingEngine(sc_core::sc_module_name name, Chip& chip, Core& core);
  void addUnitStats(Stats& stats, const std::string& prefix) const override;

protected:
  void executeUnitOp(const spyrecode::Instruction& ins) override;
  void resetUnit() override { bytes_ = 0, messages_ = 0; }

private:
  double bytes_ = 0;
  uint64_t messages_ = 0;
  std::vector<Timeline*> path_;
  std::vector<Cycles> starts_;
};

} // namespace chipless::sim::spyre
