/// Views of device tensors are PyTorch's own metadata over the same storage (view,
/// _reshape_alias, as_strided, unfold take ATen's device-independent kernels); resize_ gives
/// a tensor a new allocation when it grows.
#include "pybind/torch/backend.h"

#include <ATen/ops/_reshape_alias_native.h>
#include <ATen/ops/as_strided_native.h>
#include <ATen/ops/unfold_native.h>
#include <ATen/ops/view_native.h>
#include <c10/core/TensorImpl.h>
#include <torch/library.h>

namespace chipless::torchbackend {

namespace {

const at::Tensor& resize(const at::Tensor& self, at::IntArrayRef size,
                         c10::optional<at::MemoryFormat> memoryFormat) {
  int64_t elements = 1;
  for (int64_t d : size) elements *= d;
  const size_t need = static_cast<size_t>(elements + self.storage_offset()) * self.itemsize();
  if (need <= self.storage().nbytes()) {
    self.unsafeGetTensorImpl()->set_sizes_contiguous(size);
    return self;
  }
  // A bigger storage: a new allocation for the new shape, the elements kept in order.
  at::Tensor fresh = newDeviceTensor(size, self.scalar_type(), self.device().index());
  if (self.numel() > 0) fresh.view({-1}).narrow(0, 0, self.numel()).copy_(self.reshape({-1}));
  self.unsafeGetTensorImpl()->set_storage_keep_dtype(fresh.storage());
  self.unsafeGetTensorImpl()->set_storage_offset(0);
  self.unsafeGetTensorImpl()->set_sizes_contiguous(size);
  return self;
}

} // namespace

} // namespace chipless::torchbackend

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("view", TORCH_FN(at::native::view));
  m.impl("_reshape_alias", TORCH_FN(at::native::_reshape_alias));
  m.impl("as_strided", TORCH_FN(at::native::as_strided_tensorimpl));
  m.impl("unfold", TORCH_FN(at::native::unfold));
  m.impl("resize_", TORCH_FN(chipless::torchbackend::resize));
}
