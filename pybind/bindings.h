#pragma once
/// The parts of chipless._native (pybind/module.cpp puts them together).
#include <mutex>
#include <pybind11/pybind11.h>

namespace chipless::python {

/// chipless._native.compile.
void bindCompile(pybind11::module_& m);
/// Device, Program, Launch and Trace.
void bindDevice(pybind11::module_& m);
/// assemble and disassemble.
void bindAssembler(pybind11::module_& m);
/// CollectiveGroup (tpu_dist's transport to a device server).
void bindCollectives(pybind11::module_& m);
/// arch_json, chip_of_arch and chip_of_plan.
void bindArch(pybind11::module_& m);

/// Held by every call into a simulator (open, prepare, launch, close): SystemC keeps one
/// current kernel context per process, so two models never run at once, whichever Python
/// threads call them. The GIL is released while it is held.
std::mutex& simulationMutex();
/// Held by every compile: compiles run one at a time, but alongside a simulation.
std::mutex& compileMutex();

} // namespace chipless::python
