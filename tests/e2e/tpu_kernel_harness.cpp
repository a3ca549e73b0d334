#include "tests/e2e/tpu_kernel_harness.h"

#include "runtime/tpu/tpu_device.h"
#include "runtime/tpu/tpu_job.h"
#include "support/atomic_file.h"
#include "support/numerics.h"
#include "support/trace.h"

#include <cstring>
#include <random>

namespace chipless::test {

TpuArch tpuArchWith(const std::vector<std::string>& overrides, const std::string& gen) {
  return TpuArch::load(std::string(CHIPLESS_SOURCE_DIR) + "/models/hw/tpu-" + gen + ".yaml",
                       overrides);
}

tpuprog::Job assembleTpuKernel(const std::string& name, const TpuArch& arch) {
  std::string path = std::string(CHIPLESS_SOURCE_DIR) + "/models/tpu-kernels/" + name + ".s";
  return tpuprog::assemble(readFile(path), path, tpuprog::AssembleOptions::forArch(arch));
}

TpuKernelRun runTpuKernel(const std::string& name, const std::map<std::string, NpyArray>& inputs,
                          const TpuArch& arch, const TpuRunOptions& o) {
  auto device = runtime::TpuDevice::open(arch, {-1, o.timingOnly, o.chips});
  runtime::TpuJob job(*device, assembleTpuKernel(name, arch), name);
  TraceWriter trace;
  runtime::LaunchArgs args;
  args.inputs = inputs;
  args.scalars = o.scalars;
  TpuKernelRun run;
  runtime::LaunchReport out;
  for (int i = 0; i < o.launches; ++i) {
    args.trace = o.trace && i + 1 == o.launches ? &trace : nullptr;
    out = job.launch(args);
    run.launchCycles.push_back(out.cycles);
  }
  run.outputs = out.outputs;
  run.cycles = out.cycles;
  run.stats = device->stats(out);
  run.statsJson = run.stats.toJson().dump(2);
  if (o.trace) run.traceJson = trace.toString();
  return run;
}

NpyArray randomF32Array(std::vector<int64_t> shape, uint64_t seed, float scale) {
  NpyArray a = makeNpy(DType::F32, std::move(shape));
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.0f, scale);
  auto* p = reinterpret_cast<float*>(a.data.data());
  for (size_t i = 0; i < a.elements(); ++i) p[i] = normal(rng);
  return a;
}

std::vector<float> f32Values(const NpyArray& a) {
  std::vector<float> v(a.elements());
  std::memcpy(v.data(), a.data.data(), v.size() * 4);
  return v;
}

std::vector<double> bf16MatmulReference(const NpyArray& a, const NpyArray& b, int64_t m, int64_t k,
                                        int64_t n) {
  std::vector<float> x = f32Values(a), y = f32Values(b);
  for (float& v : x) v = bf16ToFloat(floatToBf16(v));
  for (float& v : y) v = bf16ToFloat(floatToBf16(v));
  std::vector<double> c(static_cast<size_t>(m * n), 0.0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t p = 0; p < k; ++p) {
      const double v = x[i * k + p];
      for (int64_t j = 0; j < n; ++j) c[i * n + j] += v * y[p * n + j];
    }
  return c;
}

} // namespace chipless::test
