#pragma once
/// The PyTorch PrivateUse1 backend of chipless (chipless._torch): tensors whose storage is
/// memory of an emulated device. Each PrivateUse1 device index is attached to one emulated
/// device (a TensorMemory from chipless._native); a storage is one device allocation holding
/// the tensor it was made for (its "base": dtype and shape) in the device's canonical
/// layout. Views of it (sizes, strides, offset in elements of the base) are PyTorch's own;
/// copies to and from the host go through the base.
#include "pybind/torch/tensor_memory.h"

#include <ATen/core/Tensor.h>
#include <c10/core/Storage.h>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace chipless::torchbackend {

using python::TensorMemory;

/// Device addresses are handed to PyTorch as data pointers plus this bias, so that address 0
/// (valid on a TPU) is not a null pointer. Never dereferenced.
constexpr uint64_t kAddressBias = uint64_t{1} << 48;

/// One storage's device allocation: where, on which device, and the tensor it holds. The
/// context of the storage's DataPtr, whose deleter gives the memory back.
struct Allocation {
  int index = 0;                                       ///< PrivateUse1 device index
  uint64_t address = 0;                                ///< device address
  uint64_t bytes = 0;                                  ///< of the canonical layout
  std::string deviceDtype;                             ///< "f32", "bf16", ...
  std::vector<int64_t> base;                           ///< the shape the storage was made for
  c10::ScalarType scalarType = c10::ScalarType::Float; ///< PyTorch's dtype of the base
};

// ---- copies derived from a storage (derived_copies.cpp) -----------------------------------

/// Drops the copies derived from the storage of `a`: its contents change (at every write into
/// it, by a copy from the host or when an op that writes it is issued) or it is freed.
void dropDerived(const Allocation& a);

// ---- devices (device_registry.cpp) -------------------------------------------------------

/// Makes PrivateUse1 index `index` the emulated device behind `memory` (owned by `keepAlive`,
/// the capsule, released with the attachment).
void attach(int index, TensorMemory* memory, std::shared_ptr<void> keepAlive);
/// Forgets index `index` (its tensors must be gone).
void detach(int index);
/// The device behind `index`; an error naming the index when none is attached.
TensorMemory& memoryOf(int index);
/// The device indices PyTorch may see: fixed, because its autograd engine makes one queue
/// per index at the first backward and never grows them (a device opened later must fit).
constexpr int kMaxDevices = 16;
/// The modelled seconds of host-link transfers of device `index` so far, and their bytes.
struct LinkTotals {
  double seconds = 0;
  uint64_t bytesIn = 0, bytesOut = 0;
  uint64_t copies = 0;
};
LinkTotals& linkTotals(int index);

// ---- dtypes (dtypes.cpp) -----------------------------------------------------------------

/// How a PyTorch dtype lives on the device: the device dtype, the host dtype written from and
/// read back into. Refused, naming dtype and device, when the chip has no such type.
struct DeviceType {
  std::string device;        ///< "f32", "bf16", "f16", "i32", "i8"
  c10::ScalarType writeHost; ///< host data handed to TensorMemory::write
  c10::ScalarType readHost;  ///< what TensorMemory::read returns
};
DeviceType deviceTypeOf(c10::ScalarType type, const std::string& device);
/// numpy's name of a host type ("float32", "int64", ...).
const char* numpyName(c10::ScalarType type);

// ---- tensors (tensor_factory.cpp) --------------------------------------------------------

/// A new contiguous device tensor of `sizes` and `type` on PrivateUse1 index `index`.
at::Tensor newDeviceTensor(at::IntArrayRef sizes, c10::ScalarType type, int index);
/// The allocation behind a device tensor's storage (nullptr for an empty storage).
const Allocation* allocationOf(const at::Tensor& t);

// ---- deferred work (module.cpp) ------------------------------------------------------------

/// Runs what the Python layer has recorded but not launched yet (DeferAndFuse) and that
/// touches the storage at `address` of device `index` (everything when `index` is -1), before
/// that memory is read or written from outside a program: a copy, the CPU fallback.
void flushDeferred(int index = -1, uint64_t address = 0);

// ---- host copies (copy_ops.cpp) ----------------------------------------------------------

/// The whole base of `storage`'s allocation as a CPU tensor of the base's dtype.
at::Tensor readBase(const Allocation& a);
/// Writes a CPU tensor of the base's shape into the allocation.
void writeBase(const Allocation& a, const at::Tensor& cpu);

} // namespace chipless::torchbackend
