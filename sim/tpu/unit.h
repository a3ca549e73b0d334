#pragma once
/// The common part of the TPU model's SystemC threads (TensorCore scalar units and the
/// per-chip ICI engines): a local notion of time that runs ahead of SystemC's, blocking with
/// a note of what is awaited (for deadlock reports), and reservations of shared resources
/// (HBM channels, ICI links) in simulated-time order through the arbiter.
#include "sim/common/timeline.h"

#include <cmath>
#include <functional>
#include <string>
#include <systemc>

namespace chipless::sim::tpu {

class System;

/// Thrown inside units to unwind when the launch is being aborted.
struct LaunchAborted {};

/// Rounds a time up to a multiple of 1/256 cycle. Transfer times (bytes / bandwidth,
/// latencies in ns) are snapped to this grid, so every unit time is a dyadic number and sums
/// and differences of times are exact: a fold always lasts exactly 2R + C + T - 2 cycles and
/// two launches of one job compute bit-identical times.
inline Cycles quantize(Cycles t) {
  return std::ceil(t * 256.0) / 256.0;
}

class Unit : public sc_core::sc_module {
public:
  /// What a unit is doing when the simulation stops.
  enum class State { Idle, Running, Done, Failed, Aborted };

  Unit(sc_core::sc_module_name name, System& system, int order);

  State state() const { return state_; }
  /// What the unit is blocked on (for deadlock reports); empty when not blocked.
  const std::string& blockedOn() const { return blockedOn_; }
  Cycles localTime() const { return local_; }

protected:
  /// Blocks until `event` (or an abort); records `what` for deadlock reports.
  void block(sc_core::sc_event& event, const std::string& what);
  /// Waits in SystemC time until it reaches local_, then runs `reserve` through the system's
  /// arbiter: shared resources are reserved in simulated-time order, and requests made at
  /// the same time in a fixed unit order.
  void reserveShared(const std::function<void()>& reserve);

  System& system_;
  Cycles local_ = 0;
  State state_ = State::Idle;
  std::string blockedOn_;

private:
  void syncToLocal();
  sc_core::sc_event granted_;
  int order_; ///< arbitration priority
};

} // namespace chipless::sim::tpu
