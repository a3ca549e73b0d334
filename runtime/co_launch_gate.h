#pragma once
/// Where the launches of a device's shares meet (chipless-device-server --share): the shares
/// of one device run their launches in one simulation, each on its own cores, so that their
/// contention for the memory and interconnect they share shows in the modelled time. A launch
/// waits at the gate until every other attached share has a launch waiting too, or until the
/// gate's window has passed since the first one arrived; then one of the waiting threads runs
/// them all. A device with one owner never waits.
#include <chrono>
#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <vector>

namespace chipless::runtime {

class CoLaunchGate {
public:
  /// A launch waiting at the gate: what to run (the device's own description of it) and,
  /// once run, whether it failed.
  struct Arrival {
    int share = 0;            ///< which share it comes from
    void* launch = nullptr;   ///< the device's description of the launch
    std::exception_ptr error; ///< set by the runner when this launch failed
    bool done = false;
  };
  /// Runs the launches of `arrivals` (at most one per share) in one simulation; sets each
  /// one's `error` when it failed. Called with no lock held.
  using Runner = std::function<void(const std::vector<Arrival*>& arrivals)>;

  CoLaunchGate(Runner runner, std::chrono::microseconds window);

  /// A share joins or leaves the gate; the gate waits only for attached shares.
  void attach();
  void detach();
  /// How long a launch may wait for the other shares'.
  std::chrono::microseconds window() const { return window_; }

  /// Runs `arrival` together with the launches of other shares that meet it here; returns
  /// when it has run, rethrowing its error.
  void run(Arrival& arrival);

private:
  /// Whether the waiting launches should run now (with the lock held).
  bool ready(std::chrono::steady_clock::time_point now) const;

  Runner runner_;
  std::chrono::microseconds window_;
  std::mutex mutex_;
  std::condition_variable changed_;
  int attached_ = 0;
  bool running_ = false;
  std::vector<Arrival*> waiting_;
  std::chrono::steady_clock::time_point firstArrival_;
};

} // namespace chipless::runtime
