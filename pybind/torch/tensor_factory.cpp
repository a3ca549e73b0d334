/// Device tensors on PrivateUse1: empty and empty_strided make one allocation in the
/// device's canonical layout for the shape asked for; chipless::storage_info tells the
/// Python layer where a tensor's storage lies and what it holds.
#include "pybind/torch/backend.h"

#include <ATen/EmptyTensor.h>
#include <c10/core/TensorImpl.h>
#include <c10/util/Exception.h>
#include <torch/library.h>
#include <tuple>

namespace chipless::torchbackend {

namespace {

int64_t elementsOf(at::IntArrayRef sizes) {
  int64_t n = 1;
  for (int64_t d : sizes) n *= d;
  return n;
}

void freeAllocation(void* context) {
  auto* a = static_cast<Allocation*>(context);
  dropDerived(*a);
  try {
    memoryOf(a->index).release(a->address);
  } catch (...) {
    // the device is gone already, and its memory with it
  }
  delete a;
}

/// A storage of `elements` elements of `type` holding a device allocation for `base`.
c10::Storage deviceStorage(at::IntArrayRef base, c10::ScalarType type, int index) {
  const c10::Device device(c10::DeviceType::PrivateUse1, static_cast<c10::DeviceIndex>(index));
  const int64_t elements = elementsOf(base);
  const size_t logical = static_cast<size_t>(elements) * c10::elementSize(type);
  if (elements == 0)
    return c10::Storage(c10::Storage::use_byte_size_t(), 0,
                        c10::DataPtr(reinterpret_cast<void*>(kAddressBias), device), nullptr,
                        false);
  TensorMemory& memory = memoryOf(index);
  auto a = std::make_unique<Allocation>();
  a->index = index;
  a->deviceDtype = deviceTypeOf(type, memory.name()).device;
  a->base.assign(base.begin(), base.end());
  a->scalarType = type;
  a->bytes = memory.tensorBytes(a->deviceDtype, a->base);
  a->address = memory.allocate(a->bytes);
  void* data = reinterpret_cast<void*>(a->address + kAddressBias);
  return c10::Storage(c10::Storage::use_byte_size_t(), logical,
                      c10::DataPtr(data, a.release(), &freeAllocation, device), nullptr, false);
}

bool contiguous(at::IntArrayRef size, at::IntArrayRef stride) {
  int64_t expected = 1;
  for (size_t d = size.size(); d-- > 0;) {
    if (size[d] != 1 && stride[d] != expected) return false;
    expected *= size[d];
  }
  return true;
}

int indexOf(c10::optional<at::Device> device) {
  if (device && device->has_index()) return device->index();
  return 0;
}

at::Tensor empty(at::IntArrayRef size, c10::optional<at::ScalarType> dtype,
                 c10::optional<at::Layout> layout, c10::optional<at::Device> device,
                 c10::optional<bool> pinMemory, c10::optional<at::MemoryFormat> memoryFormat) {
  TORCH_CHECK(!layout || *layout == at::kStrided, "chipless: only strided tensors");
  return newDeviceTensor(size, dtype.value_or(at::ScalarType::Float), indexOf(device));
}

at::Tensor emptyStrided(at::IntArrayRef size, at::IntArrayRef stride,
                        c10::optional<at::ScalarType> dtype, c10::optional<at::Layout> layout,
                        c10::optional<at::Device> device, c10::optional<bool> pinMemory) {
  const c10::ScalarType type = dtype.value_or(at::ScalarType::Float);
  if (contiguous(size, stride)) return newDeviceTensor(size, type, indexOf(device));
  // Other strides (empty_like of a transposed tensor): a flat storage that holds them all.
  const int64_t elements =
      static_cast<int64_t>(at::detail::computeStorageNbytes(size, stride, c10::elementSize(type)) /
                           c10::elementSize(type));
  at::Tensor flat = newDeviceTensor({elements}, type, indexOf(device));
  flat.unsafeGetTensorImpl()->set_sizes_and_strides(size, stride);
  return flat;
}

std::tuple<int64_t, int64_t, std::string, std::vector<int64_t>> storageInfo(const at::Tensor& t) {
  TORCH_CHECK(t.device().type() == c10::DeviceType::PrivateUse1, "chipless.storage_info: a ",
              t.device().str(), " tensor is not on a chipless device");
  const Allocation* a = allocationOf(t);
  if (!a) return {-1, t.device().index(), "", {}};
  return {static_cast<int64_t>(a->address), a->index, a->deviceDtype, a->base};
}

/// How many tensors (and other holders) share `t`'s storage: the Python layer holds one alias
/// of each deferred result and writes only those someone else still holds.
int64_t storageUseCount(const at::Tensor& t) {
  return static_cast<int64_t>(t.unsafeGetTensorImpl()->storage().use_count());
}

} // namespace

at::Tensor newDeviceTensor(at::IntArrayRef sizes, c10::ScalarType type, int index) {
  c10::Storage storage = deviceStorage(sizes, type, index);
  auto t = at::detail::make_tensor<c10::TensorImpl>(
      std::move(storage),
      c10::DispatchKeySet{c10::DispatchKey::PrivateUse1, c10::DispatchKey::AutogradPrivateUse1},
      c10::scalarTypeToTypeMeta(type));
  t.unsafeGetTensorImpl()->set_sizes_contiguous(sizes);
  return t;
}

const Allocation* allocationOf(const at::Tensor& t) {
  const c10::DataPtr& ptr = t.storage().data_ptr();
  if (ptr.get_deleter() != &freeAllocation) return nullptr;
  return static_cast<const Allocation*>(ptr.get_context());
}

} // namespace chipless::torchbackend

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("empty.memory_format", TORCH_FN(chipless::torchbackend::empty));
  m.impl("empty_strided", TORCH_FN(chipless::torchbackend::emptyStrided));
}

TORCH_LIBRARY_FRAGMENT(chipless, m) {
  m.def("storage_info(Tensor t) -> (int, int, str, int[])",
        TORCH_FN(chipless::torchbackend::storageInfo));
  m.def("storage_use_count(Tensor t) -> int", TORCH_FN(chipless::torchbackend::storageUseCount));
}
