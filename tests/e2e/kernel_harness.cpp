#include "tests/e2e/kernel_harness.h"

#include "runtime/spyre/spyre_device.h"
#include "runtime/spyre/spyre_job.h"
#include "support/atomic_file.h"
#include "support/numerics.h"
#include "support/trace.h"

#include <cstdio>
#include <cstring>
#include <random>
#include <unistd.h>

namespace chipless::test {

SpyreArch archWith(const std::vector<std::string>& overrides) {
  return SpyreArch::load(std::string(CHIPLESS_SOURCE_DIR) + "/models/hw/spyre.yaml", overrides);
}

spyrecode::Job assembleKernel(const std::string& name, const SpyreArch& arch) {
  std::string path = std::string(CHIPLESS_SOURCE_DIR) + "/models/kernels/" + name + ".s";
  return spyrecode::assemble(readFile(path), path, spyrecode::AssembleOptions::forArch(arch));
}

NpyArray randomArray(DType dtype, std::vector<int64_t> shape, uint64_t seed, float scale) {
  NpyArray a = makeNpy(dtype, std::move(shape));
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.0f, scale);
  std::vector<float> v(a.elements());
  for (float& x : v) x = normal(rng);
  if (dtype == DType::I32) {
    for (size_t i = 0; i < v.size(); ++i) {
      int32_t k = static_cast<int32_t>(v[i] * 100);
      std::memcpy(a.data.data() + 4 * i, &k, 4);
    }
  } else {
    encodeFromFloat(dtype, v.data(), a.data.data(), v.size(), Fp16Format::Ieee);
  }
  return a;
}

std::vector<float> floats(const NpyArray& a) {
  std::vector<float> v(a.elements());
  decodeToFloat(a.dtype, a.data.data(), v.data(), v.size(), Fp16Format::Ieee);
  return v;
}

KernelRun runKernel(const std::string& name, const std::map<std::string, NpyArray>& inputs,
                    const SpyreArch& arch, bool withTrace, bool timingOnly,
                    const std::map<std::string, int64_t>& scalars) {
  auto device = runtime::SpyreDevice::open(arch, {-1, timingOnly});
  runtime::SpyreJob job(*device, assembleKernel(name, arch), name);
  TraceWriter trace;
  runtime::LaunchArgs args;
  args.inputs = inputs;
  args.scalars = scalars;
  args.trace = withTrace ? &trace : nullptr;
  runtime::LaunchReport out = job.launch(args);
  KernelRun run;
  run.outputs = out.outputs;
  run.cycles = out.cycles;
  run.stats = device->stats(out);
  run.statsJson = run.stats.toJson().dump(2);
  if (withTrace) run.traceJson = trace.toString();
  return run;
}

double dramBoundCycles(const KernelRun& run, const SpyreArch& arch) {
  return run.stats.get("chip.dram.bytes") / arch.dramBytesPerCycle();
}

} // namespace chipless::test
