#include "sim/spyre/timeline.h"

namespace chipless::sim::spyre {

Cycles Timeline::reserve(Cycles earliest, double bytes) {
  const Cycles duration = bytes / bw_;
  busyCycles_ += duration;
  bytes_ += bytes;
  if (duration <= 0) return earliest;
  // First interval ending after `earliest`; then slide past every interval in the way.
  auto it =
      std::upper_bound(busy_.begin(), busy_.end(), earliest,
                       [](Cycles t, const std::pair<Cycles, Cycles>& iv) { return t < iv.second; });
  Cycles start = earliest;
  while (it != busy_.end() && it->first < start + duration) {
    start = std::max(start, it->second);
    ++it;
  }
  const Cycles end = start + duration;
  // `it` is the first interval starting at or after end; the one before ends <= start.
  const bool touchesNext = it != busy_.end() && it->first <= end;
  const bool touchesPrev = it != busy_.begin() && std::prev(it)->second >= start;
  if (touchesPrev && touchesNext) {
    std::prev(it)->second = it->second;
    busy_.erase(it);
  } else if (touchesPrev) {
    std::prev(it)->second = end;
  } else if (touchesNext) {
    it->first = start;
  } else {
    busy_.insert(it, {start, end});
  }
  return start;
}

} // namespace chipless::sim::spyre
