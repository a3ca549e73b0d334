"""Tensors that stay in an emulated device's memory between launches.

A DeviceTensor is an allocation of its device holding one tensor in the device's canonical
layout (Spyre: sticks; TPU: row-major, the last dimension padded to the vector lanes), the
layout every program compiled from a tensor graph takes its arguments in. Bound to a
program's argument (`program(x=t)`), it is read or written where it lies, with no copy
through the host; writing and reading it from the host cost the modelled host-link time.
"""
import numpy as np

from chipless.errors import ChiplessError

#: The device dtype a numpy array becomes by default.
_DEVICE_DTYPE = {np.dtype("float32"): "f32", np.dtype("float16"): "f16",
                 np.dtype("int32"): "i32", np.dtype("int8"): "i8"}


def device_dtype_of(array):
    """The device dtype ("f32", "f16", "i32", "i8") a numpy array is stored as by default."""
    dtype = np.asarray(array).dtype
    if dtype not in _DEVICE_DTYPE:
        raise ChiplessError(f"a {dtype} array has no device dtype of its own: give dtype= "
                            f"(f32, bf16, f16, i32 or i8)")
    return _DEVICE_DTYPE[dtype]


class DeviceTensor:
    """A tensor of `dtype` ("f32", "bf16", "f16", "i32", "i8") and `shape` in `device`'s
    memory (Device.empty, Device.tensor). Freed by free(), or with its device."""

    def __init__(self, device, shape, dtype):
        self.device = device
        self.shape = tuple(int(d) for d in shape)
        self.dtype = str(dtype)
        self.nbytes = device._handle.tensor_bytes(self.dtype, list(self.shape))
        self.address = device.allocate(self.nbytes, "tensor")
        self.freed = False

    def _tuple(self):
        if self.freed:
            raise ChiplessError(f"a freed device tensor ({self.dtype} {self.shape}) was used")
        return (self.address, self.dtype, list(self.shape))

    def write(self, array):
        """Copies `array` (of this shape; float data for a float tensor, integers for an
        integer one) into the tensor; the modelled seconds of the transfer."""
        seconds = self.device._handle.write_tensor(self._tuple(), np.ascontiguousarray(array))
        self.device.link_seconds += seconds
        return seconds

    def read(self):
        """The tensor as a numpy array (bf16 comes back as float32)."""
        array, seconds = self.device._handle.read_tensor(self._tuple())
        self.device.link_seconds += seconds
        return array

    def free(self):
        """Gives the tensor's memory back."""
        if not self.freed and not self.device.closed:
            self.device.release(self.address)
        self.freed = True

    def __repr__(self):
        state = "freed" if self.freed else f"at {self.address:#x}"
        return f"<chipless.DeviceTensor {self.dtype}{list(self.shape)} on {self.device.name} " \
               f"{state}>"
