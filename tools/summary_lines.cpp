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

void printHostSpeed(std::FILE* out, double simulatedCycles, double hostSeconds) {
  std::fprintf(out, "  host seconds          %.3f\n", hostSeconds);
  std::fprintf(out, "  simulated cycles/s    %s\n",
               humanUnits(hostSeconds > 0 ? simulatedCycles / hostSeconds : 0, "cycles/s").c_str());
}

} // namespace chipless::tools
