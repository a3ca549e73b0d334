#pragma once
/// The bit pattern of a float and back, without undefined behaviour: for the numeric
/// converters, and for tests that compare results bit for bit (NaN payloads, signed zeros)
/// rather than by value.
#include <cstdint>
#include <cstring>

namespace chipless {

/// The 32 bits of `value`.
inline uint32_t bitsOf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

/// The float whose bits are `bits`.
inline float floatOf(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

} // namespace chipless
