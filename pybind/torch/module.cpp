/// chipless._torch: the PyTorch PrivateUse1 backend (its ATen kernels register themselves
/// when the library loads) and the few calls the Python layer (python/chipless/torch/)
/// makes into it: attach an emulated device to a device index, read the host-link totals and
/// the CPU fallback's counts, set strict mode.
#include "pybind/torch/backend.h"
#include "pybind/torch/fallback_counts.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;

namespace chipless::torchbackend {

namespace {

/// The Python layer's flush (chipless.torch.eager.flush_all), or None.
py::object& flushHook() {
  static auto* hook = new py::object(); // never destroyed: called until the process ends
  return *hook;
}

void attachCapsule(int index, const py::capsule& capsule) {
  auto* memory =
      static_cast<TensorMemory*>(PyCapsule_GetPointer(capsule.ptr(), TensorMemory::kCapsuleName));
  if (!memory) throw py::error_already_set();
  PyObject* owner = capsule.ptr();
  Py_INCREF(owner);
  std::shared_ptr<void> keepAlive(owner, [](void* o) {
    py::gil_scoped_acquire gil;
    Py_DECREF(static_cast<PyObject*>(o));
  });
  attach(index, memory, std::move(keepAlive));
}

py::dict linkTotalsDict(int index) {
  const LinkTotals& t = linkTotals(index);
  py::dict d;
  d["seconds"] = t.seconds;
  d["bytes_in"] = t.bytesIn;
  d["bytes_out"] = t.bytesOut;
  d["copies"] = t.copies;
  return d;
}

} // namespace

void flushDeferred(int index, uint64_t address) {
  py::gil_scoped_acquire gil;
  if (flushHook() && !flushHook().is_none()) flushHook()(index, address);
}

} // namespace chipless::torchbackend

PYBIND11_MODULE(_torch, m) {
  using namespace chipless::torchbackend;
  m.doc() = "chipless's PyTorch PrivateUse1 backend (use chipless.torch)";
  m.def("attach", &attachCapsule, py::arg("index"), py::arg("memory"),
        "Makes privateuseone:INDEX the emulated device of a Device._tensor_memory() capsule.");
  m.def("detach", &detach, py::arg("index"));
  m.def("link", &linkTotalsDict, py::arg("index"),
        "Host-link totals of a device: modelled seconds, bytes in and out, copies.");
  m.def(
      "reset_link", [](int index) { linkTotals(index) = {}; }, py::arg("index"));
  m.def(
      "set_flush_hook", [](py::object hook) { flushHook() = std::move(hook); }, py::arg("hook"),
      "A function called before device memory is read or written outside a program.");
  m.def("set_strict", &setStrict, py::arg("strict"));
  m.def("strict", &strict);
  m.def("fallback_counts", &fallbackCounts);
  m.def("reset_fallback_counts", &resetFallbackCounts);
}
