#pragma once
/// A chip's HBM as DMA engines see it: addresses interleaved over `hbm.channels` channels every
/// `hbm.interleave_bytes`; each channel is a reservation timeline with its share of
/// `hbm.bandwidth_gb_s` and `hbm.latency_ns` access latency. The bytes themselves live in the
/// chip's DeviceMemory (sim/common/device_memory.h).
#include "sim/common/timeline.h"
#include "support/tpu_arch.h"

#include <vector>

namespace chipless::sim::tpu {

class Hbm {
public:
  Hbm(const TpuArch& arch, int chip);

  int channels() const { return static_cast<int>(channels_.size()); }
  Timeline& channel(int c) { return channels_[c]; }
  const Timeline& channel(int c) const { return channels_[c]; }
  /// Adds the bytes of [addr, addr+len) that each channel serves to perChannel[c].
  void split(uint64_t addr, uint64_t len, std::vector<double>& perChannel) const;
  /// Clears channel counters at the start of a launch.
  void resetCounters();

  /// Bytes read and written by DMAs in this launch.
  double bytesRead = 0, bytesWritten = 0;

private:
  std::vector<Timeline> channels_;
  uint64_t interleave_;
};

} // namespace chipless::sim::tpu
