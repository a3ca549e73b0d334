#include "runtime/spyre/spyre_device.h"

#include "runtime/spyre/spyre_job.h"
#include "support/error.h"

namespace chipless::runtime {

std::unique_ptr<SpyreDevice> SpyreDevice::open(const SpyreArch& arch,
                                               const DeviceOptions& options) {
  if (options.chips != 1)
    throw Error("a Spyre card is one chip; --chips " + std::to_string(options.chips) +
                " applies to TPU systems");
  if (options.share.cores != 0)
    throw Error("spyre: a Spyre card cannot be shared yet (shares are of TPU systems); open "
                "it whole, without a share");
  DeviceLock lock = options.index >= 0 ? DeviceLock::acquire("spyre", options.index)
                                       : DeviceLock::acquireAny("spyre");
  return std::unique_ptr<SpyreDevice>(new SpyreDevice(arch, options, std::move(lock)));
}

SpyreDevice::SpyreDevice(const SpyreArch& arch, const DeviceOptions& options, DeviceLock lock)
    : arch_(arch), options_(options), lock_(std::move(lock)), memory_(!options.timingOnly) {
  context_ = std::make_unique<sim::SimContext>();
  chip_ = std::make_unique<sim::spyre::Chip>(arch_, memory_, options.timingOnly);
  chip_->setLimits(options.maxCycles, options.timeoutSeconds);
}

SpyreDevice::~SpyreDevice() {
  if (context_) context_->enter(); // the chip's modules are destroyed in their own context
  chip_.reset();
  context_.reset();
}

uint64_t SpyreDevice::placeRange(int segment, uint64_t preferred, uint64_t size) const {
  const uint64_t base = segmentBase(segment);
  auto at = ranges_.place(base, base + static_cast<uint64_t>(arch_.memory.segment_bytes), preferred,
                          size, static_cast<uint64_t>(arch_.memory.alignment_bytes));
  if (!at)
    throw Error("device memory: no room for " + std::to_string(size) + " bytes in segment " +
                std::to_string(segment));
  return *at;
}

uint64_t SpyreDevice::allocate(int segment, uint64_t size, const std::string& name) {
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

void SpyreDevice::allocateAt(uint64_t address, uint64_t size, const std::string& name) {
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

void SpyreDevice::release(uint64_t address) {
  memory_.release(address);
  ranges_.release(address);
}

uint64_t SpyreDevice::allocate(uint64_t bytes, const std::string& name) {
  return allocate(0, bytes, name);
}

void SpyreDevice::copyIn(uint64_t address, const void* data, uint64_t bytes, int chip) {
  if (chip > 0) throw Error(name() + ": a Spyre card has no chip " + std::to_string(chip));
  memory_.write(address, data, bytes);
}

void SpyreDevice::copyOut(uint64_t address, void* data, uint64_t bytes, int chip) const {
  if (chip > 0) throw Error(name() + ": a Spyre card has no chip " + std::to_string(chip));
  memory_.read(address, data, bytes);
}

Stats SpyreDevice::stats(const LaunchReport& last) const {
  if (last.deviceStats) return *last.deviceStats;
  Stats s;
  sim::spyre::LaunchResult r;
  r.cycles = last.cycles;
  r.hostSeconds = last.hostSeconds;
  r.instructions = last.issued;
  chip_->collectStats(s, r);
  return s;
}

} // namespace chipless::runtime
