#pragma once
/// Functions a plan can run on the host between device steps (ComputeOnHost): the
/// operations a backend leaves to the CPU. Each reads and writes host arrays.
#include "support/npy.h"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace chipless::runtime {

/// Runs host function `name` on `inputs`, producing one array per entry of
/// `outputShapes`. Known functions: "copy" (out = in), "add" (out = a + b),
/// "scale" (out = alpha * in, metadata {"alpha": number}), "sum_rows" (out[j] = sum over
/// rows of in[i, j]). Arithmetic is fp32. Throws chipless::Error naming the function.
std::vector<NpyArray> runHostFunction(const std::string& name, const std::vector<NpyArray>& inputs,
                                      const std::vector<std::vector<int64_t>>& outputShapes,
                                      const nlohmann::json& metadata);

} // namespace chipless::runtime
