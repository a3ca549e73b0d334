"""chipless: emulated IBM Spyre and Google TPU for PyTorch-stack development.

    import chipless
    program = chipless.compile("models/kernels/matmul.mlir")     # a program directory
    with chipless.Device("spyre") as device:
        prepared = device.prepare(program)                       # once
        launch = device.launch(prepared, {"a": a, "b": b})       # many times
        launch.outputs["c"], launch.cycles, launch.stats()

`chipless.compile` (compiling.py) runs spyre-compile / tpu-compile in this process, with a
cache; `chipless.Device`, `Program`, `Launch` and `Trace` (device.py) are the runtime's
device interface; `chipless.run` is one launch on a fresh device; `chipless.arch` reads an
architecture description. They load the native module (pybind/) on first use, so the pure-
Python parts (`chipless.study`, `chipless.conformance`, the `chipless` command) work without
it. Every error is a `chipless.ChiplessError` with the message the C++ tools print.
"""
import importlib

from chipless.errors import ChiplessError

__version__ = "0.1.0"

#: The public names that live in submodules, imported on first use.
_LAZY = {
    "compile": "chipless.compiling",
    "compile_cache_info": "chipless.compiling",
    "assemble": "chipless.compiling",
    "disassemble": "chipless.compiling",
    "Device": "chipless.device",
    "Program": "chipless.device",
    "Launch": "chipless.device",
    "Trace": "chipless.device",
    "run": "chipless.device",
    "DeviceTensor": "chipless.device_tensor",
    "arch": "chipless.device",
    "set_log_level": "chipless.device",
}

__all__ = ["ChiplessError", *_LAZY]


def __getattr__(name):
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'chipless' has no attribute '{name}'")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
