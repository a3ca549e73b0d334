#include "runtime/tpu/tpu_device.h"

#include "runtime/tpu/tpu_job.h"
#include "sim/common/sim_context.h"
#include "support/error.h"
#include "support/tpuprog/plan.h"

namespace chipless::runtime {

namespace {
constexpr int kMaxChips = 4096;
}

std::unique_ptr<TpuDevice> TpuDevice::open(const TpuArch& arch, const DeviceOptions& options) {
  if (options.chips < 1 || options.chips > kMaxChips)
    throw Error("--chips " + std::to_string(options.chips) + ": a TPU system has 1.." +
                std::to_string(kMaxChips) + " chips");
  DeviceLock lock = options.index >= 0 ? DeviceLock::acquire("tpu", options.index)
                                       : DeviceLock::acquireAny("tpu");
  return std::unique_ptr<TpuDevice>(new TpuDevice(arch, options, std::move(lock)));
}

TpuDevice::TpuDevice(const TpuArch& arch, const DeviceOptions& options, DeviceLock lock)
    : arch_(arch), options_(options), lock_(std::move(lock)) {
  std::vector<sim::DeviceMemory*> raw;
  for (int c = 0; c < options.chips; ++c) {
    memories_.push_back(std::make_unique<sim::DeviceMemory>(!options.timingOnly));
    raw.push_back(memories_.back().get());
  }
  context_ = std::make_unique<sim::SimContext>();
  system_ = std::make_unique<sim::tpu::System>(arch_, raw, options.timingOnly);
  system_->setLimits(options.maxCycles, options.timeoutSeconds);
}

TpuDevice::~TpuDevice() {
  if (context_) context_->enter(); // the model's modules are destroyed in their own context
  system_.reset();
  context_.reset();
}

uint64_t TpuDevice::placeRange(uint64_t preferred, uint64_t size) const {
  const uint64_t end = static_cast<uint64_t>(arch_.hbm.capacity_bytes);
  auto at =
      ranges_.place(0, end, preferred, size, static_cast<uint64_t>(arch_.hbm.alignment_bytes));
  if (!at)
    throw Error("HBM: no room for " + std::to_string(size) + " bytes (" + std::to_string(end) +
                " bytes per chip, hbm.capacity_bytes)");
  return *at;
}

uint64_t TpuDevice::allocate(uint64_t size, const std::string& name) {
  uint64_t at = 0;
  try {
    at = placeRange(0, size);
  } catch (const Error&) {
    throw Error("HBM: no room for '" + name + "' (" + std::to_string(size) + " bytes; " +
                std::to_string(arch_.hbm.capacity_bytes) + " bytes per chip, hbm.capacity_bytes)");
  }
  allocateAt(at, std::max<uint64_t>(size, 1), name);
  return at;
}

void TpuDevice::allocateAt(uint64_t address, uint64_t size, const std::string& name) {
  if (address % static_cast<uint64_t>(arch_.hbm.alignment_bytes) != 0)
    throw Error("HBM: '" + name + "' at " + tpuprog::formatDevPtr(address) + " is not aligned to " +
                std::to_string(arch_.hbm.alignment_bytes) + " bytes (hbm.alignment_bytes)");
  const uint64_t end = static_cast<uint64_t>(arch_.hbm.capacity_bytes);
  if (address + size > end || address + size < address)
    throw Error("HBM: '" + name + "' at " + tpuprog::formatDevPtr(address) + " (" +
                std::to_string(size) + " bytes) ends beyond the " + std::to_string(end) +
                " bytes of a chip (hbm.capacity_bytes)");
  size = std::max<uint64_t>(size, 1);
  for (size_t c = 0; c < memories_.size(); ++c) {
    try {
      memories_[c]->allocate(address, size, name);
    } catch (...) {
      for (size_t k = 0; k < c; ++k) memories_[k]->release(address);
      throw;
    }
  }
  ranges_.claim(address, size);
}

void TpuDevice::release(uint64_t address) {
  for (auto& m : memories_) m->release(address);
  ranges_.release(address);
}

void TpuDevice::checkChip(int chip, bool allowAll) const {
  if ((chip == -1 && allowAll) || (chip >= 0 && chip < options_.chips)) return;
  throw Error(name() + ": no chip " + std::to_string(chip) + " (the system has " +
              std::to_string(options_.chips) + ")");
}

void TpuDevice::copyIn(uint64_t address, const void* data, uint64_t bytes, int chip) {
  checkChip(chip, true);
  for (int c = 0; c < options_.chips; ++c)
    if (chip < 0 || c == chip) memories_[static_cast<size_t>(c)]->write(address, data, bytes);
}

void TpuDevice::copyOut(uint64_t address, void* data, uint64_t bytes, int chip) const {
  checkChip(chip, false);
  memories_[static_cast<size_t>(chip)]->read(address, data, bytes);
}

Stats TpuDevice::stats(const LaunchReport& last) const {
  if (last.deviceStats) return *last.deviceStats;
  Stats s;
  sim::tpu::LaunchResult r;
  r.cycles = last.cycles;
  r.hostSeconds = last.hostSeconds;
  r.bundles = last.issued;
  system_->collectStats(s, r);
  return s;
}

} // namespace chipless::runtime
