/// Copies derived from a device storage's contents and kept with it while the contents stay
/// as they are: a linear layer's weight laid out transposed for a chip that pays for reading
/// it transposed (Spyre), made once and reused by every later call instead of re-laid out at
/// each. The Python layer asks for a copy (chipless::derived), makes it on the device when
/// there is none and keeps it (chipless::keep_derived); every write into the storage drops
/// its copies (a copy from the host, or an op issued to write it: chipless::mark_written),
/// and they go with the storage when it is freed.
#include "pybind/torch/backend.h"

#include <c10/util/Exception.h>
#include <map>
#include <mutex>
#include <string>
#include <torch/library.h>
#include <unordered_map>

namespace chipless::torchbackend {

namespace {

/// The derived copies of every storage that has some, by allocation and by how each was
/// derived ("transpose", ...). Guarded: an op's CPU fallback writes from a stream's thread.
struct DerivedCopies {
  std::mutex mutex;
  std::unordered_map<const Allocation*, std::map<std::string, at::Tensor>> copies;
};

DerivedCopies& derivedCopies() {
  static auto* d = new DerivedCopies(); // never destroyed: tensors may be freed at exit
  return *d;
}

const Allocation& allocationOfDevice(const at::Tensor& t, const char* op) {
  TORCH_CHECK(t.device().type() == c10::DeviceType::PrivateUse1, "chipless.", op, ": a ",
              t.device().str(), " tensor is not on a chipless device");
  const Allocation* a = allocationOf(t);
  TORCH_CHECK(a, "chipless.", op, ": the tensor has no device memory (no elements)");
  return *a;
}

/// The copy of `t`'s storage derived as `how`, or nothing (none kept, or written since).
c10::optional<at::Tensor> derived(const at::Tensor& t, c10::string_view how) {
  const Allocation& a = allocationOfDevice(t, "derived");
  DerivedCopies& d = derivedCopies();
  std::lock_guard<std::mutex> lock(d.mutex);
  auto found = d.copies.find(&a);
  if (found == d.copies.end()) return c10::nullopt;
  auto copy = found->second.find(std::string(how));
  if (copy == found->second.end()) return c10::nullopt;
  return copy->second;
}

/// Keeps `copy` as `t`'s storage derived as `how`, until the storage is written or freed.
void keepDerived(const at::Tensor& t, c10::string_view how, const at::Tensor& copy) {
  const Allocation& a = allocationOfDevice(t, "keep_derived");
  DerivedCopies& d = derivedCopies();
  at::Tensor replaced; // freed outside the lock: freeing a device tensor drops its own copies
  std::lock_guard<std::mutex> lock(d.mutex);
  at::Tensor& kept = d.copies[&a][std::string(how)];
  replaced = std::move(kept);
  kept = copy;
}

/// Drops the derived copies of every tensor in `written` (ops issued to write them).
void markWrittenTensors(at::TensorList written) {
  for (const at::Tensor& t : written)
    if (const Allocation* a = allocationOf(t)) dropDerived(*a);
}

} // namespace

void dropDerived(const Allocation& a) {
  DerivedCopies& d = derivedCopies();
  std::map<std::string, at::Tensor> dropped; // freed outside the lock
  {
    std::lock_guard<std::mutex> lock(d.mutex);
    auto found = d.copies.find(&a);
    if (found == d.copies.end()) return;
    dropped = std::move(found->second);
    d.copies.erase(found);
  }
}

} // namespace chipless::torchbackend

TORCH_LIBRARY_FRAGMENT(chipless, m) {
  m.def("derived(Tensor t, str how) -> Tensor?", TORCH_FN(chipless::torchbackend::derived));
  m.def("keep_derived(Tensor t, str how, Tensor copy) -> ()",
        TORCH_FN(chipless::torchbackend::keepDerived));
  m.def("mark_written(Tensor[] written) -> ()",
        TORCH_FN(chipless::torchbackend::markWrittenTensors));
}
