#pragma once
/// An open device as chipless._native holds it (pybind/device_bindings.cpp), shared with the
/// PyTorch backend's bridge (pybind/tensor_memory_bridge.cpp).
#include "pybind/errors.h"
#include "runtime/device.h"

#include <memory>
#include <pybind11/pybind11.h>
#include <string>
#include <vector>

namespace chipless::python {

struct ProgramHandle;
struct LaunchHandle;

/// An open device, or a closed one that remembers its name for the errors.
struct DeviceHandle {
  std::unique_ptr<runtime::Device> device;
  std::string name;
  std::vector<std::weak_ptr<ProgramHandle>> programs; ///< prepared here, given back at close
  uint64_t launches = 0;
  /// The latest launch: its statistics are still the device's own until the next launch or
  /// the close, which take them first when the Launch is still held (see LaunchHandle).
  std::weak_ptr<LaunchHandle> latest;

  /// Takes the latest launch's statistics if anyone still holds it (simulation lock held).
  void keepLatestStats();

  runtime::Device& get() {
    if (!device) raise(name + " is closed");
    return *device;
  }
  void close();
  ~DeviceHandle() { close(); }
};

/// The PyTorch backend's view of `device` (pybind/torch/tensor_memory.h) in a capsule that
/// keeps the device alive.
pybind11::capsule tensorMemoryCapsule(const std::shared_ptr<DeviceHandle>& device);

} // namespace chipless::python
