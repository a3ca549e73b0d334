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

namespace {
std::string human(double v, const char* unit) {
  char buf[64];
  if (v >= 1e9)
    std::snprintf(buf, sizeof buf, "%.2f G%s", v / 1e9, unit);
  else if (v >= 1e6)
    std::snprintf(buf, sizeof buf, "%.2f M%s", v / 1e6, unit);
  else if (v >= 1e3)
    std::snprintf(buf, sizeof buf, "%.2f k%s", v / 1e3, unit);
  else
    std::snprintf(buf, sizeof buf, "%.0f %s", v, unit);
  return buf;
}
} // namespace

void printSummary(std::FILE* out, const std::string& kernel, const SpyreArch& arch,
                  const Stats& stats, const std::vector<double>& cycles, double host,
                  bool timingOnly) {
  const double c = stats.get("chip.cycles");
  std::fprintf(out, "spyre-sim: %s on %d cores at %.3f GHz%s\n", kernel.c_str(), arch.chip.cores,
               arch.chip.clock_ghz, timingOnly ? " (timing only)" : "");
  std::fprintf(out, "  simulated cycles      %.0f (%.3f us)\n", c, stats.get("chip.time_us"));
  if (cycles.size() > 1) {
    bool same = true;
    for (double x : cycles) same &= x == cycles.front();
    std::fprintf(out, "  launches              %zu (%s)\n", cycles.size(),
                 same ? "every launch took the same cycles" : "cycles differ between launches");
  }
  std::fprintf(
      out, "  utilization           PT %.1f%%  SFU %.1f%%  DMA %.1f%%  ring %.1f%%  DRAM %.1f%%\n",
      100 * stats.get("chip.utilization.pt"), 100 * stats.get("chip.utilization.sfu"),
      100 * stats.get("chip.utilization.dma"), 100 * stats.get("chip.utilization.ring"),
      100 * stats.get("chip.utilization.dram"));
  const double read = sumStats(stats, ".dma_in.bytes"), written = sumStats(stats, ".dma_out.bytes");
  std::fprintf(out, "  bytes moved           DRAM read %s, written %s (%.1f GB/s); ring %s\n",
               human(read, "B").c_str(), human(written, "B").c_str(),
               stats.get("chip.dram.bandwidth_gb_s"),
               human(sumStats(stats, ".ring.bytes"), "B").c_str());
  std::fprintf(out, "  PT MACs               %s\n",
               human(sumStats(stats, ".pt_macs"), "MAC").c_str());
  std::fprintf(out, "  host seconds          %.3f\n", host);
  std::fprintf(out, "  simulated cycles/s    %s\n",
               human(host > 0 ? c / host : 0, "cycles/s").c_str());
}

} // namespace chipless
