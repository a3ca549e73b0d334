/// chipless._native: the C++ side of `import chipless` (python/chipless wraps it): compile
/// for either chip, open emulated devices through the runtime's Device interface, prepare
/// once and launch many times with numpy arrays, statistics and timelines.
#include "pybind/bindings.h"
#include "pybind/errors.h"

#include <cstdlib>
#include <spdlog/spdlog.h>

namespace chipless::python {

std::mutex& simulationMutex() {
  static std::mutex m;
  return m;
}

std::mutex& compileMutex() {
  static std::mutex m;
  return m;
}

} // namespace chipless::python

PYBIND11_MODULE(_native, m) {
  using namespace chipless::python;
  // As the simulator tools: no SystemC banner, and only warnings and errors in the log.
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  spdlog::set_level(spdlog::level::warn);
  m.doc() = "chipless's native module; use it through `import chipless`";
  registerErrors(m);
  bindCompile(m);
  bindAssembler(m);
  bindDevice(m);
  bindCollectives(m);
  bindArch(m);
  m.def(
      "set_log_level",
      [](const std::string& level) {
        auto l = spdlog::level::from_str(level);
        if (l == spdlog::level::off && level != "off")
          raise("log level '" + level + "': expected trace, debug, info, warn, error or off");
        spdlog::set_level(l);
      },
      pybind11::arg("level"), "The simulators' log level (warn by default).");
}
