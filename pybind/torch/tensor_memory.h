#pragma once
/// What the PyTorch backend (chipless._torch) needs of an emulated device: memory for
/// tensors in the device's canonical layout and copies to and from the host with their
/// modelled link time. chipless._native implements it over runtime::Device and hands it
/// over as a PyCapsule; it names no chipless type, so the backend, which links libtorch and
/// not the chipless libraries, can call it. Errors are thrown as std::runtime_error with the
/// runtime's message.
#include <cstdint>
#include <string>
#include <vector>

namespace chipless::python {

class TensorMemory {
public:
  /// The capsule name under which chipless._native hands a TensorMemory over.
  static constexpr const char* kCapsuleName = "chipless.TensorMemory.v1";

  virtual ~TensorMemory() = default;
  /// "spyre:0", "tpu:1".
  virtual std::string name() const = 0;
  /// Bytes of a tensor of device dtype `dtype` ("f32", "bf16", "f16", "i32", "i8") and
  /// `shape` in the canonical layout.
  virtual uint64_t tensorBytes(const std::string& dtype, const std::vector<int64_t>& shape) = 0;
  virtual uint64_t allocate(uint64_t bytes) = 0;
  virtual void release(uint64_t address) = 0;
  /// Writes `host` (dense, C order; numpy type code `hostType`: "float32", "float16",
  /// "int32", "int64", "int8") into the tensor (address, dtype, shape). The modelled
  /// seconds of the transfer.
  virtual double write(uint64_t address, const std::string& dtype,
                       const std::vector<int64_t>& shape, const void* host,
                       const std::string& hostType) = 0;
  /// Reads the tensor into `host` (dense, C order, of the device dtype's host type: float32
  /// for f32 and bf16, float16 for f16, int32, int8). The modelled seconds of the transfer.
  virtual double read(uint64_t address, const std::string& dtype, const std::vector<int64_t>& shape,
                      void* host) = 0;
};

} // namespace chipless::python
