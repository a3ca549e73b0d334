#pragma once
/// Device memory channels: addresses are interleaved over the channels in
/// `dram.interleave_bytes` blocks; each channel is a reservation timeline whose bandwidth
/// is its share of `dram.bandwidth_gb_s`, with `dram.latency_ns` access latency.
#include "sim/common/timeline.h"
#include "support/spyre_arch.h"

#include <vector>

namespace chipless::sim::spyre {

class Dram {
public:
  explicit Dram(const SpyreArch& arch);

  int channels() const { return static_cast<int>(channels_.size()); }
  Timeline& channel(int c) { return channels_[c]; }
  const Timeline& channel(int c) const { return channels_[c]; }
  /// Adds the bytes of [addr, addr+len) that each channel serves to perChannel[c].
  void split(uint64_t addr, uint64_t len, std::vector<double>& perChannel) const;
  /// Clears channel counters at the start of a launch.
  void resetCounters();

private:
  std::vector<Timeline> channels_;
  uint64_t interleave_;
};

} // namespace chipless::sim::spyre
