#pragma once
/// The summary spyre-sim prints after a run.
#include "support/spyre_arch.h"
#include "support/stats.h"

#include <cstdio>
#include <string>
#include <vector>

namespace chipless::tools {

/// Prints cycles and time at the modelled clock, per-unit utilisation, bytes moved, host
/// seconds and simulated cycles per host second, from the last launch's statistics.
/// `cycles` lists every launch (they should be equal for a deterministic job).
void printSpyreSummary(std::FILE* out, const std::string& kernel, const SpyreArch& arch,
                       const Stats& stats, const std::vector<double>& cycles, double hostSeconds,
                       bool timingOnly);

} // namespace chipless::tools
