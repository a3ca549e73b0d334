#include "tools/tpu_summary.h"

#include "tools/summary_lines.h"

namespace chipless::tools {

void printTpuSummary(std::FILE* out, const std::string& kernel, const TpuArch& arch, int chips,
                     const Stats& stats, const std::vector<double>& cycles, double host,
                     bool timingOnly) {
  const double c = stats.get("cycles");
  std::fprintf(out,
               "tpu-sim: %s on %d chip(s) x %d TensorCore(s), tpu-%s: %d MXU(s) of %dx%d at %.3f "
               "GHz%s\n",
               kernel.c_str(), chips, arch.chip.tensorcores, arch.chip.generation.c_str(),
               arch.mxu.count, arch.mxu.rows, arch.mxu.cols, arch.chip.clock_ghz,
               timingOnly ? " (timing only)" : "");
  std::fprintf(out, "  simulated cycles      %.0f (%.3f us)\n", c, stats.get("time_us"));
  printLaunches(out, cycles);
  std::fprintf(
      out, "  utilization           MXU %.1f%%  VPU %.1f%%  DMA %.1f%%  HBM %.1f%%  ICI %.1f%%\n",
      100 * stats.get("utilization.mxu"), 100 * stats.get("utilization.vpu"),
      100 * stats.get("utilization.dma"), 100 * stats.get("utilization.hbm"),
      100 * stats.get("utilization.ici"));
  const double read = sumStats(stats, ".hbm.bytes_read");
  const double written = sumStats(stats, ".hbm.bytes_written");
  std::fprintf(out, "  bytes moved           HBM read %s, written %s (%.1f GB/s); ICI %s\n",
               humanUnits(read, "B").c_str(), humanUnits(written, "B").c_str(),
               c > 0 ? (read + written) / c * arch.chip.clock_ghz : 0.0,
               humanUnits(stats.get("ici.bytes"), "B").c_str());
  std::fprintf(out, "  MXU work              %s in %.0f folds\n",
               humanUnits(stats.get("mxu_flops"), "FLOP").c_str(), sumStats(stats, ".folds"));
  printShare(out, stats);
  printHostSpeed(out, c, host);
}

} // namespace chipless::tools
