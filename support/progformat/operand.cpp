#include "support/progformat/operand.h"

namespace chipless::progformat {

std::string dtypeListText(uint32_t mask) {
  std::vector<std::string> names;
  for (int t = 0; t <= static_cast<int>(DType::I8); ++t)
    if (mask & (1u << t)) names.push_back(dtypeName(static_cast<DType>(t)));
  std::string s;
  for (size_t i = 0; i < names.size(); ++i)
    s += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return s;
}

} // namespace chipless::progformat
