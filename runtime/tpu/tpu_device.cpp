#include "runtime/tpu/tpu_device.h"

#include "runtime/tpu/tpu_job.h"
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
  auto machine = TpuMachine::open(arch, options);
  return std::unique_ptr<TpuDevice>(new TpuDevice(machine, machine->view(arch, options)));
}

TpuDevice::TpuDevice(std::shared_ptr<TpuMachine> machine, TpuMachine::View view)
    : machine_(std::move(machine)), arch_(std::move(view.arch)), partition_(view.partition),
      shareInfo_(std::move(view.share)) {
  if (machine_->shared()) machine_->gate().attach();
}

TpuDevice::~TpuDevice() {
  if (!machine_->shared()) return;
  {
    // What the share allocated goes back with it.
    std::lock_guard lock(machine_->mutex());
    for (uint64_t at : ranges_.starts())
      for (int c = 0; c < chips(); ++c) machine_->memory(c).release(deviceAddress(at));
  }
  machine_->gate().detach();
  machine_->releaseShare(partition_);
}

uint64_t TpuDevice::placeRange(uint64_t preferred, uint64_t size) const {
  auto at = ranges_.place(0, capacity(), preferred, size,
                          static_cast<uint64_t>(arch_.hbm.alignment_bytes));
  if (!at)
    throw Error("HBM: no room for " + std::to_string(size) + " bytes (" +
                std::to_string(capacity()) + " bytes per chip, hbm.capacity_bytes)");
  return *at;
}

uint64_t TpuDevice::allocate(uint64_t size, const std::string& name) {
  uint64_t at = 0;
  try {
    at = placeRange(0, size);
  } catch (const Error&) {
    throw Error("HBM: no room for '" + name + "' (" + std::to_string(size) + " bytes; " +
                std::to_string(capacity()) + " bytes per chip, hbm.capacity_bytes)");
  }
  allocateAt(at, std::max<uint64_t>(size, 1), name);
  return at;
}

void TpuDevice::allocateAt(uint64_t address, uint64_t size, const std::string& name) {
  if (address % static_cast<uint64_t>(arch_.hbm.alignment_bytes) != 0)
    throw Error("HBM: '" + name + "' at " + tpuprog::formatDevPtr(address) + " is not aligned to " +
                std::to_string(arch_.hbm.alignment_bytes) + " bytes (hbm.alignment_bytes)");
  if (address + size > capacity() || address + size < address)
    throw Error("HBM: '" + name + "' at " + tpuprog::formatDevPtr(address) + " (" +
                std::to_string(size) + " bytes) ends beyond the " + std::to_string(capacity()) +
                " bytes of a chip (hbm.capacity_bytes)");
  size = std::max<uint64_t>(size, 1);
  std::lock_guard lock(machine_->mutex());
  for (int c = 0; c < chips(); ++c) {
    try {
      machine_->memory(c).allocate(deviceAddress(address), size, name);
    } catch (...) {
      for (int k = 0; k < c; ++k) machine_->memory(k).release(deviceAddress(address));
      throw;
    }
  }
  ranges_.claim(address, size);
}

void TpuDevice::release(uint64_t address) {
  std::lock_guard lock(machine_->mutex());
  if (machine_->shared() && !ranges_.holds(address, 1))
    throw Error(name() + ": nothing allocated at " + tpuprog::formatDevPtr(address));
  for (int c = 0; c < chips(); ++c) machine_->memory(c).release(deviceAddress(address));
  ranges_.release(address);
}

void TpuDevice::checkChip(int chip, bool allowAll) const {
  if ((chip == -1 && allowAll) || (chip >= 0 && chip < chips())) return;
  throw Error(name() + ": no chip " + std::to_string(chip) + " (the system has " +
              std::to_string(chips()) + ")");
}

void TpuDevice::copyIn(uint64_t address, const void* data, uint64_t bytes, int chip) {
  checkChip(chip, true);
  if (address + bytes > capacity() || address + bytes < address)
    throw Error(name() + ": " + std::to_string(bytes) + " bytes at " +
                tpuprog::formatDevPtr(address) + " end beyond its HBM (" +
                std::to_string(capacity()) + " bytes)");
  std::lock_guard lock(machine_->mutex());
  for (int c = 0; c < chips(); ++c)
    if (chip < 0 || c == chip) machine_->memory(c).write(deviceAddress(address), data, bytes);
}

void TpuDevice::copyOut(uint64_t address, void* data, uint64_t bytes, int chip) const {
  checkChip(chip, false);
  if (address + bytes > capacity() || address + bytes < address)
    throw Error(name() + ": " + std::to_string(bytes) + " bytes at " +
                tpuprog::formatDevPtr(address) + " end beyond its HBM (" +
                std::to_string(capacity()) + " bytes)");
  std::lock_guard lock(machine_->mutex());
  machine_->memory(chip).read(deviceAddress(address), data, bytes);
}

uint8_t* TpuDevice::span(int chip, uint64_t address, uint64_t bytes) {
  if (address + bytes > capacity() || address + bytes < address) return nullptr;
  std::lock_guard lock(machine_->mutex());
  return machine_->memory(chip).span(deviceAddress(address), bytes);
}

sim::tpu::LaunchResult TpuDevice::run(const tpuprog::JobBinary& binary,
                                      const std::vector<int64_t>& symbols, TraceWriter* trace) {
  TpuMachine::ShareRun run = machine_->run(partition_, binary, symbols, trace);
  lastRunShared_ = run.together;
  if (machine_->shared()) shareStats_ = std::move(run.stats);
  return run.result;
}

Stats TpuDevice::stats(const LaunchReport& last) const {
  if (last.deviceStats) return *last.deviceStats;
  if (shareStats_) return *shareStats_;
  Stats s;
  sim::tpu::LaunchResult r;
  r.cycles = last.cycles;
  r.hostSeconds = last.hostSeconds;
  r.bundles = last.issued;
  std::lock_guard lock(machine_->mutex());
  machine_->model().collectStats(s, r);
  return s;
}

} // namespace chipless::runtime
