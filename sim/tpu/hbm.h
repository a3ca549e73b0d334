#pragma once
/// A chip's HBM as DMA engines see it: addresses interleaved over `hbm.channels` channels every
/// `hbm.interleave_bytes`; each channel is a reservation timeline with its share of
/// `hbm.bandwidth_gb_s` and `hbm.latency_ns` access latency. The bytes themselves live in the
/// chip's DeviceMemory (sim/common/device_memory.h).
///
/// Blocks map to channels by a hash, as memory controllers do: the digit sum of the block
/// index in base `channels`, modulo `channels`. Consecutive blocks still visit every channel
/// once per round, and strided streams (a column slice of a row-major matrix: power-of-two
/// row pitches) spread over all channels instead of hitting the same few.
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
  /// The channel serving interleave block `block`.
  int channelOf(uint64_t block) const;

  /// Bytes read and written by DMAs in this launch.
  double bytesRead = 0, bytesWritten = 0;

private:
  std::vector<Timeline> channels_;
  uint64_t interleave_;
};

} // namespace chipless::sim::tpu
