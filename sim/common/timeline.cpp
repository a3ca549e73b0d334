#include "sim/common/timeline.h"

namespace chipless::sim {

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

Cycles reservePath(Cycles now, Cycles t, double bytes, const std::vector<Timeline*>& path,
                   std::vector<Cycles>* starts) {
  if (starts) starts->clear();
  for (Timeline* r : path) r->retire(now);
  Cycles head = t;
  // tailOut[i] = when the tail leaves resource i; the end adds the later latencies.
  Cycles end = t;
  Cycles latencyAfter = 0;
  for (const Timeline* r : path) latencyAfter += r->latency();
  for (Timeline* r : path) {
    Cycles start = r->reserve(head, bytes);
    if (starts) starts->push_back(start);
    Cycles tail = start + bytes / r->bytesPerCycle();
    end = std::max(end, tail + latencyAfter);
    latencyAfter -= r->latency();
    head = start + r->latency();
  }
  return std::max(end, head);
}

} // namespace chipless::sim
