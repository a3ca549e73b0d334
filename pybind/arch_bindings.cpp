/// chipless._native.arch_json / chip_of_arch / chip_of_plan: architecture descriptions of
/// either chip, as `chipless-arch show --json` prints them, and the chip a program is for.
#include "pybind/bindings.h"
#include "support/any_arch.h"
#include "support/arch_json.h"
#include "support/atomic_file.h"
#include "support/progformat/plan_json.h"

#include <pybind11/stl.h>

namespace py = pybind11;

namespace chipless::python {

void bindArch(py::module_& m) {
  m.def(
      "arch_json",
      [](const std::string& nameOrFile, const std::vector<std::string>& sets,
         const std::string& chip) {
        // "" is the default description of `chip`, as a compiler without --arch uses it.
        const ChipKind kind =
            nameOrFile.empty() ? parseChipKind(chip, "chip") : chipOfArch(nameOrFile);
        return archDescriptionJson(loadArch(kind, nameOrFile, sets), kind).dump();
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
  m.def(
      "chip_of_plan",
      [](const std::string& plan) {
        const auto root = nlohmann::json::parse(readFile(plan), nullptr, false);
        return std::string(chipKindName(progformat::planChip(root, plan)));
      },
      py::arg("plan"), "'spyre' or 'tpu': the chip a job.plan was written for.");
}

} // namespace chipless::python
