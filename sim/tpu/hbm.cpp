#include "sim/tpu/hbm.h"

#include <algorithm>
#include <cstdint>

namespace chipless::sim::tpu {

Hbm::Hbm(const TpuArch& arch, int chip)
    : interleave_(static_cast<uint64_t>(arch.hbm.interleave_bytes)) {
  const double bw = arch.hbmBytesPerCycle() / arch.hbm.channels;
  for (int c = 0; c < arch.hbm.channels; ++c)
    channels_.emplace_back("chip " + std::to_string(chip) + " hbm " + std::to_string(c), bw,
                           arch.hbmLatencyCycles());
}

int Hbm::channelOf(uint64_t block) const {
  const uint64_t n = channels_.size();
  uint64_t h = 0;
  for (; block; block /= n) h += block % n;
  return static_cast<int>(h % n);
}

void Hbm::split(uint64_t addr, uint64_t len, std::vector<double>& perChannel) const {
  const uint64_t n = channels_.size();
  const uint64_t round = interleave_ * n;
  // Block by block up to a round boundary, whole rounds (every channel once), then the rest.
  auto blocks = [&](uint64_t upTo) {
    while (len > 0 && addr < upTo) {
      uint64_t block = addr / interleave_;
      uint64_t take = std::min(len, (block + 1) * interleave_ - addr);
      perChannel[static_cast<size_t>(channelOf(block))] += static_cast<double>(take);
      addr += take;
      len -= take;
    }
  };
  blocks((addr + round - 1) / round * round);
  if (len >= round) {
    uint64_t rounds = len / round;
    for (auto& c : perChannel) c += static_cast<double>(rounds * interleave_);
    addr += rounds * round;
    len -= rounds * round;
  }
  blocks(UINT64_MAX);
}

void Hbm::resetCounters() {
  for (auto& c : channels_) c.resetCounters();
  bytesRead = bytesWritten = 0;
}

} // namespace chipless::sim::tpu
