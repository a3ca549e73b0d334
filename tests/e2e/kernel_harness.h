#pragma once
/// Shared helpers of the end-to-end tests: assemble a bundled kernel, run it on a fresh
/// emulated device, make deterministic inputs and read results as floats.
#include "support/npy.h"
#include "support/spyre_arch.h"
#include "support/spyrecode/assembler.h"
#include "support/stats.h"

#include <map>
#include <string>
#include <vector>

namespace chipless::test {

/// models/hw/spyre.yaml with `overrides` applied.
SpyreArch archWith(const std::vector<std::string>& overrides = {});

/// models/kernels/<name>.s assembled for `arch`.
spyrecode::Job assembleKernel(const std::string& name, const SpyreArch& arch);

/// Normally distributed values (times `scale`) rounded to the array's type; the same
/// seed always gives the same array.
NpyArray randomArray(DType dtype, std::vector<int64_t> shape, uint64_t seed, float scale = 1.0f);

/// The elements of a float array (f16 or f32) as floats.
std::vector<float> floats(const NpyArray& a);

/// Everything a kernel run produced.
struct KernelRun {
  std::map<std::string, NpyArray> outputs;
  Stats stats;
  double cycles = 0;
  std::string statsJson; ///< stats.json text
  std::string traceJson; ///< trace text (when requested)
};

/// Runs kernel `name` on a fresh device of architecture `arch`.
KernelRun runKernel(const std::string& name, const std::map<std::string, NpyArray>& inputs,
                    const SpyreArch& arch, bool withTrace = false, bool timingOnly = false,
                    const std::map<std::string, int64_t>& scalars = {});

/// The hardware bounds no run may beat.
double dramBoundCycles(const KernelRun& run, const SpyreArch& arch);

} // namespace chipless::test
