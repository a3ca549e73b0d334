#pragma once
/// What the Spyre and TPU runtimes' launches share: how shapes read in their errors, and
/// the guard that gives a launch's tensor allocations back however the launch ends.
#include "support/dtype.h"
#include "support/error.h"

#include <climits>
#include <cstdint>
#include <cstring>
#include <string>
#include <variant>
#include <vector>

namespace chipless::runtime {

/// A host array's shape as NumPy prints it: "(4, 64)", "(7,)", "()".
inline std::string shapeText(const std::vector<int64_t>& s) {
  std::string t = "(";
  for (size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
  return t + (s.size() == 1 ? ",)" : ")");
}

/// The shape a host array binds with: a 0-d array counts as shape (1,). `Array` is NpyArray.
template <typename Array>
std::vector<int64_t> hostShapeOf(const Array& a) {
  return a.shape.empty() ? std::vector<int64_t>{1} : a.shape;
}

/// A plan argument's declared shape, scalar dimensions by name: "(4, N)". `Arg` is
/// spyrecode::TensorArg or tpuprog::TensorArg.
template <typename Arg>
std::string declaredShape(const Arg& a) {
  std::string t = "(";
  for (size_t i = 0; i < a.shape.size(); ++i) {
    t += i ? ", " : "";
    if (auto* v = std::get_if<int64_t>(&a.shape[i]))
      t += std::to_string(*v);
    else
      t += std::get<std::string>(a.shape[i]);
  }
  return t + ")";
}

/// Fails unless a host array of type `host` can feed a tensor argument of type `device`:
/// floats feed float tensors (converted); integers feed integer tensors at least as wide
/// or wider (narrowIntegers checks each value's range): i8, i32 or i64 an i8 tensor, i32 or
/// i64 an i32 tensor (so numpy's default int64 index arrays feed the device's i32 index
/// tensors). `what` names the argument ("input 'A'").
inline void checkHostFeeds(DType host, DType device, const std::string& what) {
  const bool integer = host == DType::I8 || host == DType::I32 || host == DType::I64;
  const bool ok = isFloatType(device)    ? isFloatType(host)
                  : device == DType::I8  ? integer
                  : device == DType::I32 ? (host == DType::I32 || host == DType::I64)
                                         : host == device;
  if (ok) return;
  throw Error(what + ": " + std::string(dtypeName(host)) + " data cannot feed a tensor of " +
              dtypeName(device) + " (give " +
              (isFloatType(device)    ? "f32 or f16"
               : device == DType::I8  ? "i8, i32 or i64"
               : device == DType::I32 ? "i32 or i64"
                                      : dtypeName(device)) +
              " data)");
}

/// Copies `n` integers of host type `host` (i8, i32 or i64) at `src` into the integer
/// tensor type `device` (i8 or i32) at `dst`. A value the device type cannot hold is an
/// error naming the argument (`what`), the value and its element index in the host array
/// (`first` + its position), and nothing is guessed.
inline void narrowIntegers(DType host, const uint8_t* src, DType device, uint8_t* dst, int64_t n,
                           int64_t first, const std::string& what) {
  const int64_t lo = device == DType::I8 ? -128 : INT32_MIN;
  const int64_t hi = device == DType::I8 ? 127 : INT32_MAX;
  const size_t hsize = dtypeSize(host), dsize = dtypeSize(device);
  for (int64_t k = 0; k < n; ++k) {
    int64_t v = 0;
    if (host == DType::I64) {
      std::memcpy(&v, src + k * 8, 8);
    } else if (host == DType::I32) {
      int32_t x;
      std::memcpy(&x, src + k * 4, 4);
      v = x;
    } else {
      v = static_cast<int8_t>(src[k * static_cast<int64_t>(hsize)]);
    }
    if (v < lo || v > hi)
      throw Error(what + ": value " + std::to_string(v) + " at element " +
                  std::to_string(first + k) + " does not fit the " + dtypeName(device) +
                  " tensor the device stores (" + std::to_string(lo) + " to " + std::to_string(hi) +
                  ")");
    if (device == DType::I8) {
      dst[k] = static_cast<uint8_t>(static_cast<int8_t>(v));
    } else {
      const int32_t x = static_cast<int32_t>(v);
      std::memcpy(dst + k * static_cast<int64_t>(dsize), &x, 4);
    }
  }
}

/// Releases the launch's tensor allocations on `device` however the launch ends.
template <typename Device>
struct LaunchAllocations {
  Device& device;
  std::vector<uint64_t> addresses;
  ~LaunchAllocations() {
    for (uint64_t a : addresses) device.release(a);
  }
};

} // namespace chipless::runtime
