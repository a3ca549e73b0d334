#include "sim/tools/run_summary.h"

namespace chipless {

double sumStats(const Stats& stats, const std::string& suffix) {
  double total = 0;
  for (const auto& [path, value] : stats.flatten())
    if (path.size() >= suffix.size() &&
        path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0)
      total += value;
  return total;
}

std::string humanUnits(double v, const char* unit) {
  char buf[64];
  if (v >= 1e12)
    std::snprintf(buf, sizeof buf, "%.2f T%s", v / 1e12, unit);
  else if (v >= 1e9)
    std::snprintf(buf, sizeof buf, "%.2f G%s", v / 1e9, unit);
  else if (v >= 1e6)
    std::snprintf(buf, sizeof buf, "%.2f M%s", v / 1e6, unit);
  else if (v >= 1e3)
    std::snprintf(buf, sizeof buf, "%.2f k%s", v / 1e3, unit);
  else
    std::snprintf(buf, sizeof buf, "%.0f %s", v, unit);
  return buf;
}

void printLaunches(std::FILE* out, const std::vector<double>& cycles) {
  if (cycles.size() <= 1) return;
  bool same = true;
  for (double x : cycles) same &= x == cycles.front();
  std::fprintf(out, "  launches              %zu (%s)\n", cycles.size(),
               same ? "every launch took the same cycles" : "cycles differ between launches");
}

void printHostSpeed(std::FILE* out, double simulatedCycles, double hostSeconds) {
  std::fprintf(out, "  host seconds          %.3f\n", hostSeconds);
  std::fprintf(out, "  simulated cycles/s    %s\n",
               humanUnits(hostSeconds > 0 ? simulatedCycles / hostSeconds : 0, "cycles/s").c_str());
}

void printSummary(std::FILE* out, const std::string& kernel, const SpyreArch& arch,
                  const Stats& stats, const std::vector<double>& cycles, double host,
                  bool timingOnly) {
  const double c = stats.get("chip.cycles");
  std::fprintf(out, "spyre-sim: %s on %d cores at %.3f GHz%s\n", kernel.c_str(), arch.chip.cores,
               arch.chip.clock_ghz, timingOnly ? " (timing only)" : "");
  std::fprintf(out, "  simulated cycles      %.0f (%.3f us)\n", c, stats.get("chip.time_us"));
  printLaunches(out, cycles);
  std::fprintf(
      out, "  utilization           PT %.1f%%  SFU %.1f%%  DMA %.1f%%  ring %.1f%%  DRAM %.1f%%\n",
      100 * stats.get("chip.utilization.pt"), 100 * stats.get("chip.utilization.sfu"),
      100 * stats.get("chip.utilization.dma"), 100 * stats.get("chip.utilization.ring"),
      100 * stats.get("chip.utilization.dram"));
  const double read = sumStats(stats, ".dma_in.bytes"), written = sumStats(stats, ".dma_out.bytes");
  std::fprintf(out, "  bytes moved           DRAM read %s, written %s (%.1f GB/s); ring %s\n",
               humanUnits(read, "B").c_str(), humanUnits(written, "B").c_str(),
               stats.get("chip.dram.bandwidth_gb_s"),
               humanUnits(sumStats(stats, ".ring.bytes"), "B").c_str());
  std::fprintf(out, "  PT MACs               %s\n",
               humanUnits(sumStats(stats, ".pt_macs"), "MAC").c_str());
  printHostSpeed(out, c, host);
}

} // namespace chipless
