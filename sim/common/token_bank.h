#pragma once
/// Synchronisation tokens of one core (Spyre tokens, TPU semaphores): counting semaphores
/// whose tokens carry the simulated time at which they become available. Engines use them
/// to say "buffer full", "buffer free", "transfer landed" to each other (decoupled
/// access/execute).
#include "sim/common/timeline.h"

#include <functional>
#include <queue>
#include <systemc>
#include <vector>

namespace chipless::sim {

class TokenBank {
public:
  explicit TokenBank(int count) : channels_(count) {}

  int size() const { return static_cast<int>(channels_.size()); }
  /// Adds one token on channel `id`, available from time `at`.
  void send(int id, Cycles at) {
    channels_[id].push(at);
    changed_.notify(sc_core::SC_ZERO_TIME);
  }
  /// Tokens waiting on channel `id`.
  size_t pending(int id) const { return channels_[id].size(); }
  /// Takes the earliest token of channel `id` (pending(id) > 0) and returns its time.
  Cycles take(int id) {
    Cycles t = channels_[id].top();
    channels_[id].pop();
    return t;
  }
  /// Notified when any token arrives.
  sc_core::sc_event& changed() { return changed_; }
  /// Drops leftover tokens (between launches).
  void clear() {
    for (auto& c : channels_) c = {};
  }

private:
  using MinHeap = std::priority_queue<Cycles, std::vector<Cycles>, std::greater<Cycles>>;
  std::vector<MinHeap> channels_;
  sc_core::sc_event changed_;
};

} // namespace chipless::sim
