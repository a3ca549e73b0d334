#pragma once
/// NumPy arrays in and out of the runtime's NpyArray (dense, C order, little-endian).
#include "support/npy.h"

#include <pybind11/numpy.h>
#include <string>

namespace chipless::python {

/// The element type of a numpy dtype the device can hold (float16, float32, int32, int8,
/// int64); chipless.ChiplessError naming `what` and the dtype otherwise.
DType dtypeOfNumpy(const pybind11::dtype& dtype, const std::string& what);

/// The numpy dtype of `t` (bf16 has none: float32 is its host type).
pybind11::dtype numpyDtypeOf(DType t);

/// A copy of `array` (any strides; read in C order) as an NpyArray.
NpyArray npyFromNumpy(const pybind11::array& array, const std::string& what);

/// `array` as a numpy array without copying its bytes: the array takes them over.
pybind11::array numpyFromNpy(NpyArray&& array);

} // namespace chipless::python
