#include "tools/spyre_summary.h"

#include "tools/summary_lines.h"

namespace chipless::tools {

void printSpyreSummary(std::FILE* out, const std::string& kernel, const SpyreArch& arch,
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
  printShare(out, stats);
  printHostSpeed(out, c, host);
}

} // namespace chipless::tools
