#pragma once
/// The pieces every simulator's summary shares (tools/spyre_summary.h, tools/tpu_summary.h):
/// sums over statistics, numbers with unit prefixes, the launches and host-speed lines.
#include "support/stats.h"

#include <cstdio>
#include <string>
#include <vector>

namespace chipless::tools {

/// Sum of every statistic whose path ends with `suffix` (e.g. ".dma_in.bytes").
double sumStats(const Stats& stats, const std::string& suffix);

/// `v` with a k/M/G/T prefix and `unit` ("1.50 GB").
std::string humanUnits(double v, const char* unit);

/// The summary lines every simulator prints after its header and first cycles line: the
/// launches line (when there was more than one) ...
void printLaunches(std::FILE* out, const std::vector<double>& cycles);
/// ... the share's line, on a share of a device (its cores, its window, and with how many
/// launches its last one ran in one simulation) ...
void printShare(std::FILE* out, const Stats& stats);
/// ... and, last, host seconds and simulated cycles per host second.
void printHostSpeed(std::FILE* out, double simulatedCycles, double hostSeconds);

} // namespace chipless::tools
