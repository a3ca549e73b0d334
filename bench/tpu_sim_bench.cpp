// TPU simulator speed and modelled efficiency on the bundled TPU kernels
// (models/tpu-kernels) and on programs compiled by tpu-compile from tensor graphs
// (models/graphs): simulated cycles per host second in timing-only mode (and, for reference,
// functional mode), the modelled MXU utilisation, and tpu-compile's wall time per graph.
//
//   build/bin/tpu_sim_bench --benchmark_counters_tabular=true
//
// Each simulation benchmark prepares its jobs once and launches them repeatedly. The compiler
// runs as the tool users run (build/bin/tpu-compile, next to this program), into a temporary
// directory that is removed afterwards.
#include "bench/compiled_program.h"
#include "runtime/tpu/tpu_device.h"
#include "runtime/tpu/tpu_job.h"
#include "support/atomic_file.h"
#include "support/tpu_arch.h"
#include "support/tpuprog/assembler.h"

#include <benchmark/benchmark.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <random>
#include <sys/wait.h>
#include <unistd.h>

using namespace chipless;

namespace {

TpuArch arch(const std::string& gen = "v5e") {
  return TpuArch::load(std::string(CHIPLESS_SOURCE_DIR) + "/models/hw/tpu-" + gen + ".yaml");
}

tpuprog::Job kernel(const std::string& name, const TpuArch& a) {
  std::string path = std::string(CHIPLESS_SOURCE_DIR) + "/models/tpu-kernels/" + name + ".s";
  return tpuprog::assemble(readFile(path), path, tpuprog::AssembleOptions::forArch(a));
}

NpyArray randomF32(std::vector<int64_t> shape, uint64_t seed) {
  NpyArray x = makeNpy(DType::F32, std::move(shape));
  std::mt19937 rng(static_cast<uint32_t>(seed));
  std::normal_distribution<float> n(0.0f, 1.0f);
  auto* p = reinterpret_cast<float*>(x.data.data());
  for (size_t i = 0; i < x.elements(); ++i) p[i] = n(rng);
  return x;
}

/// One launch of a prepared job with its arguments.
struct Step {
  std::unique_ptr<runtime::TpuJob> job;
  runtime::LaunchArgs args;
};

/// Launches the steps in order until the benchmark stops; reports simulated cycles per host
/// second (simulation time only) and the MXU utilisation of the whole sequence.
void runSequence(benchmark::State& state, runtime::TpuDevice& device, std::vector<Step>& steps) {
  double cycles = 0, flops = 0, simSeconds = 0;
  for (auto _ : state) {
    cycles = flops = 0;
    for (Step& s : steps) {
      runtime::LaunchReport out = s.job->launch(s.args);
      Stats st;
      st = device.stats(out);
      cycles += out.cycles;
      flops += st.get("mxu_flops");
      simSeconds += out.hostSeconds;
    }
  }
  const TpuArch& a = device.tpuArch();
  state.counters["sim_cycles"] = cycles;
  state.counters["sim_cycles_per_s"] =
      benchmark::Counter(cycles * static_cast<double>(state.iterations()) / simSeconds);
  state.counters["mxu_util"] =
      flops / (cycles * static_cast<double>(a.peakBf16FlopsPerCycle()) * device.chips());
}

/// C = A @ B, bf16 [S, S] x [S, S] on v5e; arg 0 = S, arg 1 = functional (0/1).
void BM_Gemm(benchmark::State& state) {
  const int64_t s = state.range(0);
  const bool functional = state.range(1) != 0;
  TpuArch a = arch();
  auto device = runtime::TpuDevice::open(a, {-1, !functional, 1});
  std::vector<Step> steps(1);
  steps[0].job = std::make_unique<runtime::TpuJob>(*device, kernel("gemm", a), "gemm");
  steps[0].args.scalars = {{"M", s}, {"K", s}, {"N", s}, {"MB", s}};
  if (functional) {
    steps[0].args.inputs["A"] = randomF32({s, s}, 1);
    steps[0].args.inputs["B"] = randomF32({s, s}, 2);
  }
  state.SetLabel(std::to_string(s) + "^3 bf16 GEMM, " +
                 (functional ? "functional" : "timing-only"));
  runSequence(state, *device, steps);
}

/// An MLP block's shape on v5e, timing-only: up-projection [T, D] x [D, 4D], the bias add
/// (an HBM-bound element-wise kernel on [T, 4D]), down-projection [T, 4D] x [4D, D].
/// arg 0 = T (tokens), arg 1 = D (model width).
void BM_Mlp(benchmark::State& state) {
  const int64_t t = state.range(0), d = state.range(1);
  TpuArch a = arch();
  auto device = runtime::TpuDevice::open(a, {-1, true, 1});
  std::vector<Step> steps(3);
  steps[0].job = std::make_unique<runtime::TpuJob>(*device, kernel("gemm", a), "up");
  steps[0].args.scalars = {{"M", t}, {"K", d}, {"N", 4 * d}, {"MB", t}};
  steps[1].job = std::make_unique<runtime::TpuJob>(*device, kernel("add", a), "bias");
  steps[1].args.scalars = {{"R", t}, {"N", 4 * d}};
  steps[2].job = std::make_unique<runtime::TpuJob>(*device, kernel("gemm", a), "down");
  steps[2].args.scalars = {{"M", t}, {"K", 4 * d}, {"N", d}, {"MB", t}};
  state.SetLabel("MLP T=" + std::to_string(t) + " D=" + std::to_string(d) +
                 ": up-projection, bias add, down-projection (timing-only)");
  runSequence(state, *device, steps);
}

using bench::Compiled;

/// tpu-compile models/graphs/<graph>.mlir -o <a fresh temporary directory> FLAGS (the tool
/// next to this benchmark's executable).
std::unique_ptr<Compiled> compileGraph(const std::string& graph,
                                       const std::vector<std::string>& flags = {}) {
  return bench::compileWith(
      "tpu-compile", std::string(CHIPLESS_SOURCE_DIR) + "/models/graphs/" + graph + ".mlir", flags);
}

/// A compiled graph on v5e in timing-only mode: models/graphs/<graph>.mlir compiled once,
/// prepared once, launched until the benchmark stops.
void runCompiled(benchmark::State& state, const std::string& graph, const std::string& label) {
  std::unique_ptr<Compiled> c = compileGraph(graph);
  if (!c->error.empty()) {
    state.SkipWithError(c->error.c_str());
    return;
  }
  TpuArch a = arch();
  auto device = runtime::TpuDevice::open(a, {-1, true, 1});
  std::vector<Step> steps(1);
  steps[0].job = std::make_unique<runtime::TpuJob>(*device, c->dir + "/job.plan");
  state.SetLabel(label + " (models/graphs/" + graph + ".mlir, compiled, timing-only)");
  runSequence(state, *device, steps);
  state.counters["compile_s"] = c->seconds;
}

/// The compiled 4096^3 bf16 GEMM (models/graphs/gemm_4096.mlir).
void BM_CompiledGemm4096(benchmark::State& state) {
  runCompiled(state, "gemm_4096", "4096^3 bf16 GEMM");
}

/// The compiled MLP of BM_Mlp's shape with its GELU (models/graphs/mlp_2048x4096.mlir): two
/// kernels, each a matmul with the bias add and GELU (or bias add) fused on the VPU.
void BM_CompiledMlp(benchmark::State& state) {
  runCompiled(state, "mlp_2048x4096", "MLP T=2048 D=4096 with GELU");
}

/// tpu-compile's wall time (process start to exit, output written) per graph.
void BM_Compile(benchmark::State& state, const std::string& graph) {
  for (auto _ : state) {
    std::unique_ptr<Compiled> c = compileGraph(graph);
    if (!c->error.empty()) {
      state.SkipWithError(c->error.c_str());
      break;
    }
  }
  state.SetLabel("tpu-compile models/graphs/" + graph + ".mlir");
}

/// All-reduce of 16 MiB per chip over N chips (v5e, 2-D torus), timing-only; arg 0 = N.
void BM_AllReduce(benchmark::State& state) {
  const int chips = static_cast<int>(state.range(0));
  TpuArch a = arch();
  auto device = runtime::TpuDevice::open(a, {-1, true, chips});
  std::vector<Step> steps(1);
  steps[0].job = std::make_unique<runtime::TpuJob>(*device, kernel("allreduce", a), "allreduce");
  steps[0].args.scalars = {{"L", 4 << 20}};
  state.SetLabel("all-reduce of 16 MiB over " + std::to_string(chips) + " chips (timing-only)");
  runSequence(state, *device, steps);
}

} // namespace

BENCHMARK(BM_Gemm)->Args({4096, 0})->Args({1024, 0})->Args({512, 1})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Mlp)->Args({2048, 4096})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AllReduce)->Arg(4)->Arg(16)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CompiledGemm4096)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CompiledMlp)->Unit(benchmark::kMillisecond);
#define COMPILE_BENCHMARK(graph)                                                                   \
  BENCHMARK_CAPTURE(BM_Compile, graph, #graph)                                                     \
      ->UseRealTime()                                                                              \
      ->Iterations(5)                                                                              \
      ->Unit(benchmark::kMillisecond)
COMPILE_BENCHMARK(gemm_200x300x260);
COMPILE_BENCHMARK(gemm_4096);
COMPILE_BENCHMARK(batch_matmul);
COMPILE_BENCHMARK(softmax);
COMPILE_BENCHMARK(layernorm);
COMPILE_BENCHMARK(mlp_gelu);
COMPILE_BENCHMARK(mlp_gelu_erf);
COMPILE_BENCHMARK(mlp_2048x4096);
COMPILE_BENCHMARK(attention);
COMPILE_BENCHMARK(mha);

int main(int argc, char** argv) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
