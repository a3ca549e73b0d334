"""Lets PyTorch 1.13 code name the emulated devices as "spyre" and "tpu".

1.13 knows the backend only as "privateuseone" and has no rename hook, so the places where
users write a device are taught the two names: `torch.device("tpu:1")`, the `device=`
argument of the factory functions (`torch.randn(..., device="spyre")`), `tensor.to("tpu")`
and `tensor.new_*`, `module.to("spyre:0")`. Each returns or uses `privateuseone:N`, the slot
chipless.torch.devices gave that device. `tensor.is_spyre` and `tensor.is_tpu` say which
chip a tensor is on. A device without an index is index 0 (1.13 cannot take a device index
left out: that crashes in its copy code).

Only these entry points are wrapped (no TorchFunctionMode): every other op runs at
PyTorch's own speed.
"""
import functools
import re

import torch

from chipless.torch import devices

_NAME = re.compile(r"^(spyre|tpu)(?::(\d+))?$")
_RealDevice = torch.device

#: torch.* functions that take `device=`.
FACTORIES = (
    "tensor", "as_tensor", "zeros", "ones", "empty", "full", "rand", "randn", "randint",
    "arange", "range", "linspace", "logspace", "eye", "empty_strided", "randperm",
    "zeros_like", "ones_like", "empty_like", "full_like", "rand_like", "randn_like",
    "randint_like", "scalar_tensor", "tril_indices", "triu_indices", "normal", "bartlett_window",
    "hann_window", "hamming_window", "blackman_window", "kaiser_window", "sparse_coo_tensor")
#: torch.Tensor methods that take a device as an argument or `device=`.
TENSOR_METHODS = ("to", "new_empty", "new_zeros", "new_ones", "new_full", "new_tensor")


def translate(where):
    """`where` with "spyre[:N]" / "tpu[:N]" (a string or a torch.device made before the shim)
    replaced by the device's privateuseone torch.device; anything else unchanged."""
    if isinstance(where, str):
        m = _NAME.match(where.strip())
        if m:
            return devices.get(m.group(1), int(m.group(2) or 0)).torch_device
    return where


def _translate_call(args, kwargs):
    args = tuple(translate(a) if isinstance(a, str) else a for a in args)
    if "device" in kwargs:
        kwargs = dict(kwargs, device=translate(kwargs["device"]))
    return args, kwargs


def _wrap(function):
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        args, kwargs = _translate_call(args, kwargs)
        return function(*args, **kwargs)
    wrapper.__chipless_wrapped__ = function
    return wrapper


class _DeviceType(type):
    """torch.device as seen after the shim: calling it accepts "spyre"/"tpu" names; instance
    and subclass checks are those of the real torch.device."""

    def __call__(cls, *args, **kwargs):
        if len(args) == 2 and isinstance(args[0], str) and _NAME.match(args[0]):
            return translate(f"{args[0]}:{int(args[1])}")
        if len(args) == 1 and not kwargs:
            translated = translate(args[0])
            if isinstance(translated, _RealDevice):
                return translated
        return _RealDevice(*args, **kwargs)

    def __instancecheck__(cls, obj):
        return isinstance(obj, _RealDevice)

    def __subclasscheck__(cls, sub):
        return issubclass(sub, _RealDevice)


class device(metaclass=_DeviceType):  # noqa: N801 - stands in for torch.device
    __doc__ = _RealDevice.__doc__


def _kind_of(tensor):
    found = devices.of(tensor)
    return found.kind if found else None


def _printable(original):
    """torch._tensor_str._str for device tensors: the values printed from a host copy (1.13's
    formatter computes in float64, which the chips do not have), then the device by its
    chipless name and the autograd state of the tensor itself."""
    @functools.wraps(original)
    def _str(self, *, tensor_contents=None):
        found = devices.of(self) if self.device.type == "privateuseone" else None
        if found is None:
            return original(self, tensor_contents=tensor_contents)
        text = original(self.detach().cpu(), tensor_contents=tensor_contents)
        extra = f", device='{found.name}'"
        if self.grad_fn is not None:
            extra += f", grad_fn=<{type(self.grad_fn).__name__}>"
        elif self.requires_grad:
            extra += ", requires_grad=True"
        return text[:-1] + extra + ")"
    return _str


def install():
    """Installs the wrappers (once)."""
    if getattr(torch, "_chipless_shim", False):
        return
    torch._chipless_shim = True
    # Converting a module's parameters to the device must make new Parameters (1.13 crashes
    # swapping a CPU parameter's data for a device tensor otherwise).
    torch.__future__.set_overwrite_module_params_on_conversion(True)
    for name in FACTORIES:
        if hasattr(torch, name):
            setattr(torch, name, _wrap(getattr(torch, name)))
    for name in TENSOR_METHODS:
        setattr(torch.Tensor, name, _wrap(getattr(torch.Tensor, name)))
    torch.nn.Module.to = _wrap(torch.nn.Module.to)
    torch.device = device
    torch._tensor_str._str = _printable(torch._tensor_str._str)
    torch.Tensor.is_spyre = property(lambda t: _kind_of(t) == "spyre",
                                     doc="Whether the tensor is on an emulated Spyre card.")
    torch.Tensor.is_tpu = property(lambda t: _kind_of(t) == "tpu",
                                   doc="Whether the tensor is on an emulated TPU.")
