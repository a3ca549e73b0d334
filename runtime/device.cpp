#include "runtime/device.h"

#include "support/error.h"

namespace chipless::runtime {

std::unique_ptr<Device> Device::open(const SpyreArch& arch, const DeviceOptions& options) {
  DeviceLock lock = options.index >= 0 ? DeviceLock::acquire("spyre", options.index)
                                       : DeviceLock::acquireAny("spyre");
  return std::unique_ptr<Device>(new Device(arch, options, std::move(lock)));
}

Device::Device(const SpyreArch& arch, const DeviceOptions& options, DeviceLock lock)
    : arch_(arch), options_(options), lock_(std::move(lock)), memory_(!options.timingOnly) {
  context_ = std::make_unique<sim::SimContext>();
  chip_ = std::make_unique<sim::spyre::Chip>(arch_, memory_, options.timingOnly);
}

Device::~Device() {
  if (context_) context_->enter(); // the chip's modules are destroyed in their own context
  chip_.reset();
  context_.reset();
}

uint64_t Device::placeRange(int segment, uint64_t preferred, uint64_t size) const {
  const uint64_t base = segmentBase(segment);
  auto at = ranges_.place(base, base + static_cast<uint64_t>(arch_.memory.segment_bytes), preferred,
                          size, static_cast<uint64_t>(arch_.memory.alignment_bytes));
  if (!at)
    throw Error("device memory: no room for " + std::to_string(size) + " bytes in segment " +
                std::to_string(segment));
  return *at;
}

uint64_t Device::allocate(int segment, uint64_t size, const std::string& name) {
  uint64_t at = 0;
  try {
    at = placeRange(segment, segmentBase(segment), size);
  } catch (const Error&) {
    throw Error("device memory: no room for '" + name + "' (" + std::to_string(size) +
                " bytes) in segment " + std::to_string(segment));
  }
  allocateAt(at, std::max<uint64_t>(size, 1), name);
  return at;
}

void Device::allocateAt(uint64_t address, uint64_t size, const std::string& name) {
  if (address % static_cast<uint64_t>(arch_.memory.alignment_bytes) != 0)
    throw Error("device memory: '" + name + "' at " + std::to_string(address) +
                " is not aligned to " + std::to_string(arch_.memory.alignment_bytes) + " bytes");
  uint64_t limit = segmentBase(arch_.memory.segments);
  if (address + size > limit || address + size < address)
    throw Error("device memory: '" + name + "' ends beyond the " +
                std::to_string(arch_.memory.segments) + " segments of the job address space");
  memory_.allocate(address, std::max<uint64_t>(size, 1), name);
  ranges_.claim(address, std::max<uint64_t>(size, 1));
}

void Device::release(uint64_t address) {
  memory_.release(address);
  ranges_.release(address);
}

} // namespace chipless::runtime
