#include "support/progformat/isa_table.h"

namespace chipless::progformat {

std::string formatRange(int32_t first, int32_t last) {
  if (first == 0 && last == kThroughLast) return "all";
  if (first == last) return std::to_string(first);
  return std::to_string(first) + "-" + std::to_string(last);
}

} // namespace chipless::progformat
