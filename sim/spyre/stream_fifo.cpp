#include "sim/spyre/stream_fifo.h"

#include <algorithm>
#include <cassert>
#include <cstring>

namespace chipless::sim::spyre {

StreamFifo::StreamFifo(std::string name, int depth, Cycles latency, int stickBytes, bool storeBytes)
    : name_(std::move(name)), depth_(depth), latency_(latency), stickBytes_(stickBytes),
      storeBytes_(storeBytes), changed_((name_ + "_changed").c_str()) {}

uint8_t* StreamFifo::reserve(uint64_t count) {
  if (!storeBytes_) return nullptr;
  const size_t need = count * static_cast<size_t>(stickBytes_);
  if (tail_ + need > capacity_) {
    // Move the sticks in flight to the start, then grow if that is not enough: the storage
    // stays about as large as the most sticks ever in flight.
    if (head_ > 0) {
      std::memmove(bytes_.get(), bytes_.get() + head_, tail_ - head_);
      tail_ -= head_;
      head_ = 0;
    }
    if (tail_ + need > capacity_) {
      const size_t capacity = std::max(2 * capacity_, tail_ + need);
      std::unique_ptr<uint8_t[]> grown(new uint8_t[capacity]);
      if (tail_ > 0) std::memcpy(grown.get(), bytes_.get(), tail_);
      bytes_ = std::move(grown);
      capacity_ = capacity;
    }
  }
  return bytes_.get() + tail_;
}

const uint8_t* StreamFifo::front() const {
  return storeBytes_ ? bytes_.get() + head_ : nullptr;
}

void StreamFifo::push(uint64_t count, Cycles first, Cycles last, const uint8_t* data) {
  if (count == 0) return;
  pushRuns_.push_back({pushed_, count, first, last});
  pushed_ += count;
  if (storeBytes_ && data) {
    uint8_t* at = reserve(count);
    const size_t n = count * static_cast<size_t>(stickBytes_);
    if (data != at) std::memcpy(at, data, n); // written in place: nothing to copy
    tail_ += n;
  }
  changed_.notify(sc_core::SC_ZERO_TIME);
}

void StreamFifo::pop(uint64_t count, Cycles first, Cycles last, uint8_t* out) {
  assert(count <= available());
  if (count == 0) return;
  if (storeBytes_) {
    size_t n = count * stickBytes_;
    if (out) std::memcpy(out, bytes_.get() + head_, n);
    head_ += n;
    if (head_ == tail_) head_ = tail_ = 0;
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
  head_ = tail_ = 0;
}

} // namespace chipless::sim::spyre
