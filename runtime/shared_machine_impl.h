#pragma once
/// The definitions of SharedMachine<Traits> (shared_machine.h), included by the one file per
/// chip that instantiates them (runtime/tpu/tpu_machine.cpp, runtime/spyre/spyre_machine.cpp).
#include "runtime/shared_machine.h"
#include "support/error.h"

#include <algorithm>
#include <map>

namespace chipless::runtime {

template <typename Traits>
SharedMachine<Traits>::SharedMachine(const Arch& arch, const DeviceOptions& options,
                                     DeviceLock lock, bool shared)
    : arch_(arch), options_(options), lock_(std::move(lock)), shared_(shared),
      coreTaken_(static_cast<size_t>(Traits::cores(arch)), false),
      gate_([this](const auto& arrivals) { runRound(arrivals); },
            std::chrono::microseconds(options.share.windowMicroseconds)) {
  std::vector<sim::DeviceMemory*> raw;
  for (int c = 0; c < Traits::memories(options); ++c) {
    memories_.push_back(std::make_unique<sim::DeviceMemory>(!options.timingOnly));
    raw.push_back(memories_.back().get());
  }
  context_ = std::make_unique<sim::SimContext>();
  model_ = Traits::elaborate(arch_, raw, options.timingOnly);
  model_->setLimits(options.maxCycles, options.timeoutSeconds);
}

template <typename Traits>
SharedMachine<Traits>::~SharedMachine() {
  if (context_) context_->enter(); // the model's modules are destroyed in their own context
  model_.reset();
  context_.reset();
}

template <typename Traits>
std::shared_ptr<SharedMachine<Traits>> SharedMachine<Traits>::open(const Arch& arch,
                                                                   const DeviceOptions& options) {
  auto lockOf = [&] {
    return options.index >= 0 ? DeviceLock::acquire(Traits::kKind, options.index)
                              : DeviceLock::acquireAny(Traits::kKind);
  };
  if (options.share.cores == 0)
    return std::make_shared<SharedMachine>(arch, options, lockOf(), false);
  // This process's shared machines by device number.
  static std::mutex registryMutex;
  static std::map<int, std::weak_ptr<SharedMachine>> registry;
  std::lock_guard lock(registryMutex);
  auto found = options.index >= 0 ? registry.find(options.index) : registry.begin();
  if (found != registry.end()) {
    if (auto machine = found->second.lock()) {
      const SharedMachine& m = *machine;
      const std::string device = std::string(Traits::kKind) + ":" + std::to_string(m.index());
      if (m.arch().description.fingerprint() != arch.description.fingerprint())
        throw Error(device + " is shared on another architecture (" +
                    m.arch().description.sourceFile() +
                    "); a share must ask for the one it models");
      if (m.options().chips != options.chips || m.options().timingOnly != options.timingOnly)
        throw Error(device + " is shared with " + std::to_string(m.options().chips) + " chip(s)" +
                    (m.options().timingOnly ? ", timing only" : "") +
                    "; a share must ask for the same");
      return machine;
    }
  }
  DeviceLock held = lockOf();
  const int index = held.index();
  auto machine = std::make_shared<SharedMachine>(arch, options, std::move(held), true);
  registry[index] = machine;
  return machine;
}

template <typename Traits>
sim::Partition SharedMachine<Traits>::claimShare(int cores, uint64_t bytes) {
  std::lock_guard lock(mutex_);
  const int total = Traits::cores(arch_);
  const std::string device = std::string(Traits::kKind) + ":" + std::to_string(index());
  if (cores < 1 || cores > total)
    throw Error(device + ": a share of " + std::to_string(cores) + " " + Traits::kCores +
                ": a chip has " + std::to_string(total) + " (" + Traits::kCoresKey + ")");
  int first = -1;
  for (int k = 0; k + cores <= total && first < 0; ++k)
    if (std::none_of(coreTaken_.begin() + k, coreTaken_.begin() + k + cores,
                     [](bool taken) { return taken; }))
      first = k;
  if (first < 0) {
    int free = static_cast<int>(std::count(coreTaken_.begin(), coreTaken_.end(), false));
    throw Error(device + ": no " + std::to_string(cores) + " free " + Traits::kCores +
                " side by side for a share (" + std::to_string(free) + " of " +
                std::to_string(total) + " free; the other shares hold the rest)");
  }
  const uint64_t capacity = Traits::memoryBytes(arch_);
  const uint64_t granule = Traits::windowGranule(arch_);
  if (bytes == 0) bytes = capacity / static_cast<uint64_t>(total) * static_cast<uint64_t>(cores);
  bytes = bytes / granule * granule;
  auto at = bytes == 0 ? std::nullopt : windows_.place(0, capacity, 0, bytes, granule);
  if (!at)
    throw Error(device + ": no room for a share of " + std::to_string(bytes) + " bytes of " +
                Traits::kMemory + " (" + std::to_string(capacity) + " bytes, " +
                Traits::kMemoryKey + "; the other shares hold the rest)");
  windows_.claim(*at, bytes);
  std::fill(coreTaken_.begin() + first, coreTaken_.begin() + first + cores, true);
  sim::Partition p;
  p.coreFirst = first;
  p.cores = cores;
  p.memoryBase = *at;
  p.memoryBytes = bytes;
  return p;
}

template <typename Traits>
void SharedMachine<Traits>::releaseShare(const sim::Partition& p) {
  std::lock_guard lock(mutex_);
  std::fill(coreTaken_.begin() + p.coreFirst, coreTaken_.begin() + p.coreFirst + p.cores, false);
  windows_.release(p.memoryBase);
}

template <typename Traits>
typename SharedMachine<Traits>::View SharedMachine<Traits>::view(const Arch& arch,
                                                                 const DeviceOptions& options) {
  if (options.share.cores == 0) return {arch, {}, std::nullopt};
  sim::Partition p = claimShare(options.share.cores, options.share.memoryBytes);
  try {
    ShareInfo info{p.coreFirst, p.cores, p.memoryBase, p.memoryBytes,
                   Traits::shareOverrides(arch, p)};
    return {Arch::fromDescription(arch.description.withOverrides(info.overrides)), p, info};
  } catch (...) {
    releaseShare(p);
    throw;
  }
}

template <typename Traits>
typename SharedMachine<Traits>::ShareRun
SharedMachine<Traits>::run(const sim::Partition& partition, const Binary& binary,
                           const std::vector<int64_t>& symbols, TraceWriter* trace) {
  if (!shared_) {
    std::lock_guard lock(mutex_);
    enterContext();
    return {model_->launch(binary, symbols, trace), {}, false};
  }
  Launch launch{&binary, &symbols, trace, partition, {}};
  CoLaunchGate::Arrival arrival;
  arrival.share = partition.coreFirst;
  arrival.launch = &launch;
  gate_.run(arrival);
  return std::move(launch.run);
}

template <typename Traits>
void SharedMachine<Traits>::runRound(const std::vector<CoLaunchGate::Arrival*>& arrivals) {
  std::lock_guard lock(mutex_);
  enterContext();
  std::vector<sim::LaunchPart<Binary>> parts;
  TraceWriter* trace = nullptr;
  for (CoLaunchGate::Arrival* a : arrivals) {
    auto* l = static_cast<Launch*>(a->launch);
    parts.push_back({l->binary, l->symbols, l->partition});
    if (!trace) trace = l->trace; // the one timeline shows every share's launch
  }
  std::vector<Result> results;
  try {
    results = model_->launch(parts, trace);
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
    auto* l = static_cast<Launch*>(arrivals[i]->launch);
    ShareRun& run = l->run;
    run.result = results[i];
    run.together = arrivals.size() > 1;
    run.stats = Stats();
    model_->collectStats(run.stats, results[i]);
    const sim::Partition& p = l->partition;
    run.stats.set("share.first_core", p.coreFirst, "cores",
                  std::string("the share's first ") + Traits::kCore);
    run.stats.set("share.cores", p.cores, "cores",
                  std::string(Traits::kCores) + " of the share" + Traits::kOnEveryChip);
    run.stats.set("share.memory_bytes", static_cast<double>(p.memoryBytes), "bytes",
                  std::string("the share's window of ") + Traits::kMemory + Traits::kOnEveryChip);
    run.stats.set("share.launches_together", static_cast<double>(arrivals.size()), "launches",
                  "the shares' launches that ran in this simulation, this one included");
    run.stats.set("share.simulation_cycles", together, "cycles",
                  "until the last of those launches finished");
  }
}

} // namespace chipless::runtime
