#include "sim/spyre/ring.h"

#include <algorithm>

namespace chipless::sim::spyre {

Ring::Ring(const SpyreArch& arch) {
  const int cores = arch.chip.cores, channels = arch.dram.channels;
  // Interleave: after every cores/channels cores comes one channel port.
  int nextChannel = 0;
  for (int c = 0; c < cores; ++c) {
    coreStop_.push_back(static_cast<int>(kinds_.size()));
    kinds_.push_back("core " + std::to_string(c));
    while (nextChannel < channels && static_cast<int64_t>(c + 1) * channels >=
                                         static_cast<int64_t>(nextChannel + 1) * cores) {
      channelStop_.push_back(static_cast<int>(kinds_.size()));
      kinds_.push_back("dram " + std::to_string(nextChannel));
      ++nextChannel;
    }
  }
  while (nextChannel < channels) {
    channelStop_.push_back(static_cast<int>(kinds_.size()));
    kinds_.push_back("dram " + std::to_string(nextChannel++));
  }
  double bw = static_cast<double>(arch.ring.bytes_per_cycle);
  Cycles lat = arch.ring.hop_latency_cycles;
  for (int from = 0; from < stops(); ++from) {
    cw_.emplace_back("ring " + linkName(from, RingDir::Cw), bw, lat);
    ccw_.emplace_back("ring " + linkName(from, RingDir::Ccw), bw, lat);
  }
}

int Ring::hops(int a, int b, RingDir d) const {
  int n = stops();
  return d == RingDir::Cw ? ((b - a) % n + n) % n : ((a - b) % n + n) % n;
}

RingDir Ring::shortest(int a, int b) const {
  return hops(a, b, RingDir::Cw) <= hops(a, b, RingDir::Ccw) ? RingDir::Cw : RingDir::Ccw;
}

void Ring::appendPath(int a, int b, RingDir d, std::vector<Timeline*>& path) {
  int n = stops();
  for (int s = a; s != b; s = d == RingDir::Cw ? (s + 1) % n : (s - 1 + n) % n)
    path.push_back(&link(s, d));
}

std::string Ring::linkName(int from, RingDir d) const {
  int n = stops();
  int to = d == RingDir::Cw ? (from + 1) % n : (from - 1 + n) % n;
  return std::string(d == RingDir::Cw ? "cw " : "ccw ") + std::to_string(from) + ">" +
         std::to_string(to);
}

std::string Ring::stopName(int stop) const {
  return kinds_[stop];
}

void Ring::resetCounters() {
  for (auto& l : cw_) l.resetCounters();
  for (auto& l : ccw_) l.resetCounters();
}

} // namespace chipless::sim::spyre
