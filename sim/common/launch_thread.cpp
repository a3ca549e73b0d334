#include "sim/common/launch_thread.h"

#include "sim/common/launch_host.h"
#include "support/error.h"

namespace chipless::sim {

LaunchThread::LaunchThread(sc_core::sc_module_name name, LaunchHost& host, std::string label,
                           int order)
    : sc_module(name), host_(host), label_(std::move(label)), order_(order) {
  host.threads_.push_back(this);
}

void LaunchThread::armThread(bool hasProgram, Cycles start) {
  armed_ = hasProgram;
  state_ = hasProgram ? State::Running : State::Idle;
  local_ = start;
  limitAt_ = host_.maxCycles() > 0 ? start + host_.maxCycles()
                                   : std::numeric_limits<Cycles>::infinity();
  countdown_ = 4096;
  blockedOn_.clear();
  describe_ = nullptr;
  describeContext_ = nullptr;
}

void LaunchThread::serveLaunches() {
  while (true) {
    while (!armed_) wait(host_.launchEvent());
    armed_ = false;
    try {
      runProgram();
      state_ = State::Done;
    } catch (const LaunchAborted&) {
      state_ = State::Aborted;
    } catch (const ProgramTrap& e) {
      state_ = State::Failed;
      host_.reportFault(e.what(), e.code());
    } catch (const Error& e) {
      state_ = State::Failed;
      host_.reportFault(e.what());
    } catch (const std::exception& e) {
      // A bug in the model must still end the launch with a message, not kill the process.
      state_ = State::Failed;
      host_.reportFault(where() + ": internal error: " + e.what());
    }
    host_.noteActivity(local_);
  }
}

void LaunchThread::block(sc_core::sc_event& event, const std::string& what) {
  blockedOn_ = what;
  waitForEvent(event);
}

void LaunchThread::waitForEvent(sc_core::sc_event& event) {
  wait(event | host_.abortEvent());
  blockedOn_.clear();
  describe_ = nullptr;
  describeContext_ = nullptr;
  if (host_.aborting()) throw LaunchAborted{};
}

void LaunchThread::syncToLocal() {
  Cycles now = host_.now();
  if (local_ > now) {
    blockedOn_ = "time";
    wait(host_.toScTime(local_ - now), host_.abortEvent());
    blockedOn_.clear();
    if (host_.aborting()) throw LaunchAborted{};
    host_.progress();
  }
}

void LaunchThread::checkHostLimits() {
  countdown_ = 4096;
  host_.checkLimits(*this, local_);
}

void LaunchThread::reserveShared(const std::function<void()>& reserve) {
  syncToLocal();
  bool done = false;
  host_.arbiter().submit(order_, reserve, &done, &granted_);
  while (!done) block(granted_, "the arbiter of shared links and channels");
}

} // namespace chipless::sim
