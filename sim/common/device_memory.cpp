#include "sim/common/device_memory.h"

#include "support/error.h"
#include "support/spyrecode/plan.h"

#include <cstdio>
#include <cstring>

namespace chipless::sim {

namespace {
/// Released buffers at least this large are kept for reuse (smaller ones are cheap to get).
constexpr uint64_t kMinSpareBytes = uint64_t(1) << 20;
/// At most this many bytes of released buffers are kept.
constexpr uint64_t kMaxSpareBytes = uint64_t(1) << 30;
} // namespace

void DeviceMemory::allocate(uint64_t base, uint64_t size, const std::string& name) {
  if (size == 0) size = 1;
  auto next = regions_.lower_bound(base);
  if (next != regions_.end() && next->first < base + size)
    throw Error("device memory: '" + name + "' at " + spyrecode::formatDevPtr(base) + " (" +
                std::to_string(size) + " bytes) overlaps '" + next->second.name + "' at " +
                spyrecode::formatDevPtr(next->first));
  if (next != regions_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second.size > base)
      throw Error("device memory: '" + name + "' at " + spyrecode::formatDevPtr(base) +
                  " overlaps '" + prev->second.name + "' at " +
                  spyrecode::formatDevPtr(prev->first));
  }
  Region r{size, name, {}};
  if (storeBytes_) r.bytes = takeBuffer(size);
  regions_.emplace(base, std::move(r));
}

void DeviceMemory::release(uint64_t base) {
  auto it = regions_.find(base);
  if (it == regions_.end()) return;
  ZeroedBuffer bytes = std::move(it->second.bytes);
  regions_.erase(it);
  // Large buffers are kept for the next launch, up to kMaxSpareBytes (oldest dropped first).
  if (bytes.size() < kMinSpareBytes || bytes.size() > kMaxSpareBytes) return;
  spareBytes_ += bytes.size();
  spare_.push_back(std::move(bytes));
  while (spareBytes_ > kMaxSpareBytes) {
    spareBytes_ -= spare_.front().size();
    spare_.erase(spare_.begin());
  }
}

ZeroedBuffer DeviceMemory::takeBuffer(uint64_t size) {
  for (size_t i = spare_.size(); i-- > 0;)
    if (spare_[i].size() == size) {
      ZeroedBuffer bytes = std::move(spare_[i]);
      spare_.erase(spare_.begin() + static_cast<std::ptrdiff_t>(i));
      spareBytes_ -= size;
      std::memset(bytes.data(), 0, bytes.size());
      return bytes;
    }
  return ZeroedBuffer(size);
}

const DeviceMemory::Region* DeviceMemory::find(uint64_t addr, uint64_t size, uint64_t& base) const {
  auto it = regions_.upper_bound(addr);
  if (it == regions_.begin()) return nullptr;
  --it;
  if (addr < it->first || addr + size > it->first + it->second.size || addr + size < addr)
    return nullptr;
  base = it->first;
  return &it->second;
}

bool DeviceMemory::contains(uint64_t addr, uint64_t size) const {
  uint64_t base;
  return find(addr, size, base) != nullptr;
}

uint8_t* DeviceMemory::span(uint64_t addr, uint64_t size) {
  uint64_t base;
  const Region* r = find(addr, size, base);
  if (!r) return nullptr;
  if (!storeBytes_) return dummy_;
  return const_cast<uint8_t*>(r->bytes.data()) + (addr - base);
}

void DeviceMemory::write(uint64_t addr, const void* src, uint64_t size) {
  uint8_t* p = span(addr, size);
  if (!p)
    throw Error("device memory: write of " + std::to_string(size) + " bytes at " +
                spyrecode::formatDevPtr(addr) + " outside every allocation (" + describe(addr) +
                ")");
  if (storeBytes_ && size) std::memcpy(p, src, size);
}

void DeviceMemory::read(uint64_t addr, void* dst, uint64_t size) const {
  uint64_t base;
  const Region* r = find(addr, size, base);
  if (!r)
    throw Error("device memory: read of " + std::to_string(size) + " bytes at " +
                spyrecode::formatDevPtr(addr) + " outside every allocation (" + describe(addr) +
                ")");
  if (storeBytes_ && size)
    std::memcpy(dst, r->bytes.data() + (addr - base), size);
  else if (size)
    std::memset(dst, 0, size);
}

std::string DeviceMemory::describe(uint64_t addr) const {
  if (regions_.empty()) return "nothing is allocated";
  auto it = regions_.upper_bound(addr);
  std::string s;
  if (it != regions_.begin()) {
    auto prev = std::prev(it);
    s = "'" + prev->second.name + "' is " + spyrecode::formatDevPtr(prev->first) + ".." +
        spyrecode::formatDevPtr(prev->first + prev->second.size);
  }
  if (it != regions_.end())
    s += std::string(s.empty() ? "" : ", ") + "'" + it->second.name + "' starts at " +
         spyrecode::formatDevPtr(it->first);
  return s;
}

} // namespace chipless::sim
