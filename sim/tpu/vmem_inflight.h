#pragma once
/// The VMEM accesses of one TensorCore's operations still in flight, for hazards and race
/// reports. A compiled GEMM queues thousands of MXU folds ahead of the scalar unit, each with
/// three accesses, and every new access is checked against them: so each access is stored
/// normalised with its bounding range, per-page counts of readers and writers in flight let
/// most checks finish without looking at any access (the pages a block spans hold nothing it
/// could conflict with), the remaining rejections (ended, read against read, disjoint
/// ranges, other columns of the same rows) cost a few integer operations, and ended accesses
/// are dropped in amortised constant time.
#include "sim/common/timeline.h"
#include "sim/tpu/vmem_access.h"

#include <cstdint>
#include <vector>

namespace chipless::sim::tpu {

class VmemInflight {
public:
  /// A VMEM access of an operation in flight.
  struct Access {
    StridedBlock bytes; ///< normalised (non-negative stride)
    Cycles start, end;  ///< when the unit touches it
    bool write;
    int unit; ///< the issuing unit (see TensorCore::kVectorUnit)
    const char* what;
    size_t pc;
    int64_t lo = 0, hi = 0; ///< bounding byte range [lo, hi)
  };

  /// A block to check against the accesses in flight, normalised once.
  struct Query {
    explicit Query(const StridedBlock& b)
        : bytes(b.normalised()), lo(bytes.base),
          hi(bytes.base + (bytes.count - 1) * bytes.stride + bytes.width) {}
    StridedBlock bytes;
    int64_t lo, hi;
  };

  /// Forgets every access; pages cover `vmemBytes`.
  void reset(int64_t vmemBytes);
  /// Whether a page `q` spans holds an access it could conflict with (a writer; a reader
  /// too when `write`). When false, no access in flight meets `q`.
  bool mayConflict(const Query& q, bool write) const;
  void add(const StridedBlock& block, Cycles start, Cycles end, bool write, int unit,
           const char* what, size_t pc);
  /// Every access in the order added (some may have ended; callers skip those).
  const std::vector<Access>& entries() const { return entries_; }
  /// Whether `a` and `q` share a byte (exact, as overlaps() in vmem_access.h).
  static bool meets(const Access& a, const Query& q) {
    if (a.hi <= q.lo || q.hi <= a.lo) return false;
    return overlapsNormalised(a.bytes, q.bytes);
  }
  /// Drops the accesses that ended by `now` once the list has doubled since the last time.
  void prune(Cycles now);

private:
  static constexpr size_t kMinPrune = 64;
  /// Adds `delta` to the reader or writer count of every page `a` spans.
  void count(const Access& a, int delta);
  int64_t pageOf(int64_t byte) const;

  std::vector<Access> entries_;
  size_t pruneAt_ = kMinPrune;
  int pageShift_ = 12;
  std::vector<int32_t> readers_, writers_; ///< accesses in flight per page
};

} // namespace chipless::sim::tpu
