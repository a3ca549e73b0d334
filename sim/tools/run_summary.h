#pragma once
/// The summary spyre-sim prints after a run, and the pieces tpu-sim's summary shares.
#include "support/spyre_arch.h"
#include "support/stats.h"

#include <cstdio>
#include <string>
#include <vector>

namespace chipless {

/// Prints cycles and time at the modelled clock, per-unit utilisation, bytes moved, host
/// seconds and simulated cycles per host second, from the last launch's statistics.
/// `cycles` lists every launch (they should be equal for a deterministic job).
void printSummary(std::FILE* out, const std::string& kernel, const SpyreArch& arch,
                  const Stats& stats, const std::vector<double>& cycles, double hostSeconds,
                  bool timingOnly);

/// Sum of every statistic whose path ends with `suffix` (e.g. ".dma_in.bytes").
double sumStats(const Stats& stats, const std::string& suffix);

/// `v` with a k/M/G/T prefix and `unit` ("1.50 GB").
std::string humanUnits(double v, const char* unit);

/// The summary lines every simulator prints after its header and first cycles line: the
/// launches line (when there was more than one) ...
void printLaunches(std::FILE* out, const std::vector<double>& cycles);
/// ... and, last, host seconds and simulated cycles per host second.
void printHostSpeed(std::FILE* out, double simulatedCycles, double hostSeconds);

} // namespace chipless
