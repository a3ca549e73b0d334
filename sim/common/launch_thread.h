#pragma once
/// The common part of every SystemC thread a LaunchHost runs (Spyre engines, TPU TensorCores
/// and ICI engines): a local notion of time that runs ahead of SystemC's, blocking with a note
/// of what is awaited (for deadlock reports), reservations of shared resources in
/// simulated-time order through the host's arbiter, and the loop that runs one program per
/// launch and turns what it throws into the launch's fault.
#include "sim/common/timeline.h"

#include <functional>
#include <limits>
#include <string>
#include <systemc>

namespace chipless::sim {

class LaunchHost;

/// Thrown inside threads to unwind when the launch is being aborted.
struct LaunchAborted {};

class LaunchThread : public sc_core::sc_module {
public:
  /// `label` names the thread in errors and reports ("core 3 load0", "chip 0 ici"); `order` is
  /// its arbitration priority (lower first among same-time requests). The thread enrolls with
  /// `host` for the deadlock report and must live as long as the host's launches.
  LaunchThread(sc_core::sc_module_name name, LaunchHost& host, std::string label, int order);

  /// What a thread is doing when the simulation stops.
  enum class State { Idle, Running, Done, Failed, Aborted };

  State state() const { return state_; }
  /// How errors and reports name this thread.
  const std::string& label() const { return label_; }
  /// Where the thread is, as the deadlock report and internal errors name it: the label, and
  /// the program counter for a thread that runs a program.
  virtual std::string where() const { return label_; }
  /// What the thread is blocked on (for deadlock reports); empty when not blocked.
  std::string blockedOn() const { return describe_ ? describe_(describeContext_) : blockedOn_; }
  Cycles localTime() const { return local_; }

protected:
  /// Gets ready for a launch starting at `start`: with `hasProgram`, serveLaunches() runs
  /// runProgram() once the launch starts.
  void armThread(bool hasProgram, Cycles start);
  /// The SystemC thread of a thread that runs one program per launch (registered by the
  /// derived module with SC_THREAD): waits to be armed, runs runProgram(), records how it
  /// ended and reports an error as the launch's fault (a ProgramTrap with its code).
  void serveLaunches();
  /// Runs the armed program (threads that use serveLaunches() override it).
  virtual void runProgram() {}
  /// Blocks until `event` (or an abort); records `what` for deadlock reports.
  void block(sc_core::sc_event& event, const std::string& what);
  /// Blocks like block(), with `describe()` (a callable returning std::string) saying what is
  /// awaited, called only if a deadlock report asks: engines that block often do not build a
  /// message they almost never need.
  template <class Describe>
  void blockWith(sc_core::sc_event& event, const Describe& describe) {
    describeContext_ = &describe;
    describe_ = [](const void* context) { return (*static_cast<const Describe*>(context))(); };
    waitForEvent(event);
  }
  /// Waits in SystemC time until it reaches local_, then runs `reserve` through the host's
  /// arbiter: shared resources are reserved in simulated-time order, and requests made at
  /// the same time in a fixed thread order.
  void reserveShared(const std::function<void()>& reserve);
  /// Stops the launch (an Error with the engine report) once this thread has passed the
  /// host's --max-cycles or --timeout; engines call it for every instruction they issue, so
  /// it costs a compare and a decrement (the host's clock is read every 4096 calls).
  void checkLimits() {
    if (local_ > limitAt_ || --countdown_ == 0) checkHostLimits();
  }

  Cycles local_ = 0;
  State state_ = State::Idle;
  /// The local time past which the launch has passed --max-cycles (infinite: no bound).
  Cycles limitAt_ = std::numeric_limits<Cycles>::infinity();
  uint32_t countdown_ = 4096; ///< calls of checkLimits() until the host's clock is read
  std::string blockedOn_;

private:
  void checkHostLimits();
  void syncToLocal();
  /// Waits for `event` or an abort, then forgets what it was blocked on.
  void waitForEvent(sc_core::sc_event& event);

  /// While blocked in blockWith(): its describe callable and how to call it.
  const void* describeContext_ = nullptr;
  std::string (*describe_)(const void*) = nullptr;

  LaunchHost& host_;
  std::string label_;
  bool armed_ = false;
  sc_core::sc_event granted_;
  int order_;
};

} // namespace chipless::sim
