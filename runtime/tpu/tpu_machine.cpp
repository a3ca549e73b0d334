#include "runtime/tpu/tpu_machine.h"

#include "support/error.h"
#include "support/tpuprog/plan.h"

#include <algorithm>
#include <map>

namespace chipless::runtime {

namespace {

std::mutex sharedMachinesMutex;
/// This process's shared machines by device number.
std::map<int, std::weak_ptr<TpuMachine>> sharedMachines;

} // namespace

TpuMachine::TpuMachine(const TpuArch& arch, const DeviceOptions& options, DeviceLock lock,
                       bool shared)
    : arch_(arch), options_(options), lock_(std::move(lock)), shared_(shared),
      coreTaken_(static_cast<size_t>(arch.chip.tensorcores), false),
      gate_([this](const auto& arrivals) { runRound(arrivals); },
            std::chrono::microseconds(options.share.windowMicroseconds)) {
  std::vector<sim::DeviceMemory*> raw;
  for (int c = 0; c < options.chips; ++c) {
    memories_.push_back(std::make_unique<sim::DeviceMemory>(!options.timingOnly));
    raw.push_back(memories_.back().get());
  }
  context_ = std::make_unique<sim::SimContext>();
  system_ = std::make_unique<sim::tpu::System>(arch_, raw, options.timingOnly);
  system_->setLimits(options.maxCycles, options.timeoutSeconds);
}

TpuMachine::~TpuMachine() {
  if (context_) context_->enter(); // the model's modules are destroyed in their own context
  system_.reset();
  context_.reset();
}

std::shared_ptr<TpuMachine> TpuMachine::openShared(const TpuArch& arch,
                                                   const DeviceOptions& options) {
  std::lock_guard lock(sharedMachinesMutex);
  auto found = options.index >= 0 ? sharedMachines.find(options.index) : sharedMachines.begin();
  if (found != sharedMachines.end()) {
    if (auto machine = found->second.lock()) {
      const TpuMachine& m = *machine;
      if (m.arch().description.fingerprint() != arch.description.fingerprint())
        throw Error("tpu:" + std::to_string(m.index()) + " is shared on another architecture (" +
                    m.arch().description.sourceFile() +
                    "); a share must ask for the one it models");
      if (m.options().chips != options.chips || m.options().timingOnly != options.timingOnly)
        throw Error("tpu:" + std::to_string(m.index()) + " is shared with " +
                    std::to_string(m.options().chips) + " chip(s)" +
                    (m.options().timingOnly ? ", timing only" : "") +
                    "; a share must ask for the same");
      return machine;
    }
  }
  DeviceLock lock2 = options.index >= 0 ? DeviceLock::acquire("tpu", options.index)
                                        : DeviceLock::acquireAny("tpu");
  const int index = lock2.index();
  auto machine = std::make_shared<TpuMachine>(arch, options, std::move(lock2), true);
  sharedMachines[index] = machine;
  return machine;
}

sim::Partition TpuMachine::claimShare(int cores, uint64_t bytes) {
  std::lock_guard lock(mutex_);
  const int total = arch_.chip.tensorcores;
  const std::string device = "tpu:" + std::to_string(index());
  if (cores < 1 || cores > total)
    throw Error(device + ": a share of " + std::to_string(cores) + " TensorCore(s): a chip has " +
                std::to_string(total) + " (chip.tensorcores)");
  int first = -1;
  for (int k = 0; k + cores <= total && first < 0; ++k)
    if (std::none_of(coreTaken_.begin() + k, coreTaken_.begin() + k + cores,
                     [](bool taken) { return taken; }))
      first = k;
  if (first < 0) {
    int free = static_cast<int>(std::count(coreTaken_.begin(), coreTaken_.end(), false));
    throw Error(device + ": no " + std::to_string(cores) +
                " free TensorCore(s) side by side for a share (" + std::to_string(free) + " of " +
                std::to_string(total) + " free; the other shares hold the rest)");
  }
  const uint64_t capacity = static_cast<uint64_t>(arch_.hbm.capacity_bytes);
  const uint64_t align = static_cast<uint64_t>(arch_.hbm.alignment_bytes);
  if (bytes == 0) bytes = capacity / static_cast<uint64_t>(total) * static_cast<uint64_t>(cores);
  bytes = bytes / align * align;
  auto at = bytes == 0 ? std::nullopt : windows_.place(0, capacity, 0, bytes, align);
  if (!at)
    throw Error(device + ": no room for a share of " + std::to_string(bytes) + " bytes of HBM (" +
                std::to_string(capacity) + " bytes per chip, hbm.capacity_bytes; the other " +
                "shares hold the rest)");
  windows_.claim(*at, bytes);
  std::fill(coreTaken_.begin() + first, coreTaken_.begin() + first + cores, true);
  sim::Partition p;
  p.coreFirst = first;
  p.cores = cores;
  p.memoryBase = *at;
  p.memoryBytes = bytes;
  return p;
}

void TpuMachine::releaseShare(const sim::Partition& p) {
  std::lock_guard lock(mutex_);
  std::fill(coreTaken_.begin() + p.coreFirst, coreTaken_.begin() + p.coreFirst + p.cores, false);
  windows_.release(p.memoryBase);
}

void TpuMachine::runRound(const std::vector<CoLaunchGate::Arrival*>& arrivals) {
  std::lock_guard lock(mutex_);
  enterContext();
  std::vector<sim::tpu::TpuLaunchPart> parts;
  TraceWriter* trace = nullptr;
  for (CoLaunchGate::Arrival* a : arrivals) {
    auto* l = static_cast<TpuShareLaunch*>(a->launch);
    parts.push_back({l->binary, l->symbols, l->partition});
    if (!trace) trace = l->trace; // the one timeline shows every share's launch
  }
  std::vector<sim::tpu::LaunchResult> results;
  try {
    results = system_->launch(parts, trace);
  } catch (const Error& e) {
    if (arrivals.size() == 1) throw; // a trap keeps its code, for the plan to explain
    std::string shares;
    for (const auto& p : parts) shares += (shares.empty() ? "" : "; ") + p.partition.describe();
    auto error = std::make_exception_ptr(
        Error("the launches of " + std::to_string(arrivals.size()) +
              " shares ran in one simulation (" + shares + "), which stopped: " + e.what()));
    for (CoLaunchGate::Arrival* a : arrivals) a->error = error;
    return;
  }
  double together = 0;
  for (const auto& r : results) together = std::max(together, r.cycles);
  for (size_t i = 0; i < arrivals.size(); ++i) {
    auto* l = static_cast<TpuShareLaunch*>(arrivals[i]->launch);
    l->result = results[i];
    l->together = arrivals.size();
    l->stats = Stats();
    system_->collectStats(l->stats, results[i]);
    const sim::Partition& p = l->partition;
    l->stats.set("share.first_core", p.coreFirst, "cores", "the share's first TensorCore");
    l->stats.set("share.cores", p.cores, "cores", "TensorCores of the share (on every chip)");
    l->stats.set("share.memory_bytes", static_cast<double>(p.memoryBytes), "bytes",
                 "the share's HBM window (on every chip)");
    l->stats.set("share.launches_together", static_cast<double>(arrivals.size()), "launches",
                 "the shares' launches that ran in this simulation, this one included");
    l->stats.set("share.simulation_cycles", together, "cycles",
                 "until the last of those launches finished");
  }
}

} // namespace chipless::runtime
