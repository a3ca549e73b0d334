#pragma once
/// The per-core DMA engines: dma_in copies device memory into the scratchpad
/// (dma.load), dma_out copies the scratchpad to device memory (dma.store), whole sticks
/// with up to four dimensions. Transfers cross the DRAM channels that hold the addresses
/// and the ring links between those channels' ports and the core.
#include "sim/spyre/engine.h"

#include <vector>

namespace chipless::sim::spyre {

class DmaEngine : public Engine {
public:
  DmaEngine(sc_core::sc_module_name name, Chip& chip, Core& core, spyrecode::Unit unit);
  void addUnitStats(Stats& stats, const std::string& prefix) const override;

protected:
  void executeUnitOp(const spyrecode::Instruction& ins) override;
  void resetUnit() override { bytes_ = 0, transfers_ = 0; }
  /// Faults (naming the widest count) when the descriptor's device footprint leaves the
  /// address space, or when it could not end within --max-cycles.
  void checkFootprint(uint64_t mem, int64_t bytes, const int64_t n[3], const int64_t ms[3]);

private:
  double bytes_ = 0;
  uint64_t transfers_ = 0;
  uint64_t runsSinceCheck_ = 0; ///< runs moved, for the host-time check within a transfer
  std::vector<double> perChannel_;
  std::vector<Timeline*> path_;
  std::vector<Cycles> starts_;
};

} // namespace chipless::sim::spyre
