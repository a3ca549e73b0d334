#pragma once
/// Reservation timeline of a shared resource (a ring link, a DRAM channel). Requests are
/// made in simulated-time order; each occupies the resource for bytes / bandwidth cycles
/// in the first idle gap at or after its earliest start. Reservations made for the future
/// (a transfer whose head reaches this link later) leave the gaps before them usable, so
/// a busy future does not block the idle present.
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace chipless::sim {

/// Simulated time in clock cycles of the modelled chip. Fractions occur when a resource
/// moves bytes at a rate that is not a whole number per cycle.
using Cycles = double;

/// A resource with a bandwidth (bytes per cycle) and a latency (cycles).
class Timeline {
public:
  Timeline() = default;
  Timeline(std::string name, double bytesPerCycle, Cycles latency)
      : name_(std::move(name)), bw_(bytesPerCycle), latency_(latency) {}

  /// Reserves the resource for `bytes` in the first gap starting no earlier than
  /// `earliest`; returns the start.
  Cycles reserve(Cycles earliest, double bytes);
  /// Forgets reservations that ended before `now` (no request can start earlier).
  void retire(Cycles now) {
    size_t n = 0;
    while (n < busy_.size() && busy_[n].second <= now) ++n;
    if (n) busy_.erase(busy_.begin(), busy_.begin() + static_cast<std::ptrdiff_t>(n));
  }
  /// How traces and statistics name the resource ("ring cw 3>4", "dram 2").
  const std::string& name() const { return name_; }
  double bytesPerCycle() const { return bw_; }
  Cycles latency() const { return latency_; }
  Cycles busyCycles() const { return busyCycles_; }
  double bytes() const { return bytes_; }
  /// Clears the counters (not the reservations) at the start of a launch.
  void resetCounters() { busyCycles_ = 0, bytes_ = 0; }

private:
  std::string name_;
  double bw_ = 1;
  Cycles latency_ = 0;
  /// Disjoint busy intervals [start, end), sorted, merged when touching. Few: retire()
  /// drops the past, and back-to-back reservations merge.
  std::vector<std::pair<Cycles, Cycles>> busy_;
  Cycles busyCycles_ = 0;
  double bytes_ = 0;
};

/// Reserves a cut-through path for `bytes`: the head enters each resource after the
/// previous one's latency, each resource is busy bytes/bandwidth once free, and the
/// transfer ends when the tail has left every resource and crossed the remaining
/// latencies. Returns that end time. `starts` (if not null) receives each start. `now`
/// (SystemC time, <= t) lets the resources forget reservations already over.
Cycles reservePath(Cycles now, Cycles t, double bytes, const std::vector<Timeline*>& path,
                   std::vector<Cycles>* starts = nullptr);

} // namespace chipless::sim
