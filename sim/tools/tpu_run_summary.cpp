#include "sim/tools/tpu_run_summary.h"

#include "sim/tools/run_summary.h"

namespace chipless {

namespace {
std::string human(double v, const char* unit) {
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
} // namespace

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
  if (cycles.size() > 1) {
    bool same = true;
    for (double x : cycles) same &= x == cycles.front();
    std::fprintf(out, "  launches              %zu (%s)\n", cycles.size(),
                 same ? "every launch took the same cycles" : "cycles differ between launches");
  }
  std::fprintf(
      out, "  utilization           MXU %.1f%%  VPU %.1f%%  DMA %.1f%%  HBM %.1f%%  ICI %.1f%%\n",
      100 * stats.get("utilization.mxu"), 100 * stats.get("utilization.vpu"),
      100 * stats.get("utilization.dma"), 100 * stats.get("utilization.hbm"),
      100 * stats.get("utilization.ici"));
  const double read = sumStats(stats, ".hbm.bytes_read");
  const double written = sumStats(stats, ".hbm.bytes_written");
  std::fprintf(out, "  bytes moved           HBM read %s, written %s (%.1f GB/s); ICI %s\n",
               human(read, "B").c_str(), human(written, "B").c_str(),
               c > 0 ? (read + written) / c * arch.chip.clock_ghz : 0.0,
               human(stats.get("ici.bytes"), "B").c_str());
  std::fprintf(out, "  MXU work              %s in %.0f folds\n",
               human(stats.get("mxu_flops"), "FLOP").c_str(), sumStats(stats, ".folds"));
  std::fprintf(out, "  host seconds          %.3f\n", host);
  std::fprintf(out, "  simulated cycles/s    %s\n",
               human(host > 0 ? c / host : 0, "cycles/s").c_str());
}

} // namespace chipless
