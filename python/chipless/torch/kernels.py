"""User kernels: a KTIR kernel or tensor graph of your own, compiled for an emulated device
and called on its tensors like a PyTorch function — the way TorchTPU users bring Pallas
kernels. Arguments bind by position or name; outputs come back as new device tensors (shapes
from the program's declared shapes, symbolic dimensions read off the inputs).

    softmax = chipless.torch.kernel("models/graphs/softmax.mlir", device="tpu")
    y = softmax(x)                       # x: a [100, 300] float32 tensor on tpu:0
    vadd = chipless.torch.kernel("models/kernels/vadd_dynamic.mlir", device="spyre")
    c = vadd(a, b)                       # n = a.shape[0], any multiple of 4096

Kernels have no backward (use them under torch.no_grad(), or wrap them in an
autograd.Function); a kernel's launch runs what DeferAndFuse has recorded first.
"""
import re

import torch

import chipless
from chipless.errors import ChiplessError
from chipless.torch import devices, eager, execution

_TORCH_DTYPE = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16,
                "i32": torch.int32, "i8": torch.int8}


class Kernel:
    """A program compiled and prepared for one device, called on its tensors."""

    def __init__(self, source=None, *, text=None, device="tpu", name="<kernel>", **options):
        from chipless.torch import shim
        self.dev = devices.of(shim.translate(device) if isinstance(device, str) else device)
        directory = chipless.compile(source, text=text, name=name, chip=self.dev.kind,
                                     arch=self.dev.arch, sets=self.dev.sets, **options)
        self.program = self.dev.device.prepare(directory)
        self.inputs = [a for a in self.program.arguments if a.role != "output"]
        self.outputs = [a for a in self.program.arguments if a.role != "input"]
        #: A kernel laying an argument out otherwise than device tensors lie (a KTIR kernel
        #: reading row-major memory) takes and gives its tensors through the host.
        self.through_host = False

    def _launch_through_host(self, bound, outputs):
        arrays = {name: _host_array(t) for name, t in bound.items()}
        launched = eager.launch(self.dev, self.program, {}, arrays)
        for a in self.outputs:
            target = outputs[a.name] if a.role == "output" else bound[a.name]
            target.copy_(torch.from_numpy(launched.outputs[a.name]).reshape(target.shape))

    def __call__(self, *args, **kwargs):
        bound = dict(zip((a.name for a in self.inputs), args), **kwargs)
        missing = [a.name for a in self.inputs if a.name not in bound]
        if len(args) > len(self.inputs) or missing:
            raise ChiplessError(f"{self.program.kernel} takes {len(self.inputs)} tensors "
                                f"({', '.join(a.name for a in self.inputs)})"
                                + (f"; missing {', '.join(missing)}" if missing else ""))
        dims = {}
        for a in self.inputs:
            t = bound[a.name]
            if not isinstance(t, torch.Tensor) or devices.of(t) is not self.dev:
                raise ChiplessError(f"{self.program.kernel}: '{a.name}' must be a tensor on "
                                    f"{self.dev.name}")
            if t.dtype != _TORCH_DTYPE[a.dtype]:
                raise ChiplessError(f"{self.program.kernel}: '{a.name}' is {t.dtype}, the "
                                    f"kernel takes {_TORCH_DTYPE[a.dtype]}")
            for declared, actual in zip(_dims(a.shape), t.shape):
                if not declared.isdigit():
                    dims.setdefault(declared, actual)
        execution.flush_all()
        torch.ops.chipless.mark_written([bound[a.name] for a in self.outputs
                                         if a.role == "inout"])
        outputs, resident, keep = {}, {}, []
        for a in self.outputs:
            if a.role == "inout":
                continue
            shape = [int(d) if d.isdigit() else dims[d] for d in _dims(a.shape)]
            outputs[a.name] = torch.empty(shape, dtype=_TORCH_DTYPE[a.dtype],
                                          device=self.dev.torch_device)
        if not self.through_host:
            for name, t in {**bound, **outputs}.items():
                own, resident[name] = eager.resident(t, self.dev)
                keep.append(own)
            try:
                eager.launch(self.dev, self.program, resident)
            except ChiplessError as e:
                if "canonical layout" not in str(e):
                    raise
                self.through_host = True
        if self.through_host:
            self._launch_through_host(bound, outputs)
        results = [outputs[a.name] if a.role == "output" else bound[a.name]
                   for a in self.outputs]
        return results[0] if len(results) == 1 else tuple(results)


def _host_array(t):
    """A device tensor's values as the numpy array a launch takes (bfloat16 as float32)."""
    host = t.cpu()
    return (host.float() if host.dtype == torch.bfloat16 else host).numpy()


def _dims(shape):
    """The dimensions of a declared shape "(4, N)": ["4", "N"]."""
    return [d for d in re.split(r"[(),\s]+", shape) if d]
