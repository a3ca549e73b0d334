#pragma once
/// A device memory as the simulator sees it (a Spyre card's DRAM, a TPU chip's HBM): the
/// regions the runtime allocated, holding real bytes. An access outside every region is a
/// program error.
#include "support/host_buffer.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace chipless::sim {

/// Sparse device memory made of allocations. In timing-only mode regions hold no bytes
/// (so very large what-if runs cost no host memory) but addresses are still checked.
class DeviceMemory {
public:
  explicit DeviceMemory(bool storeBytes = true) : storeBytes_(storeBytes) {}

  /// Adds a region [base, base+size); throws chipless::Error if it overlaps another.
  void allocate(uint64_t base, uint64_t size, const std::string& name);
  /// Removes the region starting at base (no-op if none).
  void release(uint64_t base);
  /// Host pointer to [addr, addr+size) if that range lies inside one region, else nullptr.
  /// Without stored bytes, returns a non-null dummy pointer for valid ranges.
  uint8_t* span(uint64_t addr, uint64_t size);
  /// True if [addr, addr+size) lies inside one region.
  bool contains(uint64_t addr, uint64_t size) const;
  /// Copies bytes in and out; throws chipless::Error for ranges outside every region.
  void write(uint64_t addr, const void* src, uint64_t size);
  void read(uint64_t addr, void* dst, uint64_t size) const;
  /// Whether regions hold real bytes.
  bool storesBytes() const { return storeBytes_; }
  /// Describes the regions near addr, for error messages.
  std::string describe(uint64_t addr) const;

private:
  struct Region {
    uint64_t size;
    std::string name;
    ZeroedBuffer bytes; ///< zero until written: untouched bytes cost no host memory
  };
  const Region* find(uint64_t addr, uint64_t size, uint64_t& base) const;
  /// Zero bytes for a new region: a released buffer of the same size cleared again (a launch
  /// allocates the same tensors as the one before it; clearing memory already mapped is many
  /// times cheaper than faulting fresh pages in), or a new buffer.
  ZeroedBuffer takeBuffer(uint64_t size);

  bool storeBytes_;
  std::map<uint64_t, Region> regions_;
  std::vector<ZeroedBuffer> spare_; ///< released large buffers, newest last
  uint64_t spareBytes_ = 0;
  uint8_t dummy_[1] = {0};
};

} // namespace chipless::sim
