#pragma once
/// What the Spyre and TPU runtimes' launches share: how shapes read in their errors, and
/// the guard that gives a launch's tensor allocations back however the launch ends.
#include "support/dtype.h"
#include "support/error.h"

#include <cstdint>
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
/// floats feed float tensors (converted), i32 feeds i32 and i8 tensors (the caller checks
/// each value's range), i8 feeds i8. `what` names the argument ("input 'A'").
inline void checkHostFeeds(DType host, DType device, const std::string& what) {
  const bool ok = isFloatType(device)   ? isFloatType(host)
                  : device == DType::I8 ? (host == DType::I8 || host == DType::I32)
                                        : host == device;
  if (ok) return;
  throw Error(what + ": " + std::string(dtypeName(host)) + " data cannot feed a tensor of " +
              dtypeName(device) + " (give " +
              (isFloatType(device)   ? "f32 or f16"
               : device == DType::I8 ? "i8 or i32"
                                     : dtypeName(device)) +
              " data)");
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
