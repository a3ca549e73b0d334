#pragma once
/// The common part of the TPU model's SystemC threads (TensorCore scalar units and the
/// per-chip ICI engines): a LaunchThread of the System (local time, blocking for deadlock
/// reports, arbitrated reservations of HBM channels and ICI links), and the time grid of the
/// TPU model.
#include "sim/common/launch_thread.h"
#include "sim/common/timeline.h"

#include <cmath>
#include <string>
#include <systemc>

namespace chipless::sim::tpu {

class System;

/// Rounds a time up to a multiple of 1/256 cycle. Transfer times (bytes / bandwidth,
/// latencies in ns) are snapped to this grid, so every unit time is a dyadic number and sums
/// and differences of times are exact: a fold always lasts exactly 2R + C + T - 2 cycles and
/// two launches of one job compute bit-identical times.
inline Cycles quantize(Cycles t) {
  return std::ceil(t * 256.0) / 256.0;
}

/// A thread of the TPU system; `label` names it ("chip 0 core 1", "chip 0 ici"), `order` is
/// its arbitration priority.
class Unit : public LaunchThread {
public:
  Unit(sc_core::sc_module_name name, System& system, std::string label, int order);

protected:
  System& system_;
};

} // namespace chipless::sim::tpu
