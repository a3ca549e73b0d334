"""Running lowered ops on the emulated devices, one at a time (eager, the default) or
recorded and fused (DeferAndFuse).

Eager: each op (an Op from chipless.torch.ops) becomes a tensor graph of its own
(graph_text), compiled once per op, shapes, dtypes and device by the chip's own compiler
(tpu-compile, or the Spyre front end and KTIR compiler), prepared once on the device and
launched with its tensors bound where they lie (device tensors, docs/runtime.md).

DeferAndFuse: ops are recorded into one graph per device until something needs the data —
a copy to or from the host (`.cpu()`, `.item()`, printing, a branch on a value), an op that
runs on the CPU, a view that must be copied, the end of a `defer_and_fuse()` block or
`synchronize()` — then the graph is compiled as one program (cached by its text: the same
training step is the same program) and launched once. Results nobody holds any more are not
written back. A graph the compiler refuses is run op by op instead.

A graph the compiler refuses is remembered with its reason; its op then runs on the CPU,
counted like ATen's own fallback, or is an error in strict mode.
"""
import hashlib
import os
import threading

import torch

import chipless
from chipless import native
from chipless.errors import ChiplessError
from chipless.torch import devices, stream
from chipless.torch.graph_text import Graph

#: PyTorch dtype -> device dtype (pybind/torch/dtypes.cpp keeps the same table).
DEVICE_DTYPE = {torch.float32: "f32", torch.bfloat16: "bf16", torch.float16: "f16",
                torch.int32: "i32", torch.int64: "i32", torch.int8: "i8", torch.bool: "i8"}
#: Element types each chip's graph compiler takes for arithmetic.
FLOAT_TYPES = {"tpu": ("f32", "bf16"), "spyre": ("f16", "bf16", "f32")}
#: Ops a deferred graph holds at most before it is run (a Python loop that never syncs
#: must not grow one graph for ever).
MAX_DEFERRED_OPS = 4000

_lock = threading.RLock()
_mode = {"defer": any(os.environ.get(v) == "1" for v in
                      ("TORCH_TPU_DEFER_AND_FUSE", "TPU_DEFER_AND_FUSE",
                       "CHIPLESS_DEFER_AND_FUSE")),
         "flushing": False,
         "trace": None,   # a chipless Trace every launch adds its timeline to, or None
         "blocking": False}  # eager ops run in the caller's thread (set_blocking)


class Stats:
    """What execution did on one device since the last reset."""

    def __init__(self):
        self.reset()

    def reset(self):
        self.launches = 0          # programs launched
        self.cycles = 0.0          # simulated cycles of those launches
        self.sim_seconds = 0.0     # host time the simulator took for them
        self.compiles = 0          # programs compiled (a new op or graph signature)
        self.hits = 0              # launches of a program already prepared
        self.relayouts = 0         # views copied into a tensor of their own first
        self.deferred_ops = 0      # ops recorded in DeferAndFuse mode
        self.fused_launches = 0    # deferred graphs launched as one program
        self.written_back = 0      # results of deferred graphs written to device memory
        self.kept_inside = 0       # results nobody held: left inside the program
        self.refused = {}          # op signature -> the compiler's reason
        self.cpu = {}              # op -> runs on the CPU (refused or not lowerable)


class Op:
    """One lowered ATen op: `key` (its signature: name, shapes, dtypes, parameters),
    the device tensors it reads (`operands`) and writes (`outputs`, allocated, whole),
    `emit(g, [(value, shape)...]) -> [value...]` writing it into a graph, and the ATen op
    with its arguments, which on_cpu() runs on the CPU when no program can."""

    def __init__(self, key, operands, outputs, emit, aten, args, kwargs):
        self.key, self.operands, self.outputs, self.emit = key, operands, outputs, emit
        self.aten, self.args, self.kwargs = aten, args, kwargs

    def on_cpu(self):
        """The op computed on the host from the device operands' values, its results copied
        into the outputs."""
        half = has_half(self.args)
        result = self.aten(*to_host(self.args, half),
                           **{k: to_host(v, half) for k, v in self.kwargs.items()})
        for out, r in zip(self.outputs, result if isinstance(result, tuple) else (result,)):
            out.copy_(r.reshape(out.shape))


def to_host(v, upcast=False):
    """`v` with its device tensors (also inside lists and tuples) copied to the host; with
    `upcast`, float16 ones as float32 (PyTorch 1.13's CPU lacks most float16 kernels)."""
    if isinstance(v, torch.Tensor) and v.device.type == "privateuseone":
        host = v.cpu()
        return host.float() if upcast and host.dtype == torch.float16 else host
    if isinstance(v, (list, tuple)):
        return type(v)(to_host(x, upcast) for x in v)
    return v


def has_half(v):
    """Whether `v` (or a list or tuple in it) holds a float16 tensor."""
    if isinstance(v, torch.Tensor):
        return v.dtype == torch.float16
    if isinstance(v, (list, tuple)):
        return any(has_half(x) for x in v)
    return False


def _map_tensors(v, f):
    if isinstance(v, torch.Tensor) and v.device.type == "privateuseone":
        return f(v)
    if isinstance(v, (list, tuple)):
        return type(v)(_map_tensors(x, f) for x in v)
    return v


_stats = {}        # slot -> Stats
_programs = {}     # (slot, key) -> chipless.Program or ChiplessError (refused)
_recorders = {}    # slot -> Recorder
_plans = {}        # (slot, graph key) -> the (start, end) parts a refused graph ran as


def stats_of(dev):
    return _stats.setdefault(dev.slot, Stats())


def strict():
    return native.load("_torch").strict()


def element_of(t):
    return DEVICE_DTYPE[t.dtype]


def shape_of(t):
    return list(t.shape) or [1]


def bindable(t):
    """(address, device dtype, shape) when `t` can be bound to an argument of its shape in
    place: the start of its storage, contiguous, its bytes those of its own shape in the
    canonical layout (same elements and the same last dimension as the storage's base)."""
    address, _, dtype, base = torch.ops.chipless.storage_info(t)
    shape = shape_of(t)
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
    if t.device.type != "privateuseone" or devices.of(t) is not dev:
        where = devices.of(t).name if t.device.type == "privateuseone" else str(t.device)
        raise RuntimeError(f"Expected all tensors to be on the same device, but found at least "
                           f"two devices, {dev.name} and {where}!")
    bound = bindable(t)
    if bound is not None:
        return t, bound
    stats_of(dev).relayouts += 1
    own = torch.empty(t.shape, dtype=t.dtype, device=t.device)
    own.copy_(t)
    return own, bindable(own)


def program(dev, key, build):
    """The program of signature `key` on `dev`, compiled from build() (a Graph) and
    prepared the first time; raises ChiplessError when the compiler refuses it."""
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
    launched = dev.device._handle.launch(prepared._handle, {}, {}, {}, _mode["trace"], bound)
    s = stats_of(dev)
    s.launches += 1
    s.cycles += launched.cycles
    s.sim_seconds += launched.host_seconds
    return launched


class StrictModeError(ChiplessError, RuntimeError):
    """An op that would run on the CPU in strict mode (a RuntimeError, as the backend's own
    fallback raises it)."""


def check_not_strict(op, dev, reason):
    """Raises StrictModeError in strict mode: `op` would run on the CPU."""
    if strict():
        raise StrictModeError(f"chipless: {op} does not run on {dev.name} ({reason}), and "
                              f"strict mode does not let it run on the CPU "
                              f"(chipless.torch.set_strict(False) allows the fallback)")


def launch_host(dev, prepared, arrays):
    """Launches `prepared` with host arrays {argument: numpy array}; its cycles counted."""
    launched = dev.device._handle.launch(prepared._handle, arrays, {}, {}, _mode["trace"], {})
    s = stats_of(dev)
    s.launches += 1
    s.cycles += launched.cycles
    s.sim_seconds += launched.host_seconds
    return launched


def count_cpu(dev, op):
    s = stats_of(dev)
    s.cpu[op] = s.cpu.get(op, 0) + 1


# ---- eager ------------------------------------------------------------------------------

def _single_graph(op):
    g = Graph(op.key[0].replace(".", "_"))
    values = [(g.argument(f"x{i}", shape_of(t), element_of(t)), shape_of(t))
              for i, t in enumerate(op.operands)]
    for j, (v, out) in enumerate(zip(op.emit(g, values), op.outputs)):
        g.result(f"out{j}", v, shape_of(out), element_of(out))
    return g


def run_now(dev, op, prepared):
    """Runs `op` as the program `prepared` (its own, from program())."""
    bound, keep = {}, []  # keep: copies made for binding live until the launch is done
    for i, t in enumerate(op.operands):
        own, bound[f"x{i}"] = resident(t, dev)
        keep.append(own)
    for j, out in enumerate(op.outputs):
        bound[f"out{j}"] = bindable(out)
    launch(dev, prepared, bound)


def compiles(dev, op):
    """Whether `op` compiles as a program of its own on `dev` (compiled and kept if so)."""
    found = _programs.get((dev.slot, op.key))
    if found is None:
        try:
            program(dev, op.key, lambda: _single_graph(op))
            return True
        except ChiplessError:
            return False
    return not isinstance(found, ChiplessError)


def run_or_cpu(dev, op):
    """Runs `op` on the device, or on the CPU when the compiler refuses its program (counted;
    an error in strict mode). Errors of the run itself are raised."""
    try:
        prepared = program(dev, op.key, lambda: _single_graph(op))
    except ChiplessError as e:
        check_not_strict(op.key[0], dev, str(e).splitlines()[0])
        count_cpu(dev, op.key[0])
        op.on_cpu()
        return
    run_now(dev, op, prepared)


def execute(dev, op):
    """Queues `op` on the device's stream (eager), runs it now (blocking eager, or while a
    deferred graph runs) or records it (DeferAndFuse)."""
    if _mode["defer"] and not _mode["flushing"]:
        _recorders.setdefault(dev.slot, Recorder(dev)).record(op)
        stats_of(dev).deferred_ops += 1
    elif stream.BLOCKING or _mode["flushing"] or _mode["blocking"]:
        run_or_cpu(dev, op)
    else:
        stream.submit(dev.slot, lambda queued: run_or_cpu(dev, queued), op)


# ---- DeferAndFuse -------------------------------------------------------------------------

class Recorder:
    """The ops of one device recorded since its last flush, written into one graph.

    It keeps no tensor of the user's: every device tensor an op refers to is replaced by a
    tensor of its own over the same storage (`_ours`), counted per storage, so that at the
    flush a storage held by more tensors than ours is one somebody can still read: only
    those results are written back."""

    def __init__(self, dev):
        self.dev = dev
        self._reset()

    def _reset(self):
        self.graph = Graph("deferred")
        self.ops = []
        self.values = {}   # address -> (value, shape, element): the latest value written there
        self.args = {}     # (address, shape) -> argument name: device tensors read
        self.held = {}     # address -> a tensor of ours keeping the storage alive
        self.ours = {}     # address -> how many tensors of ours share that storage

    def _own(self, t):
        """A tensor of ours with t's storage, sizes, strides and offset."""
        address = torch.ops.chipless.storage_info(t)[0]
        if address < 0:
            return t.detach()
        if address not in self.held:
            self.held[address] = t.detach()
            self.ours[address] = 1
        self.ours[address] += 1
        return self.held[address].as_strided(t.size(), t.stride(), t.storage_offset())

    def _reshaped(self, t):
        """(address, shape) when `t` is a reshape (contiguous, from the start) of a value the
        graph computes: read in the graph through a reshape, not copied."""
        address = torch.ops.chipless.storage_info(t)[0]
        pending = self.values.get(address)
        if pending is None or t.storage_offset() != 0 or not t.is_contiguous():
            return None
        numel = 1
        for d in pending[1]:
            numel *= d
        return (address, shape_of(t)) if numel == t.numel() else None

    def record(self, op):
        # Copies (a view made a tensor of its own) run what is pending first, so they all
        # happen before any operand is taken from the pending graph.
        owned = []
        for t in op.operands:
            reshaped = self._reshaped(t)
            owned.append((t, (reshaped[0], None, reshaped[1])) if reshaped
                         else resident(t, self.dev))
        mark = (len(self.graph.lines), len(self.graph.args), dict(self.args))
        try:
            operands = [self._operand(own, address, shape)
                        for own, (address, _, shape) in owned]
            results = op.emit(self.graph, operands)
        except Exception:
            del self.graph.lines[mark[0]:], self.graph.args[mark[1]:]
            self.args = mark[2]
            raise
        op.operands = [self._own(own) for own, _ in owned]
        op.outputs = [self._own(out) for out in op.outputs]
        op.args = _map_tensors(op.args, self._own)
        op.kwargs = {k: _map_tensors(v, self._own) for k, v in op.kwargs.items()}
        for out, value in zip(op.outputs, results):
            address, _, shape = bindable(out)
            self.values[address] = (value, shape, element_of(out))
        self.ops.append(op)
        if len(self.ops) >= MAX_DEFERRED_OPS:
            self.flush()

    def _operand(self, own, address, shape):
        pending = self.values.get(address)
        if pending is not None:
            value, computed, element = pending
            return (reshape_value(self.graph, value, computed, shape, element), shape)
        name = self.args.get((address, tuple(shape)))
        if name is None:
            name = self.args[(address, tuple(shape))] = f"a{len(self.args)}"
            self.graph.argument(name, shape, element_of(own))
        return (f"%{name}", shape)

    def touches(self, address):
        """Whether a recorded op reads or writes the storage at `address`."""
        return address in self.held

    def _compose(self):
        """The recorded graph with its results (those somebody can still read), the tensors
        to bind, and its key; the key is None when there is nothing to write back."""
        graph, bound = self.graph, {}
        for (address, shape), name in self.args.items():
            bound[name] = (address, DEVICE_DTYPE[self.held[address].dtype], list(shape))
        s = stats_of(self.dev)
        # results in the order the graph computes them, so that the same step gives the same
        # text (and program) whatever addresses its tensors got
        order = sorted(self.values.items(), key=lambda item: _value_order(item[1][0]))
        for k, (address, (value, shape, element)) in enumerate(order):
            if torch.ops.chipless.storage_use_count(self.held[address]) > self.ours[address]:
                graph.result(f"r{k}", value, shape, element)
                bound[f"r{k}"] = (address, element, shape)
            else:
                s.kept_inside += 1
        s.written_back += len(graph.results)
        if not graph.results:
            return graph, bound, None  # nothing anybody can still see was computed
        return graph, bound, ("deferred", hashlib.sha256(graph.text().encode()).hexdigest())

    def _launch(self):
        """Runs the recorded graph as one program; False when the compiler refuses it."""
        graph, bound, key = self._compose()
        if key is None:
            return True
        try:
            prepared = program(self.dev, key, lambda: graph)
        except ChiplessError:
            return False
        launch(self.dev, prepared, bound)
        stats_of(self.dev).fused_launches += 1
        return True

    def flush(self):
        """Runs the recorded ops as one program; when the compiler refuses that, as two
        halves, and so on down to single ops (which may run on the CPU). How a graph had to
        be split is kept, so the next identical graph (the next training step) runs its
        parts straight away."""
        if not self.ops:
            return
        ops = self.ops
        try:
            graph, bound, key = self._compose()
            if key is None:
                return
            plan = _plans.get((self.dev.slot, key))
            if plan is None:
                try:
                    prepared = program(self.dev, key, lambda: graph)
                except ChiplessError:
                    _plans[(self.dev.slot, key)] = _run_split(self.dev, ops, 0, len(ops))
                    return
                launch(self.dev, prepared, bound)
                stats_of(self.dev).fused_launches += 1
                return
            for start, end in plan:
                if not _run_part(self.dev, ops[start:end]):
                    _run_split(self.dev, ops, start, end)
        finally:
            self._reset()


def _run_part(dev, ops):
    """Runs `ops` as one program (True), or nothing when the compiler refuses it (False)."""
    if len(ops) == 1 and not compiles(dev, ops[0]):
        run_or_cpu(dev, ops[0])
        return True
    recorder = Recorder(dev)
    for op in ops:
        recorder.record(op)
    return recorder._launch()


def _run_split(dev, ops, start, end):
    """Runs ops[start:end] in as few programs as halving finds; the (start, end) parts."""
    if end - start == 1 or _run_part(dev, ops[start:end]):
        if end - start == 1:
            run_or_cpu(dev, ops[start])
        return [(start, end)]
    middle = (start + end) // 2
    return _run_split(dev, ops, start, middle) + _run_split(dev, ops, middle, end)


def _value_order(value):
    """Where an SSA name of a Graph ("%v12", or an argument "%a3") comes in the graph."""
    digits = "".join(ch for ch in value if ch.isdigit())
    return (0 if value.startswith("%a") else 1, int(digits or 0))


def reshape_value(g, value, shape, to_shape, element):
    """`value` of `shape` read as `to_shape` (the same elements in order)."""
    if list(shape) == list(to_shape):
        return value
    numel = 1
    for d in shape:
        numel *= d
    if len(shape) > 1:
        value = g.collapse(value, shape, [list(range(len(shape)))], [numel], element)
    if len(to_shape) > 1:
        value = g.expand(value, [numel], [list(range(len(to_shape)))], to_shape, element)
    return value


def flush_all(slot=-1, address=0):
    """Waits for the eager streams, then runs deferred ops: those of every device, or only
    when the storage at `address` of device `slot` is read or written by one (the backend
    calls this before a copy touches device memory, and with slot -1 before the CPU
    fallback runs an op)."""
    stream.wait_all()
    if _mode["flushing"] or not any(r.ops for r in _recorders.values()):
        return
    if slot >= 0:
        recorder = _recorders.get(slot)
        if recorder is None or not recorder.touches(address):
            return
    _mode["flushing"] = True
    try:
        for recorder in list(_recorders.values()):
            recorder.flush()
    finally:
        _mode["flushing"] = False


def set_defer(flag):
    """Turns DeferAndFuse on or off (what is queued or recorded runs first)."""
    flush_all()
    _mode["defer"] = bool(flag)


def wait():
    """Waits for every device's queued eager ops (raising an error one raised)."""
    stream.wait_all()


def set_blocking(flag):
    """Eager ops in the caller's thread (True) or on the devices' streams (False)."""
    flush_all()
    _mode["blocking"] = bool(flag)


def deferring():
    return _mode["defer"]
