"""Eager execution on the emulated devices: each ATen op with a lowering (chipless.torch.ops)
becomes a tensor graph (graph_text), compiled once per op, shapes, dtypes and device by the
chip's own compiler (tpu-compile, or the Spyre front end and KTIR compiler), prepared once on
the device and launched with the tensors bound where they lie (device tensors, docs/runtime.md).

A graph the compiler refuses (a shape or dtype it cannot take) is remembered with the
compiler's reason, and that op runs on the CPU instead, counted like ATen's own fallback;
strict mode makes it an error.
"""
import threading

import torch

import chipless
from chipless import native
from chipless.errors import ChiplessError
from chipless.torch import devices

#: PyTorch dtype -> device dtype (pybind/torch/dtypes.cpp keeps the same table).
DEVICE_DTYPE = {torch.float32: "f32", torch.bfloat16: "bf16", torch.float16: "f16",
                torch.int32: "i32", torch.int64: "i32", torch.int8: "i8", torch.bool: "i8"}
#: Element types each chip's graph compiler takes for arithmetic.
FLOAT_TYPES = {"tpu": ("f32", "bf16"), "spyre": ("f16", "bf16", "f32")}

_lock = threading.RLock()


class Stats:
    """What eager execution did on one device since the last reset."""

    def __init__(self):
        self.reset()

    def reset(self):
        self.launches = 0          # programs launched
        self.cycles = 0.0          # simulated cycles of those launches
        self.compiles = 0          # programs compiled (a new op signature)
        self.hits = 0              # launches of a program already prepared
        self.relayouts = 0         # views copied into a tensor of their own first
        self.refused = {}          # op signature -> the compiler's reason
        self.cpu = {}              # op -> runs on the CPU (refused or not lowerable)


_stats = {}        # slot -> Stats
_programs = {}     # (slot, key) -> chipless.Program or ChiplessError (refused)


def stats_of(dev):
    return _stats.setdefault(dev.slot, Stats())


def strict():
    return native.load("_torch").strict()


def bindable(t):
    """(address, device dtype, shape) when `t` can be bound to an argument of its shape in
    place: the start of its storage, contiguous, its bytes those of its own shape in the
    canonical layout (same elements and the same last dimension as the storage's base)."""
    address, _, dtype, base = torch.ops.chipless.storage_info(t)
    shape = list(t.shape) or [1]
    if address < 0 or t.storage_offset() != 0 or not t.is_contiguous():
        return None
    base = base or [1]
    numel = 1
    for d in base:
        numel *= d
    if numel != t.numel() or base[-1] != shape[-1]:
        return None
    return (address, dtype, shape)


def resident(t, dev):
    """`t` as a bindable tensor of `dev`: itself, or a copy of its elements into a tensor of
    its own (a view with an offset, other strides or another last dimension)."""
    if devices.of(t) is not dev:
        raise ChiplessError(f"a tensor on {t.device} meets one on {dev.name}: move it first")
    bound = bindable(t)
    if bound is not None:
        return t, bound
    stats_of(dev).relayouts += 1
    own = torch.empty(t.shape, dtype=t.dtype, device=t.device)
    own.copy_(t)
    return own, bindable(own)


def program(dev, key, build):
    """The program of op signature `key` on `dev`, compiled from build() (a graph_text
    Graph) and prepared the first time; raises ChiplessError when the compiler refuses."""
    with _lock:
        found = _programs.get((dev.slot, key))
        if found is None:
            graph = build()
            try:
                directory = chipless.compile(text=graph.text(), name=f"<{key[0]}>",
                                             chip=dev.kind, arch=dev.arch, sets=dev.sets)
                found = dev.device.prepare(directory)
                stats_of(dev).compiles += 1
            except ChiplessError as e:
                found = e
                stats_of(dev).refused[key] = str(e)
            _programs[(dev.slot, key)] = found
        else:
            stats_of(dev).hits += 1
        if isinstance(found, ChiplessError):
            raise found
        return found


def launch(dev, prepared, bound):
    """Launches `prepared` with {argument: (address, dtype, shape)}; its cycles counted."""
    launched = dev.device._handle.launch(prepared._handle, {}, {}, {}, None, bound)
    s = stats_of(dev)
    s.launches += 1
    s.cycles += launched.cycles
    return launched


def count_cpu(dev, op):
    s = stats_of(dev)
    s.cpu[op] = s.cpu.get(op, 0) + 1
