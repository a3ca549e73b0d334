/// chipless._native's side of the PyTorch backend's bridge (pybind/torch/tensor_memory.h):
/// Device._tensor_memory() hands the backend a capsule holding a TensorMemory over the
/// device, which keeps the device alive for as long as the capsule lives.
#include "pybind/bindings.h"
#include "pybind/device_handle.h"
#include "pybind/torch/tensor_memory.h"
#include "support/dtype.h"
#include "support/error.h"

#include <cstring>

namespace py = pybind11;

namespace chipless::python {

namespace {

DType deviceType(const std::string& name) {
  auto t = parseDType(name);
  if (!t) throw Error("unknown device dtype '" + name + "'");
  return *t;
}

/// The .npy element type of host data named by numpy ("float32", "int64", ...).
DType hostType(const std::string& name) {
  static const std::pair<const char*, DType> types[] = {{"float32", DType::F32},
                                                        {"float16", DType::F16},
                                                        {"int32", DType::I32},
                                                        {"int64", DType::I64},
                                                        {"int8", DType::I8}};
  for (const auto& [n, t] : types)
    if (name == n) return t;
  throw Error("host data of type " + name + " cannot be copied to a device");
}

int64_t elementsOf(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

class DeviceTensorMemory final : public TensorMemory {
public:
  explicit DeviceTensorMemory(std::shared_ptr<DeviceHandle> device) : device_(std::move(device)) {}

  std::string name() const override { return device_->name; }
  uint64_t tensorBytes(const std::string& dtype, const std::vector<int64_t>& shape) override {
    const std::lock_guard<std::mutex> simulation(simulationMutex());
    return device_->get().tensorBytes(deviceType(dtype), shape);
  }
  uint64_t allocate(uint64_t bytes) override {
    const std::lock_guard<std::mutex> simulation(simulationMutex());
    return device_->get().allocate(bytes, "torch tensor");
  }
  void release(uint64_t address) override {
    const std::lock_guard<std::mutex> simulation(simulationMutex());
    if (device_->device) device_->device->release(address); // closed: its memory is gone
  }
  double write(uint64_t address, const std::string& dtype, const std::vector<int64_t>& shape,
               const void* host, const std::string& hostTypeName) override {
    NpyArray array = makeNpy(hostType(hostTypeName), shape);
    std::memcpy(array.data.data(), host, array.data.size());
    const std::lock_guard<std::mutex> simulation(simulationMutex());
    return device_->get().writeTensor({address, deviceType(dtype), shape}, array,
                                      device_->name + " tensor");
  }
  double read(uint64_t address, const std::string& dtype, const std::vector<int64_t>& shape,
              void* host) override {
    double seconds = 0;
    NpyArray out;
    {
      const std::lock_guard<std::mutex> simulation(simulationMutex());
      out = device_->get().readTensor({address, deviceType(dtype), shape}, seconds);
    }
    const DType type = deviceType(dtype);
    const size_t bytes = static_cast<size_t>(elementsOf(shape)) * dtypeSize(hostTypeOf(type));
    if (out.data.size() != bytes) throw Error("read: the device returned a different size");
    std::memcpy(host, out.data.data(), bytes);
    return seconds;
  }

private:
  std::shared_ptr<DeviceHandle> device_;
};

} // namespace

py::capsule tensorMemoryCapsule(const std::shared_ptr<DeviceHandle>& device) {
  device->get(); // a closed device is refused here
  auto* memory = new DeviceTensorMemory(device);
  return py::capsule(static_cast<TensorMemory*>(memory), TensorMemory::kCapsuleName,
                     [](PyObject* capsule) {
                       delete static_cast<TensorMemory*>(
                           PyCapsule_GetPointer(capsule, TensorMemory::kCapsuleName));
                     });
}

} // namespace chipless::python
