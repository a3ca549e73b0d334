#include "sim/tpu/vmem_inflight.h"

#include <algorithm>

namespace chipless::sim::tpu {

namespace {
constexpr int64_t kTargetPages = 4096; ///< the page counts split VMEM into about this many
}

void VmemInflight::reset(int64_t vmemBytes) {
  entries_.clear();
  pruneAt_ = kMinPrune;
  pageShift_ = 12;
  while ((vmemBytes >> pageShift_) > kTargetPages) ++pageShift_;
  const size_t pages = static_cast<size_t>((std::max<int64_t>(vmemBytes, 1) - 1) >> pageShift_) + 1;
  readers_.assign(pages, 0);
  writers_.assign(pages, 0);
}

int64_t VmemInflight::pageOf(int64_t byte) const {
  return std::clamp<int64_t>(byte >> pageShift_, 0, static_cast<int64_t>(readers_.size()) - 1);
}

void VmemInflight::count(const Access& a, int delta) {
  if (a.hi <= a.lo || readers_.empty()) return;
  auto& pages = a.write ? writers_ : readers_;
  for (int64_t p = pageOf(a.lo), last = pageOf(a.hi - 1); p <= last; ++p)
    pages[static_cast<size_t>(p)] += delta;
}

bool VmemInflight::mayConflict(const Query& q, bool write) const {
  if (q.hi <= q.lo) return false;
  if (readers_.empty()) return !entries_.empty();
  for (int64_t p = pageOf(q.lo), last = pageOf(q.hi - 1); p <= last; ++p)
    if (writers_[static_cast<size_t>(p)] > 0 || (write && readers_[static_cast<size_t>(p)] > 0))
      return true;
  return false;
}

void VmemInflight::add(const StridedBlock& block, Cycles start, Cycles end, bool write, int unit,
                       const char* what, size_t pc) {
  Query q(block);
  entries_.push_back({q.bytes, start, end, write, unit, what, pc, q.lo, q.hi});
  count(entries_.back(), +1);
}

void VmemInflight::prune(Cycles now) {
  if (entries_.size() < pruneAt_) return;
  entries_.erase(std::remove_if(entries_.begin(), entries_.end(),
                                [&](const Access& a) {
                                  if (a.end > now) return false;
                                  count(a, -1);
                                  return true;
                                }),
                 entries_.end());
  pruneAt_ = std::max(kMinPrune, 2 * entries_.size());
}

} // namespace chipless::sim::tpu
