#pragma once
/// Numbers of an engine's error message that may lie beyond 64 bits: an absurd count or
/// address from a program, added or multiplied in 128 bits so that the check cannot wrap.
#include <cstdint>
#include <string>

namespace chipless::sim {

/// `v` in decimal when it fits 64 bits, else "(beyond 64 bits)" with its sign.
inline std::string wideText(__int128 v) {
  if (v > INT64_MAX || v < INT64_MIN) return std::string(v < 0 ? "-" : "") + "(beyond 64 bits)";
  return std::to_string(static_cast<int64_t>(v));
}

} // namespace chipless::sim
