/// PyTorch dtypes on the emulated devices.
#include "pybind/torch/backend.h"

#include <c10/util/Exception.h>

namespace chipless::torchbackend {

DeviceType deviceTypeOf(c10::ScalarType type, const std::string& device) {
  using c10::ScalarType;
  switch (type) {
  case ScalarType::Float:
    return {"f32", ScalarType::Float, ScalarType::Float};
  case ScalarType::BFloat16:
    return {"bf16", ScalarType::Float, ScalarType::Float};
  case ScalarType::Half:
    return {"f16", ScalarType::Half, ScalarType::Half};
  case ScalarType::Int:
    return {"i32", ScalarType::Int, ScalarType::Int};
  // int64 (PyTorch's index type) is kept in 32 bits: a value that does not fit is an error
  // at the copy that brings it in, naming it, never a silent wrap.
  case ScalarType::Long:
    return {"i32", ScalarType::Long, ScalarType::Int};
  case ScalarType::Char:
    return {"i8", ScalarType::Char, ScalarType::Char};
  // Spyre's front end and KTIR compiler keep f16, bf16, f32 and i32 tensors: a boolean is
  // 0 or 1 in f16 there, which its SFU compares and selects with.
  case ScalarType::Bool:
    if (device.rfind("spyre", 0) == 0) return {"f16", ScalarType::Half, ScalarType::Half};
    return {"i8", ScalarType::Char, ScalarType::Char};
  case ScalarType::Byte:
    return {"i32", ScalarType::Int, ScalarType::Int};
  case ScalarType::Short:
    return {"i32", ScalarType::Int, ScalarType::Int};
  default:
    TORCH_CHECK(false, "chipless: ", device, " has no ", c10::toString(type),
                " tensors (float32, bfloat16, float16, int64, int32, int16, int8, uint8 and "
                "bool are supported)");
  }
}

const char* numpyName(c10::ScalarType type) {
  using c10::ScalarType;
  switch (type) {
  case ScalarType::Float:
    return "float32";
  case ScalarType::Half:
    return "float16";
  case ScalarType::Int:
    return "int32";
  case ScalarType::Long:
    return "int64";
  case ScalarType::Char:
    return "int8";
  default:
    TORCH_CHECK(false, "chipless: no host type for ", c10::toString(type));
  }
}

} // namespace chipless::torchbackend
