#pragma once
/// The summary tpu-sim prints after a run.
#include "support/stats.h"
#include "support/tpu_arch.h"

#include <cstdio>
#include <string>
#include <vector>

namespace chipless::tools {

/// Prints cycles and time at the modelled clock, MXU/VPU/DMA/HBM/ICI utilisation, bytes
/// moved, MXU work, host seconds and simulated cycles per host second, from the last
/// launch's statistics. `cycles` lists every launch (equal for a deterministic job).
void printTpuSummary(std::FILE* out, const std::string& kernel, const TpuArch& arch, int chips,
                     const Stats& stats, const std::vector<double>& cycles, double hostSeconds,
                     bool timingOnly);

} // namespace chipless::tools
