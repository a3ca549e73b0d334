// Simulator speed on the bundled kernels: simulated cycles per host second, in timing-only
// and functional modes. Each benchmark prepares the job once and launches it repeatedly.
//
//   build/bin/spyre_sim_bench --benchmark_counters_tabular=true
#include "runtime/spyre/spyre_device.h"
#include "runtime/spyre/spyre_job.h"
#include "support/atomic_file.h"
#include "support/numerics.h"
#include "support/spyrecode/assembler.h"

#include <benchmark/benchmark.h>
#include <cstdlib>
#include <random>

using namespace chipless;

namespace {

SpyreArch arch() {
  return SpyreArch::load(std::string(CHIPLESS_SOURCE_DIR) + "/models/hw/spyre.yaml");
}

spyrecode::Job kernel(const std::string& name, const SpyreArch& a) {
  std::string path = std::string(CHIPLESS_SOURCE_DIR) + "/models/kernels/" + name + ".s";
  return spyrecode::assemble(readFile(path), path, spyrecode::AssembleOptions::forArch(a));
}

NpyArray random16(std::vector<int64_t> shape, uint64_t seed) {
  NpyArray x = makeNpy(DType::F16, std::move(shape));
  std::mt19937 rng(static_cast<uint32_t>(seed));
  std::normal_distribution<float> n(0.0f, 0.5f);
  auto* p = reinterpret_cast<uint16_t*>(x.data.data());
  for (size_t i = 0; i < x.elements(); ++i) p[i] = floatToHalf(n(rng));
  return x;
}

/// Launches `job` until the benchmark stops; reports simulated cycles per host second.
void runLaunches(benchmark::State& state, runtime::SpyreJob& job, runtime::SpyreDevice& device,
                 const runtime::LaunchArgs& args) {
  double cycles = 0, simSeconds = 0;
  for (auto _ : state) {
    runtime::LaunchReport out = job.launch(args);
    cycles = out.cycles;
    simSeconds += out.hostSeconds;
  }
  state.counters["sim_cycles"] = cycles;
  state.counters["sim_cycles_per_s"] =
      benchmark::Counter(cycles * static_cast<double>(state.iterations()) / simSeconds);
  state.counters["dram_bytes"] = 0;
  Stats s;
  runtime::LaunchReport probe = job.launch(args);
  s = device.stats(probe);
  state.counters["dram_bytes"] = s.get("chip.dram.bytes");
  state.counters["dram_util"] = s.get("chip.utilization.dram");
  state.counters["pt_util"] = s.get("chip.utilization.pt");
}

/// Elementwise add of two [32, N] fp16 tensors; arg 0 = N, arg 1 = functional (0/1).
void BM_AddKernel(benchmark::State& state) {
  const int64_t n = state.range(0);
  const bool functional = state.range(1) != 0;
  SpyreArch a = arch();
  auto device = runtime::SpyreDevice::open(a, {-1, !functional});
  runtime::SpyreJob job(*device, kernel("add", a), "add");
  runtime::LaunchArgs args;
  args.scalars["N"] = n;
  if (functional) {
    args.inputs["A"] = random16({32, n}, 1);
    args.inputs["B"] = random16({32, n}, 2);
  }
  state.SetLabel(std::to_string(32 * n * 2 >> 20) + " MB per operand, " +
                 (functional ? "functional" : "timing-only"));
  runLaunches(state, job, *device, args);
}

/// Matmul [S, S] x [S, S] fp16; arg 0 = S, arg 1 = functional (0/1).
void BM_MatmulKernel(benchmark::State& state) {
  const int64_t s = state.range(0);
  const bool functional = state.range(1) != 0;
  SpyreArch a = arch();
  auto device = runtime::SpyreDevice::open(a, {-1, !functional});
  runtime::SpyreJob job(*device, kernel("matmul", a), "matmul");
  runtime::LaunchArgs args;
  args.scalars = {{"M", s}, {"K", s}, {"N", s}};
  if (functional) {
    args.inputs["A"] = random16({s, s}, 1);
    args.inputs["B"] = random16({s, s}, 2);
  }
  state.SetLabel(std::to_string(s) + "^3, " + (functional ? "functional" : "timing-only"));
  runLaunches(state, job, *device, args);
}

} // namespace

BENCHMARK(BM_AddKernel)
    ->Args({4096, 0})
    ->Args({4096, 1})
    ->Args({1 << 20, 0})
    ->Args({1 << 20, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_MatmulKernel)
    ->Args({256, 0})
    ->Args({256, 1})
    ->Args({1024, 0})
    ->Args({1024, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

int main(int argc, char** argv) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  return 0;
}
