#pragma once
/// How C++ errors reach Python: chipless::Error becomes chipless.ChiplessError (the class of
/// python/chipless/errors.py, so pure-Python and native errors are caught alike) with the
/// same message the command-line tools print after "error: ".
#include <pybind11/pybind11.h>

namespace chipless::python {

/// Registers the translation; called once when the module is imported.
void registerErrors(pybind11::module_& m);

/// Raises chipless.ChiplessError with `message` (for checks made in the binding itself).
[[noreturn]] void raise(const std::string& message);

} // namespace chipless::python
