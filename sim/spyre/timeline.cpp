#include "sim/spyre/timeline.h"

namespace chipless::sim::spyre {

Cycles Timeline::reserve(Cycles earliest, double bytes) {
  const Cycles duration = bytes / bw_;
  busyCycles_ += duration;
  bytes_ += bytes;
  if (duration <= 0) return earliest;
  Cycles start = earliest;
  // The interval that may contain `start`, then every later one until a gap fits.
  auto it = busy_.upper_bound(start);
  if (it != busy_.begin()) {
    auto prev = std::prev(it);
    if (prev->second > start) start = prev->second;
  }
  while (it != busy_.end() && it->first < start + duration) {
    start = std::max(start, it->second);
    ++it;
  }
  Cycles end = start + duration;
  // Insert [start, end) and merge with the neighbours it touches.
  auto next = busy_.lower_bound(start);
  if (next != busy_.end() && next->first <= end) {
    end = std::max(end, next->second);
    next = busy_.erase(next);
  }
  if (next != busy_.begin()) {
    auto prev = std::prev(next);
    if (prev->second >= start) {
      prev->second = std::max(prev->second, end);
      return start;
    }
  }
  busy_.emplace(start, end);
  return start;
}

} // namespace chipless::sim::spyre
