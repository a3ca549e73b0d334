// The modelled time of the collectives behind tpu_dist and spyre_dist, against their bounds:
// an all-reduce over 2, 4 and 8 ranks of 64 KiB, 1 MiB and 16 MiB f32 per rank, on the ICI of
// a TPU v5e system (one chip per rank) and on a Spyre card's ring (one group of cores per
// rank), the latter also with DRAM at 1000 GB/s.
//
//   build/bin/collectives_bench --benchmark_counters_tabular=true
//
// Counters: modelled_us (the network's time), bound_us (ICI: 2(n-1)/n of a rank's bytes over
// one link; ring: the slower of (n-1)/n of them through each link direction and the card's
// DRAM reading and writing every rank's block once), ratio = modelled / bound, and
// host_ms (simulation wall time per collective).
#include "runtime/remote/ici_collectives.h"
#include "runtime/remote/ring_collectives.h"
#include "runtime/remote/worker_loop.h"
#include "support/spyre_arch.h"
#include "support/tpu_arch.h"

#include <benchmark/benchmark.h>
#include <chrono>
#include <memory>

using namespace chipless;
using runtime::remote::CollectiveKind;

namespace {

std::vector<NpyArray> blocks(int ranks, int64_t bytes) {
  std::vector<NpyArray> out;
  for (int r = 0; r < ranks; ++r) {
    NpyArray x = makeNpy(DType::F32, {bytes / 4});
    auto* p = reinterpret_cast<float*>(x.data.data());
    for (int64_t i = 0; i < bytes / 4; ++i) p[i] = static_cast<float>((i + r) % 17);
    out.push_back(std::move(x));
  }
  return out;
}

void report(benchmark::State& state, runtime::remote::CollectiveService& service, int ranks,
            int64_t bytes, double boundSeconds) {
  auto in = blocks(ranks, bytes);
  double seconds = 0, host = 0;
  for (auto _ : state) {
    auto start = std::chrono::steady_clock::now();
    seconds = service.run(CollectiveKind::AllReduce, 0, in).at(0).seconds;
    host += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  state.counters["modelled_us"] = seconds * 1e6;
  state.counters["bound_us"] = boundSeconds * 1e6;
  state.counters["ratio"] = seconds / boundSeconds;
  state.counters["host_ms"] = host * 1e3 / static_cast<double>(state.iterations());
}

void Ici(benchmark::State& state) {
  const int ranks = static_cast<int>(state.range(0));
  const int64_t bytes = state.range(1);
  TpuArch arch = TpuArch::load(std::string(CHIPLESS_SOURCE_DIR) + "/models/hw/tpu-v5e.yaml");
  runtime::remote::WorkDirectory work("bench-ici");
  runtime::remote::IciCollectives ici(arch.description, 1100, work.path());
  const double link = arch.description.getFloat("ici.bandwidth_gb_s") * 1e9;
  report(state, ici, ranks, bytes, 2.0 * (ranks - 1) / ranks * static_cast<double>(bytes) / link);
}

void ring(benchmark::State& state, const std::vector<std::string>& overrides) {
  const int ranks = static_cast<int>(state.range(0));
  const int64_t bytes = state.range(1);
  SpyreArch arch = SpyreArch::load(SpyreArch::defaultFile(), overrides);
  runtime::remote::WorkDirectory work("bench-ring");
  runtime::remote::RingCollectives service(arch.description, 1100, work.path());
  const double b = static_cast<double>(bytes);
  const double links =
      b * (ranks - 1) / ranks / arch.ring.bytes_per_cycle / (arch.chip.clock_ghz * 1e9);
  const double dram = 2.0 * ranks * b / (arch.dram.bandwidth_gb_s * 1e9);
  report(state, service, ranks, bytes, std::max(links, dram));
}

void Ring(benchmark::State& state) {
  ring(state, {});
}

void RingFastDram(benchmark::State& state) {
  ring(state, {"dram.bandwidth_gb_s=1000"});
}

void sizes(benchmark::internal::Benchmark* b) {
  for (int ranks : {2, 4, 8})
    for (int64_t bytes : {64 << 10, 1 << 20, 16 << 20}) b->Args({ranks, bytes});
  b->Iterations(1)->Unit(benchmark::kMillisecond);
}

BENCHMARK(Ici)->Apply(sizes);
BENCHMARK(Ring)->Apply(sizes);
BENCHMARK(RingFastDram)->Apply(sizes);

} // namespace

BENCHMARK_MAIN();
