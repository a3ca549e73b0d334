"""Emulated devices from Python: the runtime's Device interface (runtime/device.h) with
numpy arrays in and out.

A Device is opened by this process alone (a second open, here or in another process, fails
naming the owner) until close() or the end of a `with` block. Programs are prepared once
and launched many times; a Launch holds the outputs, the cycles and the device statistics
of that launch. Calls into the simulators release the GIL and run one at a time.
"""
import json
import os
import pathlib
from collections import namedtuple

import numpy as np

from chipless import native
from chipless.device_tensor import DeviceTensor, device_dtype_of
from chipless.errors import ChiplessError

#: The bound on simulated cycles the tools use by default: 100 s of device time at 1 GHz,
#: so a program that will not finish stops with an engine report.
DEFAULT_MAX_CYCLES = 1e11

#: A tensor argument of a prepared program: its role ("input", "output", "inout"), device
#: dtype ("f16", "bf16", ...), the numpy dtype of the arrays bound to it, and its shape as
#: declared ("(4, N)").
Argument = namedtuple("Argument", "name role dtype host_dtype shape")


def set_log_level(level):
    """The simulators' log level: trace, debug, info, warn (the default), error or off."""
    native.load().set_log_level(level)


def arch(name="spyre", sets=()):
    """The resolved architecture description `name` (spyre, v4, v5e, v5p, v6e or a file)
    with `sets` ("key.path=value") applied: {"chip", "file", "fingerprint", "params": {path:
    {"value", "type", "unit", "role", ...}}}, as `chipless-arch show --json` prints it."""
    return json.loads(native.load().arch_json(str(name), [str(s) for s in sets]))


def _plan_path(program):
    """DIR/job.plan for a program directory or its job.plan."""
    path = pathlib.Path(program)
    return path / "job.plan" if path.is_dir() else path


def _plan_chip(plan):
    """"spyre" or "tpu": the chip a job.plan was written for (its "format")."""
    return native.load().chip_of_plan(str(plan))


def Trace(max_events=2_000_000):
    """A timeline that launches add to (`device.launch(..., trace=t)`), one after another;
    `t.write(path)` writes it for https://ui.perfetto.dev. At most `max_events` are kept
    (`t.dropped` says how many were not)."""
    return native.load().Trace(max_events)


class Launch:
    """What one launch did: `outputs` (name -> numpy array), `cycles` (simulated),
    `issued` (instructions or bundles), `host_seconds`, `number` (the device's launch count),
    `shared_steps` (on a share: its device steps that ran together with other shares'
    launches) and the device statistics taken right after it."""

    def __init__(self, handle):
        self._handle = handle
        self.outputs = dict(handle.outputs)
        self.cycles = handle.cycles
        self.issued = handle.issued
        self.shared_steps = handle.shared_steps
        self.host_seconds = handle.host_seconds
        self.device = handle.device
        self.number = handle.number

    def __getitem__(self, name):
        return self.outputs[name]

    def stats(self, units=False):
        """The statistics as nested dicts (what stats.json holds): each statistic a number,
        or with `units=True` {"value", "unit", "description"} as in stats.json."""
        tree = json.loads(self._handle.stats_json())
        return tree if units else _values(tree)

    def stats_flat(self):
        """Every statistic by its path: {"chip.core[3].load0.bytes": 4096.0, ...}."""
        return dict(self._handle.stats_flat())

    def write_stats(self, path):
        """Writes stats.json as spyre-sim --stats does (whole or not at all)."""
        _write_atomically(path, self._handle.stats_json())

    def __repr__(self):
        return (f"<chipless.Launch #{self.number} on {self.device}: {self.cycles:.0f} cycles, "
                f"outputs {sorted(self.outputs)}>")


def _values(tree):
    """stats.json's tree with each {"value": v, "unit": ...} leaf replaced by v."""
    if isinstance(tree, dict):
        if "value" in tree and "unit" in tree:
            return tree["value"]
        return {k: _values(v) for k, v in tree.items()}
    if isinstance(tree, list):
        return [_values(v) for v in tree]
    return tree


def _write_atomically(path, text):
    path = pathlib.Path(path)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except OSError as e:
        tmp.unlink(missing_ok=True)
        raise ChiplessError(f"{path}: cannot write: {e.strerror}") from None


class Program:
    """A program prepared on a device: `kernel`, `arguments` (Argument tuples, in launch
    order), `scalars` (names). Calling it launches it: `program(a=x, b=y)` is
    `device.launch(program, {"a": x, "b": y})`."""

    def __init__(self, device, handle, path):
        self.device = device
        self._handle = handle
        self.path = path
        self.kernel = handle.kernel
        self.arguments = [Argument(a["name"], a["role"], a["dtype"], a["host_dtype"], a["shape"])
                          for a in handle.arguments]
        self.scalars = list(handle.scalars)

    def argument(self, name):
        """The Argument called `name`, or None."""
        return next((a for a in self.arguments if a.name == name), None)

    def __call__(self, inputs=None, *, scalars=None, trace=None, **named_inputs):
        return self.device.launch(self, inputs, scalars=scalars, trace=trace, **named_inputs)

    def __repr__(self):
        args = ", ".join(f"{a.role} {a.name}: {a.dtype}{a.shape}" for a in self.arguments)
        return f"<chipless.Program {self.kernel}({args}) on {self.device.name}>"


def _share_text(share):
    """A share as the text the runtime parses: "cores=1,memory=8G" (or a dict of those keys,
    window_ms for window-ms); "" for none."""
    if not share:
        return ""
    if isinstance(share, dict):
        return ",".join(f"{str(k).replace('_', '-')}={v}" for k, v in share.items())
    return str(share)


class Device:
    """An emulated Spyre card (`kind="spyre"`) or TPU system (`kind="tpu"`; `chips` chips
    joined by ICI) on the architecture `arch` (a bundled name: spyre, v4, v5e, v5p, v6e; or
    a description file) with `sets` ("key.path=value") applied. `index` picks the device
    number (-1: the first free one); `timing_only` skips the arithmetic; `max_cycles` and
    `timeout` (seconds) bound every launch, which then stops with an engine report. `share`
    ("cores=1,memory=8G", or a dict of those keys) opens a share of the device instead of the
    whole of it (docs/device-server.md); $CHIPLESS_DEVICE_SHARE does when `share` is not
    given."""

    def __init__(self, kind="spyre", *, arch=None, sets=(), index=-1, timing_only=False,
                 chips=1, max_cycles=DEFAULT_MAX_CYCLES, timeout=0.0, share=None, _handle=None):
        self._handle = _handle or native.load().Device(
            str(kind), arch=str(arch or ""), sets=[str(s) for s in sets], index=index,
            timing_only=timing_only, chips=chips, max_cycles=float(max_cycles),
            timeout=float(timeout), share=_share_text(share))
        #: Modelled seconds of every tensor transfer over the host link so far.
        self.link_seconds = 0.0

    @classmethod
    def for_program(cls, program, *, arch=None, sets=(), index=-1, timing_only=False, chips=1,
                    max_cycles=DEFAULT_MAX_CYCLES, timeout=0.0, share=None):
        """A device to run `program` (a program directory or its job.plan) on: the chip and
        architecture it was compiled for, with `arch` and `sets` applied as spyre-sim run
        and tpu-sim run apply them (refused, naming each parameter, when one the compiler
        planned with would change)."""
        plan = _plan_path(program)
        handle = native.load().Device.open_for(
            _plan_chip(plan), str(plan), arch=str(arch or ""), sets=[str(s) for s in sets],
            index=index, timing_only=timing_only, chips=chips, max_cycles=float(max_cycles),
            timeout=float(timeout), share=_share_text(share))
        return cls(_handle=handle)

    name = property(lambda self: self._handle.name, doc='"spyre:0", "tpu:1"')
    kind = property(lambda self: self._handle.kind, doc='"spyre" or "tpu"')
    index = property(lambda self: self._handle.index)
    chips = property(lambda self: self._handle.chips)
    timing_only = property(lambda self: self._handle.timing_only)
    closed = property(lambda self: self._handle.closed)
    arch_yaml = property(lambda self: self._handle.arch_yaml,
                         doc="the resolved description the device models (arch.resolved.yaml)")
    arch_fingerprint = property(lambda self: self._handle.arch_fingerprint)
    share = property(lambda self: self._handle.share,
                     doc="a share's first_core, cores, memory_base, memory_bytes and the "
                         "architecture overrides its programs are compiled with; None when "
                         "the device is whole")

    def prepare(self, program):
        """Prepares `program` (a program directory, its job.plan, or what chipless.compile
        returned) on this device: loads it and allocates its buffers, once."""
        plan = _plan_path(program)
        return Program(self, self._handle.prepare(str(plan)), plan)

    def launch(self, program, inputs=None, *, scalars=None, trace=None, statistics=True,
               **named_inputs):
        """Runs the prepared `program` once with `inputs` (name -> array or DeviceTensor;
        also as keyword arguments; a DeviceTensor is read or written in place) and `scalars`
        (name -> int, or float for a kernel's real scalars).
        Arrays are converted to the argument's host dtype when numpy can do that without
        changing their kind (float64 -> float32, not float -> int). `trace` is a Trace to
        add the launch's timeline to, or a path to write it to. `statistics=False` keeps no
        device statistics (the Launch's stats() is then an error): a program of several
        kernels gathers them after each, which can cost more than simulating small ones.
        Returns a Launch."""
        if not isinstance(program, Program):
            raise ChiplessError(f"launch: expected a Program from Device.prepare, got "
                                f"{type(program).__name__}")
        bound = dict(inputs or {}, **named_inputs)
        resident = {name: value._tuple() for name, value in bound.items()
                    if isinstance(value, DeviceTensor)}
        for name, value in bound.items():
            if isinstance(value, DeviceTensor) and value.device is not self:
                raise ChiplessError(f"device tensor '{name}' is on {value.device.name}, "
                                    f"not {self.name}")
        arrays = {name: _host_array(program, name, value) for name, value in bound.items()
                  if name not in resident}
        ints, reals = {}, {}
        for name, value in (scalars or {}).items():
            if isinstance(value, (bool, np.bool_)):
                raise ChiplessError(f"scalar '{name}': expected a number, got a bool")
            if isinstance(value, (int, np.integer)):
                ints[name] = int(value)
            elif isinstance(value, (float, np.floating)):
                reals[name] = float(value)
            else:
                raise ChiplessError(f"scalar '{name}': expected a number, got "
                                    f"{type(value).__name__}")
        trace_path = None
        if trace is not None and not hasattr(trace, "write"):
            trace_path, trace = trace, Trace()
        result = Launch(self._handle.launch(program._handle, arrays, ints, reals, trace,
                                            resident, bool(statistics)))
        if trace_path is not None:
            trace.write(str(trace_path))
        return result

    def empty(self, shape, dtype="f32"):
        """A DeviceTensor of `shape` and `dtype` ("f32", "bf16", "f16", "i32", "i8"),
        uninitialised."""
        return DeviceTensor(self, shape, dtype)

    def tensor(self, array, dtype=None):
        """A DeviceTensor holding `array`, stored as `dtype` (by default the array's own:
        float32 -> f32, float16 -> f16, int32 -> i32, int8 -> i8)."""
        array = np.asarray(array)
        t = DeviceTensor(self, array.shape, dtype or device_dtype_of(array))
        try:
            t.write(array)
        except BaseException:
            t.free()
            raise
        return t

    def tensor_bytes(self, shape, dtype="f32"):
        """Bytes of a tensor of `shape` and `dtype` in the device's canonical layout."""
        return self._handle.tensor_bytes(str(dtype), [int(d) for d in shape])

    def allocate(self, nbytes, name="python"):
        """Allocates `nbytes` of device memory; its address."""
        return self._handle.allocate(int(nbytes), name)

    def release(self, address):
        """Frees an allocation."""
        self._handle.release(int(address))

    def copy_in(self, address, data, chip=-1):
        """Copies the bytes of `data` (an array or any buffer) to device memory at `address`
        (on a TPU system to chip `chip`, or to every chip when -1)."""
        self._handle.copy_in(int(address), data, chip)

    def copy_out(self, address, nbytes, chip=0):
        """`nbytes` bytes of device memory at `address` (of chip `chip`), as a uint8 array."""
        return self._handle.copy_out(int(address), int(nbytes), chip)

    def close(self):
        """Gives the device back, with the memory of every program prepared on it."""
        self._handle.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        state = "closed" if self.closed else f"{self.kind}, {self.arch_fingerprint}"
        return f"<chipless.Device {self.name} ({state})>"


def _host_array(program, name, value):
    """`value` as the numpy array argument `name` of `program` takes."""
    array = np.asarray(value)
    arg = program.argument(name)
    if arg is None or array.dtype == arg.host_dtype:
        return array  # an unknown name is the runtime's error to give
    if np.can_cast(array.dtype, arg.host_dtype, "same_kind"):
        return array.astype(arg.host_dtype)
    raise ChiplessError(f"input '{name}': a {array.dtype} array cannot become {arg.host_dtype} "
                        f"without changing its kind ({program.kernel} takes {arg.dtype} "
                        f"{arg.shape})")


def run(program, inputs=None, *, scalars=None, arch=None, sets=(), timing_only=False,
        trace=None, max_cycles=DEFAULT_MAX_CYCLES, timeout=0.0, **named_inputs):
    """One launch of `program` (a program directory or job.plan) on a device opened for it,
    as `spyre-sim run` / `tpu-sim run` do; the device is closed again. Returns the Launch."""
    with Device.for_program(program, arch=arch, sets=sets, timing_only=timing_only,
                            max_cycles=max_cycles, timeout=timeout) as device:
        return device.launch(device.prepare(program), inputs, scalars=scalars, trace=trace,
                             **named_inputs)
