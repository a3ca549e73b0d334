/// chipless._native.compile: spyre-compile and tpu-compile as one function (the same
/// library, compiler/driver), with the diagnostics as the error message.
#include "driver/Compile.h"
#include "pybind/bindings.h"
#include "pybind/errors.h"
#include "support/arch_files.h"
#include "support/error.h"

#include <pybind11/stl.h>

namespace py = pybind11;

namespace chipless::python {

namespace {

/// Compiles for `chip` ("spyre" or "tpu") the file `path`, or `text` named `name` when text
/// is given; returns the warnings, raises ChiplessError with the errors.
std::string compileProgram(const std::string& chip, const std::string& path,
                           std::optional<std::string> text, const std::string& name,
                           const driver::CompileRequest& request) {
  const ChipKind kind = parseChipKind(chip, "chip");
  std::unique_ptr<llvm::MemoryBuffer> source;
  if (text) {
    source = llvm::MemoryBuffer::getMemBufferCopy(*text, name);
  } else {
    auto buffer = llvm::MemoryBuffer::getFile(path);
    if (!buffer) raise(path + ": cannot read: " + buffer.getError().message());
    source = std::move(*buffer);
  }
  std::string diagnostics;
  bool ok = false;
  {
    py::gil_scoped_release unlocked;
    const std::lock_guard<std::mutex> oneCompile(compileMutex());
    llvm::raw_string_ostream os(diagnostics);
    ok = kind == ChipKind::Spyre ? driver::compileSpyre(std::move(source), request, os)
                                 : driver::compileTpu(std::move(source), request, os);
  }
  while (!diagnostics.empty() && diagnostics.back() == '\n') diagnostics.pop_back();
  if (!ok) raise(diagnostics.empty() ? "the compile failed without a message" : diagnostics);
  return diagnostics;
}

} // namespace

void bindCompile(py::module_& m) {
  m.def(
      "compile",
      [](const std::string& chip, const std::string& path, std::optional<std::string> text,
         const std::string& name, const std::string& output, const std::string& arch,
         std::vector<std::string> sets, const std::string& dumpDir, const std::string& entry,
         std::vector<std::string> constants, std::vector<std::string> bounds,
         std::vector<int64_t> grid, std::vector<std::string> divisions, bool dumpCandidates,
         bool keepInScratchpad) {
        driver::CompileRequest request;
        request.outputDir = output;
        request.arch = arch;
        request.sets = std::move(sets);
        request.dumpDir = dumpDir;
        request.entry = entry;
        request.constants = std::move(constants);
        request.bounds = std::move(bounds);
        request.grid = std::move(grid);
        request.divisions = std::move(divisions);
        request.dumpCandidates = dumpCandidates;
        request.keepInScratchpad = keepInScratchpad;
        return compileProgram(chip, path, std::move(text), name, request);
      },
      py::arg("chip"), py::kw_only(), py::arg("path") = "", py::arg("text") = py::none(),
      py::arg("name") = "<string>", py::arg("output"), py::arg("arch") = "",
      py::arg("sets") = std::vector<std::string>{}, py::arg("dump_dir") = "", py::arg("entry") = "",
      py::arg("constants") = std::vector<std::string>{},
      py::arg("bounds") = std::vector<std::string>{}, py::arg("grid") = std::vector<int64_t>{},
      py::arg("divisions") = std::vector<std::string>{}, py::arg("dump_candidates") = false,
      py::arg("keep_in_scratchpad") = true,
      "Compiles a KTIR kernel or tensor graph (the file `path`, or `text` named `name`) for "
      "'spyre' or 'tpu' into the program directory `output`, as spyre-compile / tpu-compile "
      "do with the same options. Returns the warnings; raises ChiplessError with the errors.");
}

} // namespace chipless::python
