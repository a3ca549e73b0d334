#pragma once
/// The CPU fallback's record (pybind/torch/cpu_fallback.cpp): which ATen ops ran on the CPU
/// instead of a device, and whether that is allowed.
#include <cstdint>
#include <map>
#include <string>

namespace chipless::torchbackend {

/// Strict: an op with no device kernel is an error instead of running on the CPU.
void setStrict(bool strict);
bool strict();
/// How often each op ("add.Tensor") fell back to the CPU since the last reset.
std::map<std::string, int64_t> fallbackCounts();
void resetFallbackCounts();

} // namespace chipless::torchbackend
