/// chipless._native.assemble / disassemble: spyre-as and tpu-as as functions (hand-written
/// SpyreCode or TPU assembly <-> program directories).
#include "pybind/bindings.h"
#include "support/atomic_file.h"
#include "support/progformat/plan_json.h"
#include "support/spyre_arch.h"
#include "support/spyrecode/assembler.h"
#include "support/spyrecode/directory.h"
#include "support/spyrecode/disassembler.h"
#include "support/tpu_arch.h"
#include "support/tpuprog/assembler.h"
#include "support/tpuprog/directory.h"
#include "support/tpuprog/disassembler.h"

#include <pybind11/stl.h>

namespace py = pybind11;

namespace chipless::python {

void bindAssembler(py::module_& m) {
  m.def(
      "assemble",
      [](const std::string& chip, const std::string& path, std::optional<std::string> text,
         const std::string& name, const std::string& output, const std::string& arch,
         const std::vector<std::string>& sets) {
        const std::string source = text ? *text : readFile(path);
        const std::string label = text ? name : path;
        if (parseChipKind(chip, "chip") == ChipKind::Spyre) {
          SpyreArch a = SpyreArch::load(SpyreArch::resolveFile(arch), sets);
          spyrecode::writeJob(
              output, spyrecode::assemble(source, label, spyrecode::AssembleOptions::forArch(a)));
        } else {
          TpuArch a = TpuArch::load(TpuArch::resolveFile(arch), sets);
          tpuprog::writeJob(output,
                            tpuprog::assemble(source, label, tpuprog::AssembleOptions::forArch(a)));
        }
      },
      py::arg("chip"), py::kw_only(), py::arg("path") = "", py::arg("text") = py::none(),
      py::arg("name") = "<string>", py::arg("output"), py::arg("arch") = "",
      py::arg("sets") = std::vector<std::string>{},
      "Assembles SpyreCode or TPU assembly (the file `path`, or `text` named `name`) into the "
      "program directory `output`, as spyre-as / tpu-as do.");
  m.def(
      "disassemble",
      [](const std::string& plan) {
        const auto root = nlohmann::json::parse(readFile(plan), nullptr, false);
        if (progformat::planChip(root, plan) == ChipKind::Tpu)
          return tpuprog::disassemble(tpuprog::readJob(plan));
        return spyrecode::disassemble(spyrecode::readJob(plan));
      },
      py::arg("plan"), "A program directory's job (DIR/job.plan) as assembly text.");
}

} // namespace chipless::python
