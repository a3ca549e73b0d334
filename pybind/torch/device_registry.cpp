/// Which emulated device stands behind each PrivateUse1 device index.
#include "pybind/torch/backend.h"

#include <c10/util/Exception.h>
#include <mutex>

namespace chipless::torchbackend {

namespace {

struct Attached {
  TensorMemory* memory = nullptr;
  std::shared_ptr<void> keepAlive;
  LinkTotals link;
};

std::mutex& registryMutex() {
  static std::mutex m;
  return m;
}

std::map<int, Attached>& registry() {
  static auto* r = new std::map<int, Attached>(); // outlives tensors freed at exit
  return *r;
}

} // namespace

void attach(int index, TensorMemory* memory, std::shared_ptr<void> keepAlive) {
  const std::lock_guard<std::mutex> lock(registryMutex());
  TORCH_CHECK(index >= 0 && index < kMaxDevices, "chipless: device index ", index, " is not in 0..",
              kMaxDevices - 1, " (at most ", kMaxDevices, " emulated devices per process)");
  TORCH_CHECK(!registry().count(index), "chipless: privateuseone:", index, " is already ",
              registry()[index].memory->name());
  registry()[index] = {memory, std::move(keepAlive), {}};
}

void detach(int index) {
  std::shared_ptr<void> keep; // released outside the lock
  {
    const std::lock_guard<std::mutex> lock(registryMutex());
    auto it = registry().find(index);
    if (it == registry().end()) return;
    keep = std::move(it->second.keepAlive);
    registry().erase(it);
  }
}

TensorMemory& memoryOf(int index) {
  const std::lock_guard<std::mutex> lock(registryMutex());
  auto it = registry().find(index);
  TORCH_CHECK(it != registry().end(), "chipless: privateuseone:", index,
              " is no emulated device (name devices as \"spyre:N\" or \"tpu:N\" after "
              "import chipless.torch)");
  return *it->second.memory;
}

LinkTotals& linkTotals(int index) {
  const std::lock_guard<std::mutex> lock(registryMutex());
  auto it = registry().find(index);
  TORCH_CHECK(it != registry().end(), "chipless: privateuseone:", index, " is not attached");
  return it->second.link;
}

} // namespace chipless::torchbackend
