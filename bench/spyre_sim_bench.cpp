// Simulator speed on the bundled kernels: simulated cycles per host second, in timing-only
// and functional modes. Each benchmark prepares the job once and launches it repeatedly
// (inputs made once per benchmark). The KTIR kernels of issue 9's comparison
// (bench/kernels/*.mlir) are compiled by spyre-compile (next to this program) first. The
// BM_F16* rows time the fp16 conversions the functional path spends much of its time in.
//
//   build/bin/spyre_sim_bench --benchmark_counters_tabular=true
#include "bench/compiled_program.h"
#include "runtime/spyre/spyre_device.h"
#include "runtime/spyre/spyre_job.h"
#include "support/atomic_file.h"
#include "support/numerics.h"
#include "support/numerics_bulk.h"
#include "support/spyrecode/assembler.h"

#include <benchmark/benchmark.h>
#include <cstdlib>
#include <cstring>
#include <map>
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

/// A tensor of normally distributed fp16 values (sigma 0.5), made once per shape and seed:
/// Google Benchmark runs each benchmark function more than once.
const NpyArray& random16(std::vector<int64_t> shape, uint64_t seed) {
  static std::map<std::pair<std::vector<int64_t>, uint64_t>, NpyArray> made;
  auto key = std::make_pair(shape, seed);
  auto it = made.find(key);
  if (it != made.end()) return it->second;
  NpyArray x = makeNpy(DType::F16, std::move(shape));
  std::mt19937 rng(static_cast<uint32_t>(seed));
  std::normal_distribution<float> n(0.0f, 0.5f);
  auto* p = reinterpret_cast<uint16_t*>(x.data.data());
  const size_t count = x.elements();
  for (size_t i = 0; i < count; ++i) p[i] = floatToHalf(n(rng));
  return made.emplace(key, std::move(x)).first->second;
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

/// Row softmax of fp16 [R, N] (models/kernels/softmax.s); arg 0 = R, arg 1 = N, arg 2 =
/// functional (0/1).
void BM_SoftmaxKernel(benchmark::State& state) {
  const int64_t r = state.range(0), n = state.range(1);
  const bool functional = state.range(2) != 0;
  SpyreArch a = arch();
  auto device = runtime::SpyreDevice::open(a, {-1, !functional});
  runtime::SpyreJob job(*device, kernel("softmax", a), "softmax");
  runtime::LaunchArgs args;
  args.scalars = {{"R", r}, {"N", n}};
  if (functional) args.inputs["X"] = random16({r, n}, 1);
  state.SetLabel(std::to_string(r) + "x" + std::to_string(n) + ", " +
                 (functional ? "functional" : "timing-only"));
  runLaunches(state, job, *device, args);
}

/// A KTIR kernel of bench/kernels compiled by spyre-compile, with its input shapes.
struct KtirKernel {
  const char* file;
  std::vector<std::pair<const char*, std::vector<int64_t>>> inputs;
};

/// The kernels of issue 9's comparison with ktir-cpu, written for chipless at its shapes.
const KtirKernel kKtirKernels[] = {
    {"rope_heads", {{"X", {163840, 128}}, {"cos", {4096, 64}}, {"sin", {4096, 64}}}},
    {"softmax_4096x1024", {{"X", {4096, 1024}}}},
};

/// A compiled KTIR kernel; arg 0 = index in kKtirKernels, arg 1 = functional (0/1).
void BM_CompiledKernel(benchmark::State& state) {
  const KtirKernel& k = kKtirKernels[state.range(0)];
  const bool functional = state.range(1) != 0;
  std::unique_ptr<bench::Compiled> c = bench::compileWith(
      "spyre-compile", std::string(CHIPLESS_SOURCE_DIR) + "/bench/kernels/" + k.file + ".mlir");
  if (!c->error.empty()) {
    state.SkipWithError(c->error.c_str());
    return;
  }
  SpyreArch a = arch();
  auto device = runtime::SpyreDevice::open(a, {-1, !functional});
  runtime::SpyreJob job(*device, c->dir + "/job.plan");
  runtime::LaunchArgs args;
  uint64_t seed = 1;
  if (functional)
    for (const auto& [name, shape] : k.inputs) args.inputs[name] = random16(shape, seed++);
  state.SetLabel(std::string(k.file) + ".mlir, " + (functional ? "functional" : "timing-only"));
  runLaunches(state, job, *device, args);
}

/// fp16 <-> fp32 conversion of 1 Mi values (decode then encode); arg 0 = format (0 IEEE, 1
/// DLFloat16), arg 1 = implementation (0 the scalar functions, 1 portable bulk, 2 F16C/AVX2
/// bulk where the CPU has it).
void BM_F16Convert(benchmark::State& state) {
  const Fp16Format fmt = state.range(0) ? Fp16Format::DLFloat16 : Fp16Format::Ieee;
  const int impl = static_cast<int>(state.range(1));
  if (impl == 2 && bestBulkPath() != BulkPath::F16cAvx2) {
    state.SkipWithError("this CPU has no F16C/AVX2");
    return;
  }
  const NpyArray& x = random16({1 << 20}, 7);
  const size_t n = x.elements();
  std::vector<float> f(n);
  std::vector<uint8_t> out(2 * n);
  for (auto _ : state) {
    if (impl == 0) {
      for (size_t i = 0; i < n; ++i) {
        uint16_t h;
        std::memcpy(&h, x.data.data() + 2 * i, 2);
        f[i] = decodeF16(h, fmt);
      }
      for (size_t i = 0; i < n; ++i) {
        const uint16_t h = encodeF16(f[i], fmt);
        std::memcpy(out.data() + 2 * i, &h, 2);
      }
    } else {
      const BulkPath path = impl == 1 ? BulkPath::Portable : BulkPath::F16cAvx2;
      decodeF16Bulk(x.data.data(), f.data(), n, fmt, path);
      encodeF16Bulk(f.data(), out.data(), n, fmt, path);
    }
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * n));
  state.SetLabel(std::string(fp16FormatName(fmt)) + ", " +
                 (impl == 0   ? "scalar"
                  : impl == 1 ? "portable bulk"
                              : "f16c+avx2 bulk"));
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

BENCHMARK(BM_SoftmaxKernel)
    ->Args({4096, 1024, 0})
    ->Args({4096, 1024, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_CompiledKernel)
    ->Args({0, 0})
    ->Args({0, 1})
    ->Args({1, 0})
    ->Args({1, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_F16Convert)
    ->Args({0, 0})
    ->Args({0, 1})
    ->Args({0, 2})
    ->Args({1, 0})
    ->Args({1, 1})
    ->Args({1, 2})
    ->Unit(benchmark::kMillisecond);

int main(int argc, char** argv) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  return 0;
}
