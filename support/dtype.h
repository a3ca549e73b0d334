#pragma once
/// Element types shared by the .npy reader, the SpyreCode metadata and the simulator.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace chipless {

/// Tensor element types the platform moves and computes on. F16 is the device's 16-bit
/// float: IEEE binary16 on the host, IEEE or DLFloat16 on the device (see numerics.h).
/// I8 is the TPU's 8-bit integer (MXU inputs with int32 accumulation). I64 is a host type
/// only (numpy's default integer, as index tensors come): no device format stores it, and
/// the runtimes narrow it into i32 (or i8) tensors with a range check.
enum class DType : uint8_t { F16 = 0, BF16 = 1, F32 = 2, I32 = 3, I8 = 4, I64 = 5 };

/// Bytes per element.
inline size_t dtypeSize(DType t) {
  return t == DType::I64 ? 8 : (t == DType::F32 || t == DType::I32) ? 4 : t == DType::I8 ? 1 : 2;
}

/// True for the floating-point types (f16, bf16, f32).
inline bool isFloatType(DType t) {
  return t == DType::F16 || t == DType::BF16 || t == DType::F32;
}

/// Canonical short name: "f16", "bf16", "f32", "i32", "i8", "i64".
inline const char* dtypeName(DType t) {
  switch (t) {
  case DType::F16:
    return "f16";
  case DType::BF16:
    return "bf16";
  case DType::F32:
    return "f32";
  case DType::I32:
    return "i32";
  case DType::I8:
    return "i8";
  case DType::I64:
    return "i64";
  }
  return "?";
}

/// The type of the host array a device tensor of type `t` is read from and written to:
/// numpy has no bfloat16, so bf16 tensors are f32 on the host (rounded on the way in).
inline DType hostTypeOf(DType t) {
  return t == DType::BF16 ? DType::F32 : t;
}

/// Parses the canonical short name of a device type (not "i64", which only the host
/// has); nullopt for anything else.
inline std::optional<DType> parseDType(const std::string& s) {
  if (s == "f16") return DType::F16;
  if (s == "bf16") return DType::BF16;
  if (s == "f32") return DType::F32;
  if (s == "i32") return DType::I32;
  if (s == "i8") return DType::I8;
  return std::nullopt;
}

} // namespace chipless
