#include "sim/common/partition.h"

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

} // namespace chipless::sim
