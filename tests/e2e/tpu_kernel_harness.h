#pragma once
/// Shared helpers of the TPU end-to-end tests: assemble a bundled TPU kernel
/// (models/tpu-kernels/<name>.s), run it on a fresh emulated TPU system, make deterministic
/// inputs and compute fp32 references.
#include "support/npy.h"
#include "support/stats.h"
#include "support/tpu_arch.h"
#include "support/tpuprog/assembler.h"

#include <map>
#include <string>
#include <vector>

namespace chipless::test {

/// models/hw/tpu-<gen>.yaml with `overrides` applied.
TpuArch tpuArchWith(const std::vector<std::string>& overrides = {}, const std::string& gen = "v5e");

/// models/tpu-kernels/<name>.s assembled for `arch`.
tpuprog::Job assembleTpuKernel(const std::string& name, const TpuArch& arch);

/// Everything a TPU kernel run produced.
struct TpuKernelRun {
  std::map<std::string, NpyArray> outputs;
  Stats stats;
  double cycles = 0;
  std::vector<double> launchCycles; ///< every launch
  std::string statsJson;            ///< stats.json text of the last launch
  std::string traceJson;            ///< trace text of the last launch (when requested)
};

/// How to run a kernel.
struct TpuRunOptions {
  int chips = 1;
  bool timingOnly = false;
  bool trace = false;
  int launches = 1;
  std::map<std::string, int64_t> scalars;
};

/// Runs kernel `name` on a fresh device of architecture `arch`.
TpuKernelRun runTpuKernel(const std::string& name, const std::map<std::string, NpyArray>& inputs,
                          const TpuArch& arch, const TpuRunOptions& options = {});

/// Normally distributed f32 values times `scale`; the same seed gives the same array.
NpyArray randomF32Array(std::vector<int64_t> shape, uint64_t seed, float scale = 1.0f);

/// The values of an f32 array.
std::vector<float> f32Values(const NpyArray& a);

/// Row-major A [M, K] @ B [K, N] in fp64, with the inputs first rounded to bf16 (what the
/// MXU multiplies).
std::vector<double> bf16MatmulReference(const NpyArray& a, const NpyArray& b, int64_t m, int64_t k,
                                        int64_t n);

} // namespace chipless::test
