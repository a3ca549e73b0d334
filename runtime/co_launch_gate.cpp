#include "runtime/co_launch_gate.h"

#include <algorithm>

namespace chipless::runtime {

CoLaunchGate::CoLaunchGate(Runner runner, std::chrono::microseconds window)
    : runner_(std::move(runner)), window_(window) {}

void CoLaunchGate::attach() {
  std::lock_guard lock(mutex_);
  ++attached_;
  changed_.notify_all();
}

void CoLaunchGate::detach() {
  std::lock_guard lock(mutex_);
  --attached_;
  changed_.notify_all(); // a launch waiting for this share's need not wait any more
}

bool CoLaunchGate::ready(std::chrono::steady_clock::time_point now) const {
  if (running_ || waiting_.empty()) return false;
  // One launch per share: a share's second launch waits for the next round.
  std::vector<int> shares;
  for (const Arrival* a : waiting_)
    if (std::find(shares.begin(), shares.end(), a->share) == shares.end())
      shares.push_back(a->share);
  return static_cast<int>(shares.size()) >= attached_ || now >= firstArrival_ + window_;
}

void CoLaunchGate::run(Arrival& arrival) {
  std::unique_lock lock(mutex_);
  if (waiting_.empty()) firstArrival_ = std::chrono::steady_clock::now();
  waiting_.push_back(&arrival);
  changed_.notify_all();
  while (!arrival.done) {
    auto now = std::chrono::steady_clock::now();
    if (!ready(now)) {
      if (running_ || waiting_.empty())
        changed_.wait(lock);
      else
        changed_.wait_until(lock, firstArrival_ + window_);
      continue;
    }
    // This thread runs the round: the first waiting launch of each share, in arrival order.
    std::vector<Arrival*> round;
    std::vector<int> shares;
    for (auto it = waiting_.begin(); it != waiting_.end();) {
      if (std::find(shares.begin(), shares.end(), (*it)->share) != shares.end()) {
        ++it;
        continue;
      }
      shares.push_back((*it)->share);
      round.push_back(*it);
      it = waiting_.erase(it);
    }
    if (!waiting_.empty()) firstArrival_ = now;
    running_ = true;
    lock.unlock();
    try {
      runner_(round);
    } catch (...) {
      for (Arrival* a : round)
        if (!a->error) a->error = std::current_exception();
    }
    lock.lock();
    running_ = false;
    for (Arrival* a : round) a->done = true;
    changed_.notify_all();
  }
  if (arrival.error) std::rethrow_exception(arrival.error);
}

} // namespace chipless::runtime
