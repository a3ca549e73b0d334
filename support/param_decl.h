#pragma once
/// Shorthands for writing an architecture schema (support/spyre_arch.cpp, tpu_arch.cpp):
/// parameter declarations by type, byte units, and the power-of-two check many sizes need.
#include "support/arch_schema.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace chipless::archparams {

constexpr double kKiB = 1024.0;
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

/// An integer parameter in [min, max].
inline ParamDecl intParam(const char* path, double min, double max, const char* unit,
                          const char* description) {
  return {path, ParamType::Int, min, max, {}, unit, description};
}

/// A real parameter in [min, max].
inline ParamDecl floatParam(const char* path, double min, double max, const char* unit,
                            const char* description) {
  return {path, ParamType::Float, min, max, {}, unit, description};
}

/// A string parameter that must be one of `choices`.
inline ParamDecl choiceParam(const char* path, std::vector<std::string> choices,
                             const char* description) {
  return {path, ParamType::String, 0, 0, std::move(choices), "", description};
}

/// True for 1, 2, 4, 8, ...
inline bool isPowerOfTwo(int64_t x) {
  return x > 0 && (x & (x - 1)) == 0;
}

} // namespace chipless::archparams
