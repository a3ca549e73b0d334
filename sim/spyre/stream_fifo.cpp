#include "sim/spyre/stream_fifo.h"

#include <cassert>
#include <cstring>

namespace chipless::sim::spyre {

StreamFifo::StreamFifo(std::string name, int depth, Cycles latency, int stickBytes, bool storeBytes)
    : name_(std::move(name)), depth_(depth), latency_(latency), stickBytes_(stickBytes),
      storeBytes_(storeBytes), changed_((name_ + "_changed").c_str()) {}

void StreamFifo::push(uint64_t count, Cycles first, Cycles last, const uint8_t* data) {
  if (count == 0) return;
  pushRuns_.push_back({pushed_, count, first, last});
  pushed_ += count;
  if (storeBytes_ && data) {
    // Compact before growing so the buffer stays about as large as the sticks in flight.
    if (head_ > 0 && head_ >= bytes_.size() / 2) {
      bytes_.erase(bytes_.begin(), bytes_.begin() + static_cast<std::ptrdiff_t>(head_));
      head_ = 0;
    }
    bytes_.insert(bytes_.end(), data, data + count * stickBytes_);
  }
  changed_.notify(sc_core::SC_ZERO_TIME);
}

void StreamFifo::pop(uint64_t count, Cycles first, Cycles last, uint8_t* out) {
  assert(count <= available());
  if (count == 0) return;
  if (storeBytes_) {
    size_t n = count * stickBytes_;
    if (out) std::memcpy(out, bytes_.data() + head_, n);
    head_ += n;
    if (head_ == bytes_.size()) bytes_.clear(), head_ = 0;
  }
  popRuns_.push_back({popped_, count, first, last});
  popped_ += count;
  while (!pushRuns_.empty() && pushRuns_.front().first + pushRuns_.front().count <= popped_)
    pushRuns_.pop_front();
  // Producers look back at most `depth` sticks behind what they push next.
  while (popRuns_.size() > 1 &&
         popRuns_.front().first + popRuns_.front().count + 2 * static_cast<uint64_t>(depth_) <
             popped_)
    popRuns_.pop_front();
  changed_.notify(sc_core::SC_ZERO_TIME);
}

Cycles StreamFifo::lookup(const std::deque<Run>& runs, uint64_t index) {
  // Runs are few (one per piece of an instruction); search from the back.
  for (auto it = runs.rbegin(); it != runs.rend(); ++it)
    if (index >= it->first && index < it->first + it->count) return it->at(index);
  assert(false && "stick index outside the recorded runs");
  return 0;
}

Cycles StreamFifo::readyTime(uint64_t index) const {
  return lookup(pushRuns_, index) + latency_;
}

Cycles StreamFifo::popTime(uint64_t index) const {
  return lookup(popRuns_, index);
}

void StreamFifo::clear() {
  pushed_ = popped_ = 0;
  pushRuns_.clear();
  popRuns_.clear();
  bytes_.clear();
  head_ = 0;
}

} // namespace chipless::sim::spyre
