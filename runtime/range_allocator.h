#pragma once
/// The free-range bookkeeping of a device address space (Spyre's job segments, a TPU chip's
/// HBM): which byte ranges are taken, and where a new range of a given size fits. The devices
/// wrap it with their own limits and error messages.
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

namespace chipless::runtime {

class RangeAllocator {
public:
  /// Where `size` bytes fit inside [lo, hi): `preferred` when that aligned range is free,
  /// else the lowest free `align`-aligned range; nullopt when nothing fits.
  std::optional<uint64_t> place(uint64_t lo, uint64_t hi, uint64_t preferred, uint64_t size,
                                uint64_t align) const;
  /// Marks [at, at+size) taken (the caller has checked it is free, e.g. with place()).
  void claim(uint64_t at, uint64_t size) { used_[at] = size; }
  /// Frees the range that starts at `at`.
  void release(uint64_t at) { used_.erase(at); }
  /// Whether [at, at+size) lies inside one taken range.
  bool holds(uint64_t at, uint64_t size) const;
  /// Where every taken range starts.
  std::vector<uint64_t> starts() const;

private:
  bool isFree(uint64_t at, uint64_t size) const;

  std::map<uint64_t, uint64_t> used_; ///< address -> size
};

} // namespace chipless::runtime
