#include "runtime/range_allocator.h"

#include <algorithm>
#include <iterator>

namespace chipless::runtime {

bool RangeAllocator::isFree(uint64_t at, uint64_t size) const {
  auto next = used_.lower_bound(at);
  if (next != used_.end() && next->first < at + size) return false;
  return next == used_.begin() || std::prev(next)->first + std::prev(next)->second <= at;
}

std::optional<uint64_t> RangeAllocator::place(uint64_t lo, uint64_t hi, uint64_t preferred,
                                              uint64_t size, uint64_t align) const {
  size = std::max<uint64_t>(size, 1);
  if (preferred >= lo && preferred % align == 0 && preferred + size <= hi &&
      preferred + size > preferred && isFree(preferred, size))
    return preferred;
  auto alignUp = [&](uint64_t v) { return (v + align - 1) / align * align; };
  uint64_t candidate = alignUp(lo);
  auto it = used_.lower_bound(lo);
  if (it != used_.begin()) // a range that starts below lo may reach into it
    candidate = std::max(candidate, alignUp(std::prev(it)->first + std::prev(it)->second));
  for (; it != used_.end() && it->first < hi; ++it) {
    if (candidate + size <= it->first) break;
    candidate = std::max(candidate, alignUp(it->first + it->second));
  }
  if (candidate + size > hi || candidate + size < candidate) return std::nullopt;
  return candidate;
}

bool RangeAllocator::holds(uint64_t at, uint64_t size) const {
  auto it = used_.upper_bound(at);
  if (it == used_.begin()) return false;
  --it;
  return at - it->first <= it->second && size <= it->second - (at - it->first);
}

std::vector<uint64_t> RangeAllocator::starts() const {
  std::vector<uint64_t> out;
  for (const auto& [at, size] : used_) out.push_back(at);
  return out;
}

} // namespace chipless::runtime
