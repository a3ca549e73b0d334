#pragma once
/// One Spyre core: its scratchpad (real bytes), its token bank, the FIFOs of its corelets
/// and its engines (DMA in/out and ring per core; load, compute, store per corelet).
#include "sim/common/token_bank.h"
#include "sim/spyre/engine.h"
#include "sim/spyre/stream_fifo.h"
#include "support/host_buffer.h"

#include <memory>
#include <vector>

namespace chipless::sim::spyre {

class Core {
public:
  Core(Chip& chip, int index);
  ~Core();

  int index() const { return index_; }
  /// The scratchpad's bytes (scratchpad.bytes of them; empty in timing-only mode).
  uint8_t* scratchpad() { return scratchpad_.data(); }
  TokenBank& tokens() { return tokens_; }
  StreamFifo& inputFifo(int corelet, int i) { return *inputs_[corelet][i]; }
  StreamFifo& outputFifo(int corelet, int i) { return *outputs_[corelet][i]; }
  /// The engine of a unit (corelet ignored for per-core units).
  Engine& engine(spyrecode::Unit unit, int corelet);
  const std::vector<Engine*>& engines() const { return engines_; }
  /// Empties FIFOs and tokens before a launch.
  void resetForLaunch();

private:
  int index_;
  ZeroedBuffer scratchpad_; ///< zero until written (a 2 MB huge page each where it can)
  TokenBank tokens_;
  std::vector<std::vector<std::unique_ptr<StreamFifo>>> inputs_, outputs_;
  std::vector<Engine*> engines_; ///< owned by SystemC's module hierarchy (deleted in ~Core)
};

} // namespace chipless::sim::spyre
