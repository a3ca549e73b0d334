"""Running lowered ops on the emulated devices, one program per op (eager), and what the
other modes (chipless.torch.deferred, chipless.torch.execution) share: Op, the program
cache, binding tensors where they lie, launching, the statistics, the CPU fallback of a
refused op.

Each op (an Op from chipless.torch.ops) becomes a tensor graph of its own (graph_text),
compiled once per op, shapes, dtypes and device by the chip's own compiler (tpu-compile, or
the Spyre front end and KTIR compiler), prepared once on the device and launched with its
tensors bound where they lie (device tensors, docs/runtime.md). A graph the compiler refuses
is remembered with its reason; its op then runs on the CPU, counted like ATen's own
fallback, or is an error in strict mode.
"""
import os
import threading

import torch

import chipless
from chipless import native
from chipless.errors import ChiplessError
from chipless.torch import devices, graph_text
from chipless.torch.graph_text import Graph

#: PyTorch dtype -> device dtype (pybind/torch/dtypes.cpp keeps the same table).
DEVICE_DTYPE = {torch.float32: "f32", torch.bfloat16: "bf16", torch.float16: "f16",
                torch.int32: "i32", torch.int64: "i32", torch.int8: "i8", torch.bool: "i8"}
#: Element types each chip's graph compiler takes for arithmetic.
FLOAT_TYPES = {"tpu": ("f32", "bf16"), "spyre": ("f16", "bf16", "f32")}
#: Integer types each device's compiler has element-wise arithmetic of (tpu-compile: addi,
#: subi, muli, maxsi, minsi on i32; the Spyre front end takes i32 as gather indices only).
INTEGER_TYPES = {"tpu": ("i32",), "spyre": ()}

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
        self.shared_launches = 0   # of those, run together with other shares' (a share)
        self.shared_cycles = 0.0   # their cycles
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

    def __init__(self, key, operands, outputs, emit, aten, args, kwargs, reference=None):
        self.key, self.operands, self.outputs, self.emit = key, operands, outputs, emit
        self.aten, self.args, self.kwargs = aten, args, kwargs
        #: reference(host operands) -> host results, when the op's outputs are not the ATen
        #: op's (a part of one); by default the ATen op on the host arguments.
        self.reference = reference
        #: strict mode as it was when the op was issued (a queued op runs later)
        self.strict = strict()

    def on_cpu(self):
        """The op computed on the host from the device operands' values, its results copied
        into the outputs."""
        if self.reference is not None:
            half = any(t.dtype == torch.float16 for t in self.operands)
            results = self.reference(*[to_host(t, half) for t in self.operands])
            for out, r in zip(self.outputs, results):
                out.copy_(r.reshape(out.shape))
            return
        half = has_half(self.args)
        result = self.aten(*to_host(self.args, half),
                           **{k: to_host(v, half) for k, v in self.kwargs.items()})
        for out, r in zip(self.outputs, result if isinstance(result, tuple) else (result,)):
            out.copy_(r.reshape(out.shape))


def to_host(v, upcast=False):
    """`v` with its device tensors (also inside lists and tuples) copied to the host; with
    `upcast`, float16 ones as float32 (PyTorch 1.13's CPU lacks most float16 kernels), and so
    is a float16 dtype argument (`_softmax_backward_data`'s input_dtype must match them)."""
    if upcast and v is torch.float16:
        return torch.float32
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


def map_tensors(v, f):
    """`v` with f applied to its device tensors (also inside lists and tuples)."""
    if isinstance(v, torch.Tensor) and v.device.type == "privateuseone":
        return f(v)
    if isinstance(v, (list, tuple)):
        return type(v)(map_tensors(x, f) for x in v)
    return v


_stats = {}        # slot -> Stats
_programs = {}     # (slot, key) -> chipless.Program or ChiplessError (refused)


def stats_of(dev):
    return _stats.setdefault(dev.slot, Stats())


def strict():
    return native.load("_torch").strict()


def element_of(t):
    """The element type `t`'s values have in device memory (and in graphs): DEVICE_DTYPE's,
    but a boolean on Spyre is 0 or 1 in f16 (the C++ backend's dtypes.cpp)."""
    if t.dtype == torch.bool and t.device.type == "privateuseone":
        return torch.ops.chipless.storage_info(t)[2]
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


def view_of(t, dev):
    """(address, device dtype, base shape, sizes, plan) when `t` is not bindable but a view of
    its storage's base that a graph for `dev` can read in place (graph_text.view_plan: a
    permutation, a slice, a reshape of it; broadcast between other dimensions on the TPU
    only, whose compiler takes any linalg.broadcast): the base is bound and the view made in
    the program, not copied through the host first. None otherwise."""
    address, _, dtype, base = torch.ops.chipless.storage_info(t)
    if address < 0:
        return None
    sizes = list(t.shape)
    plan = graph_text.view_plan(base or [1], sizes, list(t.stride()), t.storage_offset())
    if plan is None or (plan["broadcast"] == "inner" and dev.kind != "tpu"):
        return None
    return (address, dtype, base or [1], sizes, plan)


def view_key(view):
    """What of a view a program depends on: its base's shape, its sizes and its plan."""
    _, _, base, sizes, plan = view
    return (tuple(base), tuple(sizes), tuple(plan["shape"]), tuple(plan["offsets"]),
            tuple(plan["box"]), tuple(plan["order"]), plan["broadcast"])


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
    # through the host: this runs on the device's stream, which a copy program would wait on
    torch.ops.aten._copy_from(t, own)
    return own, bindable(own)


def program(dev, key, build, count_refusal=True):
    """The program of signature `key` on `dev`, compiled from build() (a Graph) and
    prepared the first time; raises ChiplessError when the compiler refuses it (counted in
    the stats' `refused` unless the caller has another way to run the op)."""
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
                # kept without its traceback, whose frames would keep the refused graph's
                # tensors alive (a deferred graph writes back every result still held)
                found = e.with_traceback(None)
                found.__context__ = found.__cause__ = None
                if count_refusal:
                    stats_of(dev).refused[key] = str(e)
            _programs[(dev.slot, key)] = found
        else:
            stats_of(dev).hits += 1
        if isinstance(found, ChiplessError):
            raise found
        return found


def launch(dev, prepared, bound, arrays=None):
    """Launches `prepared` with {argument: (address, dtype, shape)} bound where they lie and
    host arrays {argument: numpy array}; its cycles counted."""
    # no device statistics: chipless.torch.stats counts cycles, and gathering them after
    # each kernel of a fused program costs more than simulating a small one
    launched = dev.device._handle.launch(prepared._handle, arrays or {}, {}, {}, _mode["trace"],
                                         bound, False)
    s = stats_of(dev)
    s.launches += 1
    s.cycles += launched.cycles
    if launched.shared_steps:
        s.shared_launches += 1
        s.shared_cycles += launched.cycles
    s.sim_seconds += launched.host_seconds
    return launched


class StrictModeError(ChiplessError, RuntimeError):
    """An op that would run on the CPU in strict mode (a RuntimeError, as the backend's own
    fallback raises it)."""


def check_not_strict(op, dev, reason, strict_mode=None):
    """Raises StrictModeError in strict mode (`strict_mode`, else the current one): `op`
    would run on the CPU."""
    if strict() if strict_mode is None else strict_mode:
        raise StrictModeError(f"chipless: {op} does not run on {dev.name} ({reason}), and "
                              f"strict mode does not let it run on the CPU "
                              f"(chipless.torch.set_strict(False) allows the fallback)")


def count_cpu(dev, op):
    s = stats_of(dev)
    s.cpu[op] = s.cpu.get(op, 0) + 1


# ---- eager ------------------------------------------------------------------------------

def _single_graph(op, views=None):
    """The graph of `op` alone; an operand with a view in `views` is read from its base."""
    g = Graph(op.key[0].replace(".", "_"))
    values = []
    for i, t in enumerate(op.operands):
        view = views[i] if views else None
        if view is None:
            values.append((g.argument(f"x{i}", shape_of(t), element_of(t)), shape_of(t)))
            continue
        _, _, base, sizes, plan = view
        value = g.argument(f"x{i}", base, element_of(t))
        values.append((graph_text.emit_view(g, value, base, sizes, plan, element_of(t)),
                       list(sizes) or [1]))
    for j, (v, out) in enumerate(zip(op.emit(g, values), op.outputs)):
        g.result(f"out{j}", v, shape_of(out), element_of(out))
    return g


def run_now(dev, op, prepared, views=None):
    """Runs `op` as the program `prepared` (its own, from program()); operands with a view in
    `views` bound as their bases."""
    bound, keep = {}, []  # keep: copies made for binding live until the launch is done
    for i, t in enumerate(op.operands):
        view = views[i] if views else None
        if view is not None:
            bound[f"x{i}"] = (view[0], view[1], view[2])
            continue
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


_MATMULS = (torch.ops.aten.mm.default, torch.ops.aten.addmm.default,
            torch.ops.aten.bmm.default)


def reads_view(dev, t, op=None):
    """Whether a program on `dev` reads view `t` of another tensor in the graph (view_of)
    instead of a copy made first, `t` an operand of `op` (None: of a copy). Spyre: always
    (its front end re-lays views out on the device). The TPU: a matmul reads a transposed
    right-hand side in place; any other view that moves the innermost dimension (a
    transpose) tpu-compile materialises on the MXU, exactly, when it is of two dimensions or
    of three with the first kept in place (a batch), so other such views are copied first,
    through the host. Read in the graph, a view needs no flush of a deferred graph (measured
    on the model blocks, 2026-12-04: GPT-2's and BERT's forward and the MLP's training step
    one program each, against 4, 3 and 5 with every view copied)."""
    if dev.kind == "spyre" or (op is not None and op.aten in _MATMULS):
        return True
    # the innermost dimension that is neither of one element nor broadcast (stride 0)
    moving = [i for i in range(t.dim()) if t.shape[i] > 1 and t.stride(i) != 0]
    if not moving or t.stride(moving[-1]) == 1:
        return True
    found = view_of(t, dev)
    if found is None:
        return False
    order = found[4]["order"]  # the dimensions the view permutes (graph_text.emit_view)
    perm = [order.index(i) for i in sorted(order)]
    return len(perm) == 2 or (len(perm) == 3 and perm[0] == 0)


def _views(dev, op):
    """Each operand's view (view_of) where it is not bindable; None when every one is."""
    views = [None if bindable(t) is not None or not reads_view(dev, t, op) else view_of(t, dev)
             for t in op.operands]
    return views if any(views) else None


def run_or_cpu(dev, op):
    """Runs `op` on the device — its views of other tensors read in the program where its
    compiler takes them, else copied first — or on the CPU when the compiler refuses its
    program (counted; an error in strict mode). Errors of the run itself are raised."""
    views = _views(dev, op)
    if views is not None:
        key = op.key + (("views",) + tuple(v and view_key(v) for v in views),)
        try:
            prepared = program(dev, key, lambda: _single_graph(op, views), count_refusal=False)
        except ChiplessError:
            pass  # the views copied into tensors of their own instead
        else:
            run_now(dev, op, prepared, views)
            return
    try:
        prepared = program(dev, op.key, lambda: _single_graph(op))
    except ChiplessError as e:
        check_not_strict(op.key[0], dev, str(e).splitlines()[0], op.strict)
        count_cpu(dev, op.key[0])
        op.on_cpu()
        return
    run_now(dev, op, prepared)
