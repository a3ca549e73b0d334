#include "sim/common/partition.h"

#include "support/progformat/plan.h"

#include <cstdio>

namespace chipless::sim {

std::string Partition::describe() const {
  std::string text = cores == 0   ? std::string("every core")
                     : cores == 1 ? "core " + std::to_string(coreFirst)
                                  : "cores " + std::to_string(coreFirst) + "-" +
                                        std::to_string(coreFirst + cores - 1);
  if (memoryBytes == 0) return text + ", all of memory";
  char window[96];
  std::snprintf(window, sizeof window, ", memory 0x%llx..0x%llx",
                static_cast<unsigned long long>(memoryBase),
                static_cast<unsigned long long>(memoryBase + memoryBytes));
  return text + window;
}

std::string Partition::outsideWindow(const char* memory, __int128 lo, __int128 hi) const {
  if (memoryBytes == 0 || (lo >= 0 && hi <= static_cast<__int128>(memoryBytes))) return "";
  auto hex = [](__int128 v) { return progformat::formatDevPtr(static_cast<uint64_t>(v)); };
  return std::string(memory) + " bytes " + hex(lo) + ".." + hex(hi) +
         " are outside this share of the device (its addresses are 0.." + hex(memoryBytes) + ")";
}

} // namespace chipless::sim
