#include "pybind/errors.h"

#include "support/error.h"

namespace py = pybind11;

namespace chipless::python {

namespace {

/// chipless.errors.ChiplessError, looked up once (the module keeps a reference).
PyObject* errorClass() {
  static PyObject* cls = [] {
    py::object c = py::module_::import("chipless.errors").attr("ChiplessError");
    return c.release().ptr();
  }();
  return cls;
}

} // namespace

void raise(const std::string& message) {
  throw Error(message);
}

void registerErrors(py::module_& m) {
  m.attr("ChiplessError") = py::handle(errorClass());
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const Error& e) {
      PyErr_SetString(errorClass(), e.what());
    }
  });
}

} // namespace chipless::python
