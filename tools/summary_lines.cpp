#include "tools/summary_lines.h"

#include <cstdio>

namespace chipless::tools {

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

void printShare(std::FILE* out, const Stats& stats) {
  if (!stats.has("share.cores")) return;
  const int first = static_cast<int>(stats.get("share.first_core"));
  const int cores = static_cast<int>(stats.get("share.cores"));
  const double together = stats.get("share.launches_together");
  std::fprintf(out, "  share                 cores %d-%d, %s window; ", first, first + cores - 1,
               humanUnits(stats.get("share.memory_bytes"), "B").c_str());
  if (together > 1)
    std::fprintf(out, "ran with %.0f other share launch(es), %.0f cycles in all\n", together - 1,
                 stats.get("share.simulation_cycles"));
  else
    std::fprintf(out, "ran alone\n");
}

void printHostSpeed(std::FILE* out, double simulatedCycles, double hostSeconds) {
  std::fprintf(out, "  host seconds          %.3f\n", hostSeconds);
  std::fprintf(out, "  simulated cycles/s    %s\n",
               humanUnits(hostSeconds > 0 ? simulatedCycles / hostSeconds : 0, "cycles/s").c_str());
}

} // namespace chipless::tools
