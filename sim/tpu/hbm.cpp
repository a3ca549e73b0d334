#include "sim/tpu/hbm.h"

#include <algorithm>

namespace chipless::sim::tpu {

Hbm::Hbm(const TpuArch& arch, int chip)
    : interleave_(static_cast<uint64_t>(arch.hbm.interleave_bytes)) {
  const double bw = arch.hbmBytesPerCycle() / arch.hbm.channels;
  for (int c = 0; c < arch.hbm.channels; ++c)
    channels_.emplace_back("chip " + std::to_string(chip) + " hbm " + std::to_string(c), bw,
                           arch.hbmLatencyCycles());
}

void Hbm::split(uint64_t addr, uint64_t len, std::vector<double>& perChannel) const {
  const uint64_t n = channels_.size();
  if (len >= interleave_ * n) {
    // Whole rounds of the channels first, then the rest block by block.
    uint64_t rounds = len / (interleave_ * n);
    for (auto& c : perChannel) c += static_cast<double>(rounds * interleave_);
    addr += rounds * interleave_ * n;
    len -= rounds * interleave_ * n;
  }
  while (len > 0) {
    uint64_t block = addr / interleave_;
    uint64_t take = std::min(len, (block + 1) * interleave_ - addr);
    perChannel[block % n] += static_cast<double>(take);
    addr += take;
    len -= take;
  }
}

void Hbm::resetCounters() {
  for (auto& c : channels_) c.resetCounters();
  bytesRead = bytesWritten = 0;
}

} // namespace chipless::sim::tpu
