#pragma once
/// Helpers of the TPU model's unit tests: assemble inline TPU assembly, run it on a fresh
/// emulated TPU system, make deterministic inputs and read results as floats.
#include "runtime/tpu/tpu_device.h"
#include "runtime/tpu/tpu_job.h"
#include "support/error.h"
#include "support/numerics.h"
#include "support/tpu_arch.h"
#include "support/tpuprog/assembler.h"

#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace chipless::test {

/// models/hw/tpu-<gen>.yaml with `overrides` applied.
inline TpuArch tpuArch(const std::vector<std::string>& overrides = {},
                       const std::string& gen = "v5e") {
  return TpuArch::load(std::string(CHIPLESS_SOURCE_DIR) + "/models/hw/tpu-" + gen + ".yaml",
                       overrides);
}

/// What an inline program produced.
struct TpuRun {
  std::map<std::string, NpyArray> outputs;
  Stats stats;
  double cycles = 0;
};

/// Assembles `text` and launches it once on a fresh device of `chips` chips.
inline TpuRun runTpu(const std::string& text, const std::map<std::string, NpyArray>& inputs,
                     const TpuArch& arch, int chips = 1, bool timingOnly = false,
                     const std::map<std::string, int64_t>& scalars = {},
                     TraceWriter* trace = nullptr) {
  auto o = tpuprog::AssembleOptions::forArch(arch);
  auto device = runtime::TpuDevice::open(arch, {-1, timingOnly, chips});
  runtime::TpuJob job(*device, tpuprog::assemble(text, "inline.s", o), "inline.s");
  runtime::LaunchArgs args;
  args.inputs = inputs;
  args.scalars = scalars;
  args.trace = trace;
  runtime::LaunchReport out = job.launch(args);
  TpuRun run;
  run.outputs = out.outputs;
  run.cycles = out.cycles;
  run.stats = device->stats(out);
  return run;
}

/// The message of the chipless::Error that running `text` throws, or "" when it succeeds.
inline std::string tpuError(const std::string& text, const std::map<std::string, NpyArray>& inputs,
                            const TpuArch& arch, int chips = 1) {
  try {
    runTpu(text, inputs, arch, chips);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

/// Normally distributed f32 values (times `scale`); the same seed gives the same array.
inline NpyArray randomF32(std::vector<int64_t> shape, uint64_t seed, float scale = 1.0f) {
  NpyArray a = makeNpy(DType::F32, std::move(shape));
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.0f, scale);
  auto* p = reinterpret_cast<float*>(a.data.data());
  for (size_t i = 0; i < a.elements(); ++i) p[i] = normal(rng);
  return a;
}

/// The same values rounded to bf16 (still stored as f32), as the device sees them.
inline NpyArray roundedToBf16(NpyArray a) {
  auto* p = reinterpret_cast<float*>(a.data.data());
  for (size_t i = 0; i < a.elements(); ++i) p[i] = bf16ToFloat(floatToBf16(p[i]));
  return a;
}

/// The elements of an f32 array.
inline std::vector<float> values(const NpyArray& a) {
  std::vector<float> v(a.elements());
  std::memcpy(v.data(), a.data.data(), v.size() * 4);
  return v;
}

/// C = A @ B in fp64 for row-major f32 A [M, K], B [K, N].
inline std::vector<double> matmulRef(const NpyArray& a, const NpyArray& b, int64_t m, int64_t k,
                                     int64_t n) {
  std::vector<float> x = values(a), y = values(b);
  std::vector<double> c(static_cast<size_t>(m * n), 0.0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t p = 0; p < k; ++p) {
      double v = x[i * k + p];
      for (int64_t j = 0; j < n; ++j) c[i * n + j] += v * y[p * n + j];
    }
  return c;
}

} // namespace chipless::test
