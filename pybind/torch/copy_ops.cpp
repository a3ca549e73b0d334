/// Copies between the host and the emulated devices (_copy_from): through the base tensor of
/// the device storage, each transfer with its modelled host-link time.
#include "pybind/torch/backend.h"

#include <ATen/ops/_local_scalar_dense.h>
#include <ATen/ops/as_strided.h>
#include <ATen/ops/empty.h>
#include <c10/util/Exception.h>
#include <torch/library.h>

namespace chipless::torchbackend {

at::Tensor readBase(const Allocation& a) {
  flushDeferred(a.index, a.address);
  TensorMemory& memory = memoryOf(a.index);
  const DeviceType type = deviceTypeOf(a.scalarType, memory.name());
  at::Tensor host = at::empty(a.base, at::TensorOptions().dtype(type.readHost));
  const double seconds = memory.read(a.address, a.deviceDtype, a.base, host.data_ptr());
  LinkTotals& link = linkTotals(a.index);
  link.seconds += seconds;
  link.bytesOut += a.bytes;
  ++link.copies;
  return a.scalarType == c10::ScalarType::Bool ? host.ne(0) : host.to(a.scalarType);
}

void writeBase(const Allocation& a, const at::Tensor& cpu) {
  flushDeferred(a.index, a.address);
  dropDerived(a);
  TensorMemory& memory = memoryOf(a.index);
  const DeviceType type = deviceTypeOf(a.scalarType, memory.name());
  at::Tensor host = cpu.to(type.writeHost).contiguous();
  const double seconds =
      memory.write(a.address, a.deviceDtype, a.base, host.data_ptr(), numpyName(type.writeHost));
  LinkTotals& link = linkTotals(a.index);
  link.seconds += seconds;
  link.bytesIn += a.bytes;
  ++link.copies;
}

namespace {

bool isDevice(const at::Tensor& t) {
  return t.device().type() == c10::DeviceType::PrivateUse1;
}

/// Whether `t` is its storage's whole base, as laid out (a write needs no read first).
bool isWholeBase(const at::Tensor& t, const Allocation& a) {
  return t.storage_offset() == 0 && t.is_contiguous() && t.sizes().vec() == a.base &&
         t.scalar_type() == a.scalarType;
}

/// A device tensor's values on the host (a CPU tensor of its sizes and dtype).
at::Tensor toHost(const at::Tensor& src) {
  const Allocation* a = allocationOf(src);
  if (!a) return at::empty(src.sizes(), src.options().device(c10::kCPU));
  return readBase(*a).as_strided(src.sizes(), src.strides(), src.storage_offset());
}

/// Writes host values `src` (broadcast to dst's sizes) into device tensor `dst`.
void fromHost(const at::Tensor& src, const at::Tensor& dst) {
  const Allocation* a = allocationOf(dst);
  if (!a) return;
  if (isWholeBase(dst, *a)) {
    writeBase(*a, src.to(dst.scalar_type()).expand(dst.sizes()));
    return;
  }
  at::Tensor base = readBase(*a);
  base.as_strided(dst.sizes(), dst.strides(), dst.storage_offset()).copy_(src);
  writeBase(*a, base);
}

at::Tensor copyFrom(const at::Tensor& self, const at::Tensor& dst, bool nonBlocking) {
  if (!isDevice(dst)) {
    dst.copy_(toHost(self));
  } else if (!isDevice(self)) {
    fromHost(self, dst);
  } else {
    fromHost(toHost(self), dst);
  }
  return dst;
}

/// The value of a one-element device tensor (`.item()`): read over the host link like any
/// copy to the host, so that it is not counted among the ops run on the CPU.
at::Scalar localScalarDense(const at::Tensor& self) {
  return at::_local_scalar_dense(toHost(self));
}

at::Tensor copyFromAndResize(const at::Tensor& self, const at::Tensor& dst) {
  if (dst.sizes() != self.sizes()) dst.resize_(self.sizes());
  return copyFrom(self, dst, false);
}

} // namespace

} // namespace chipless::torchbackend

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("_copy_from", TORCH_FN(chipless::torchbackend::copyFrom));
  m.impl("_copy_from_and_resize", TORCH_FN(chipless::torchbackend::copyFromAndResize));
  m.impl("_local_scalar_dense", TORCH_FN(chipless::torchbackend::localScalarDense));
}
