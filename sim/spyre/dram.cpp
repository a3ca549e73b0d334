#include "sim/spyre/dram.h"

namespace chipless::sim::spyre {

Dram::Dram(const SpyreArch& arch) : interleave_(static_cast<uint64_t>(arch.dram.interleave_bytes)) {
  int n = arch.dram.channels;
  for (int c = 0; c < n; ++c)
    channels_.emplace_back("dram " + std::to_string(c), arch.dramBytesPerCycle() / n,
                           arch.dramLatencyCycles());
}

void Dram::split(uint64_t addr, uint64_t len, std::vector<double>& perChannel) const {
  const uint64_t n = channels_.size();
  uint64_t block = addr / interleave_;
  uint64_t end = addr + len;
  // Leading partial block.
  uint64_t blockEnd = (block + 1) * interleave_;
  if (end <= blockEnd) {
    perChannel[block % n] += static_cast<double>(len);
    return;
  }
  perChannel[block % n] += static_cast<double>(blockEnd - addr);
  ++block;
  // Whole rounds over all channels, then the remaining whole blocks, then the tail.
  uint64_t whole = (end - blockEnd) / interleave_;
  uint64_t rounds = whole / n;
  if (rounds)
    for (uint64_t c = 0; c < n; ++c) perChannel[c] += static_cast<double>(rounds * interleave_);
  block += rounds * n;
  for (uint64_t i = 0; i < whole % n; ++i, ++block)
    perChannel[block % n] += static_cast<double>(interleave_);
  uint64_t tail = end - block * interleave_;
  if (tail) perChannel[block % n] += static_cast<double>(tail);
}

void Dram::resetCounters() {
  for (auto& c : channels_) c.resetCounters();
}

} // namespace chipless::sim::spyre
