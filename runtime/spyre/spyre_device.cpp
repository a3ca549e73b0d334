#include "runtime/spyre/spyre_device.h"

#include "runtime/spyre/spyre_job.h"
#include "support/error.h"

namespace chipless::runtime {

std::unique_ptr<SpyreDevice> SpyreDevice::open(const SpyreArch& arch,
                                               const DeviceOptions& options) {
  if (options.chips != 1)
    throw Error("a Spyre card is one chip; --chips " + std::to_string(options.chips) +
                " applies to TPU systems");
  auto machine = SpyreMachine::open(arch, options);
  return std::unique_ptr<SpyreDevice>(new SpyreDevice(machine, machine->view(arch, options)));
}

SpyreDevice::SpyreDevice(std::shared_ptr<SpyreMachine> machine, SpyreMachine::View view)
    : machine_(std::move(machine)), arch_(std::move(view.arch)), partition_(view.partition),
      shareInfo_(std::move(view.share)) {
  if (machine_->shared()) machine_->gate().attach();
}

SpyreDevice::~SpyreDevice() {
  if (!machine_->shared()) return;
  {
    // What the share allocated goes back with it.
    std::lock_guard lock(machine_->mutex());
    for (uint64_t at : ranges_.starts()) machine_->memory(0).release(deviceAddress(at));
  }
  machine_->gate().detach();
  machine_->releaseShare(partition_);
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
  size = std::max<uint64_t>(size, 1);
  std::lock_guard lock(machine_->mutex());
  machine_->memory(0).allocate(deviceAddress(address), size, name);
  ranges_.claim(address, size);
}

void SpyreDevice::release(uint64_t address) {
  std::lock_guard lock(machine_->mutex());
  if (machine_->shared() && !ranges_.holds(address, 1))
    throw Error(name() + ": nothing allocated at " + std::to_string(address));
  machine_->memory(0).release(deviceAddress(address));
  ranges_.release(address);
}

uint64_t SpyreDevice::allocate(uint64_t bytes, const std::string& name) {
  return allocate(0, bytes, name);
}

void SpyreDevice::checkRange(uint64_t address, uint64_t bytes) const {
  const uint64_t limit = segmentBase(arch_.memory.segments);
  if (partition_.memoryBytes && (address + bytes > limit || address + bytes < address))
    throw Error(name() + ": " + std::to_string(bytes) + " bytes at " + std::to_string(address) +
                " end beyond its job address space (" + std::to_string(limit) + " bytes)");
}

void SpyreDevice::copyIn(uint64_t address, const void* data, uint64_t bytes, int chip) {
  if (chip > 0) throw Error(name() + ": a Spyre card has no chip " + std::to_string(chip));
  checkRange(address, bytes);
  std::lock_guard lock(machine_->mutex());
  machine_->memory(0).write(deviceAddress(address), data, bytes);
}

void SpyreDevice::copyOut(uint64_t address, void* data, uint64_t bytes, int chip) const {
  if (chip > 0) throw Error(name() + ": a Spyre card has no chip " + std::to_string(chip));
  checkRange(address, bytes);
  std::lock_guard lock(machine_->mutex());
  machine_->memory(0).read(deviceAddress(address), data, bytes);
}

uint8_t* SpyreDevice::span(uint64_t address, uint64_t bytes) {
  const uint64_t limit = segmentBase(arch_.memory.segments);
  if (partition_.memoryBytes && (address + bytes > limit || address + bytes < address))
    return nullptr;
  std::lock_guard lock(machine_->mutex());
  return machine_->memory(0).span(deviceAddress(address), bytes);
}

sim::spyre::LaunchResult SpyreDevice::run(const spyrecode::JobBinary& binary,
                                          const std::vector<int64_t>& symbols, TraceWriter* trace) {
  SpyreMachine::ShareRun run = machine_->run(partition_, binary, symbols, trace);
  lastRunShared_ = run.together;
  if (machine_->shared()) shareStats_ = std::move(run.stats);
  return run.result;
}

Stats SpyreDevice::stats(const LaunchReport& last) const {
  if (last.deviceStats) return *last.deviceStats;
  if (shareStats_) return *shareStats_;
  Stats s;
  sim::spyre::LaunchResult r;
  r.cycles = last.cycles;
  r.hostSeconds = last.hostSeconds;
  r.instructions = last.issued;
  std::lock_guard lock(machine_->mutex());
  machine_->model().collectStats(s, r);
  return s;
}

} // namespace chipless::runtime
