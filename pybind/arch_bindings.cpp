/// chipless._native.arch_json / chip_of_arch: architecture descriptions of either chip, as
/// `chipless-arch show --json` prints them.
#include "pybind/bindings.h"
#include "support/any_arch.h"
#include "support/arch_json.h"
#include "support/spyre_arch.h"
#include "support/tpu_arch.h"

#include <pybind11/stl.h>

namespace py = pybind11;

namespace chipless::python {

void bindArch(py::module_& m) {
  m.def(
      "arch_json",
      [](std::string nameOrFile, const std::vector<std::string>& sets, const std::string& chip) {
        // "" is the default description of `chip`, as a compiler without --arch uses it.
        if (nameOrFile.empty() && chip == "tpu") nameOrFile = TpuArch::defaultFile();
        if (nameOrFile.empty()) nameOrFile = SpyreArch::defaultFile();
        return archDescriptionJson(loadAnyArch(nameOrFile, sets), chipOfArch(nameOrFile)).dump();
      },
      py::arg("arch"), py::arg("sets") = std::vector<std::string>{}, py::arg("chip") = "spyre",
      "The resolved description `arch` (a bundled name or a file; \"\" for the default of "
      "`chip`) with `sets` applied, as the JSON text of `chipless-arch show --json`.");
  m.def(
      "chip_of_arch",
      [](const std::string& nameOrFile) {
        return std::string(chipKindName(chipOfArch(nameOrFile)));
      },
      py::arg("arch"), "'spyre' or 'tpu': the chip a description is for.");
}

} // namespace chipless::python
