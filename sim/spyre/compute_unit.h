#pragma once
/// The corelet compute unit: the SFU (vector ops on sticks, with a small register file)
/// and the PT array (matmul tiles with fp32 accumulators). Operands stream in from the
/// load unit's FIFOs and results stream out to the store unit's.
#include "sim/spyre/corelet_engine.h"
#include "support/numerics.h"

#include <vector>

namespace chipless::sim::spyre {

class ComputeUnit : public CoreletEngine {
public:
  ComputeUnit(sc_core::sc_module_name name, Chip& chip, Core& core, int corelet);
  void addUnitStats(Stats& stats, const std::string& prefix) const override;
  Cycles ptBusyCycles() const { return ptBusy_; }
  Cycles sfuBusyCycles() const { return sfuBusy_; }

protected:
  void executeUnitOp(const spyrecode::Instruction& ins) override;
  void resetUnit() override;

private:
  void sfu(const spyrecode::Instruction& ins);
  void splat(const spyrecode::Instruction& ins);
  /// sfu.lane.mask: 1 in the lanes below a count, 0 in the others.
  void laneMask(const spyrecode::Instruction& ins);
  /// sfu.splat.int: an expression's integer value in every lane of a register.
  void splatInt(const spyrecode::Instruction& ins);
  /// sfu.cvt: sticks of one element type to another (lane by lane, widened or narrowed).
  void convert(const spyrecode::Instruction& ins);
  void matmul(const spyrecode::Instruction& ins);
  /// SFU register `port` (a v<N> port value), or a fault.
  uint32_t* reg(int64_t port);

  /// Sticks an SFU instruction decodes, computes and encodes at a time (16 KB of lanes per
  /// buffer: the run stays in the L1/L2 cache).
  static constexpr int64_t kSfuRun = 64;

  int lanesMax_;
  std::vector<std::vector<uint32_t>> regs_;
  std::vector<uint32_t> regResult_; ///< one result stick on its way to a register
  // PT array state: stationary weights and fp32 accumulators of the current tile.
  std::vector<float> weights_, acc_;
  std::vector<float> activation_; ///< one decoded stick of A
  int64_t accM_ = 0, accN_ = 0;
  // Weights are double-buffered: the next tile's weights load while the current streams.
  Cycles weightsPortFree_ = 0;   ///< when the weight-load path finished the last tile
  Cycles streamEnd_[2] = {0, 0}; ///< when each weight buffer's tile finished streaming
  Cycles lastStreamStart_ = 0;   ///< issue order: a tile cannot start before the previous
  int tile_ = 0;
  Cycles ptBusy_ = 0, sfuBusy_ = 0;
  double macs_ = 0;
  uint64_t sfuSticks_ = 0;
};

} // namespace chipless::sim::spyre
