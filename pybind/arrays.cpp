#include "pybind/arrays.h"

#include "pybind/errors.h"

#include <cstring>
#include <memory>

namespace py = pybind11;

namespace chipless::python {

DType dtypeOfNumpy(const py::dtype& dtype, const std::string& what) {
  const char kind = dtype.kind();
  const auto size = dtype.itemsize();
  if (kind == 'f' && size == 2) return DType::F16;
  if (kind == 'f' && size == 4) return DType::F32;
  if (kind == 'i' && size == 4) return DType::I32;
  if (kind == 'i' && size == 1) return DType::I8;
  if (kind == 'i' && size == 8) return DType::I64;
  raise(what + ": numpy dtype " + dtype.attr("name").cast<std::string>() +
        " is not one the device holds (float16, float32, int32, int8, int64)");
}

py::dtype numpyDtypeOf(DType t) {
  switch (t) {
  case DType::F16:
    return py::dtype("float16");
  case DType::BF16:
  case DType::F32:
    return py::dtype("float32");
  case DType::I32:
    return py::dtype("int32");
  case DType::I8:
    return py::dtype("int8");
  case DType::I64:
    return py::dtype("int64");
  }
  raise("unknown element type");
}

NpyArray npyFromNumpy(const py::array& array, const std::string& what) {
  NpyArray out;
  out.dtype = dtypeOfNumpy(array.dtype(), what);
  if (array.dtype().byteorder() == '>')
    raise(what + ": big-endian arrays are not supported (use .astype('<" +
          std::string(1, array.dtype().kind()) + std::to_string(array.itemsize()) + "'))");
  out.shape.assign(array.shape(), array.shape() + array.ndim());
  // A C-contiguous array is copied in one go; any other is made contiguous by numpy first.
  py::array dense = py::array::ensure(array, py::array::c_style);
  if (!dense) throw py::error_already_set();
  out.data.resize(static_cast<size_t>(dense.nbytes()));
  if (!out.data.empty()) std::memcpy(out.data.data(), dense.data(), out.data.size());
  return out;
}

py::array numpyFromNpy(NpyArray&& array) {
  auto* owned = new std::vector<uint8_t>(std::move(array.data));
  py::capsule free(owned, [](void* p) { delete static_cast<std::vector<uint8_t>*>(p); });
  const py::dtype dtype = numpyDtypeOf(array.dtype);
  std::vector<py::ssize_t> shape(array.shape.begin(), array.shape.end());
  std::vector<py::ssize_t> strides(shape.size());
  py::ssize_t stride = dtype.itemsize();
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = stride;
    stride *= shape[i];
  }
  return py::array(dtype, shape, strides, owned->data(), free);
}

} // namespace chipless::python
