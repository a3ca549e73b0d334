"""DeferAndFuse: ops recorded into one graph per device until something needs their data —
a copy to or from the host that touches a recorded tensor (`.cpu()`, `.item()`, printing, a
branch on a value), an op that runs on the CPU, a view that must be copied, the end of a
`defer_and_fuse()` block or `synchronize()` — then compiled as one program (cached by its
text: the same training step is the same program) and launched once. Results nobody holds
any more are not written back. A graph the compiler refuses runs in the parts halving finds,
and that split is kept for the next identical graph.
"""
import hashlib

import torch

from chipless.errors import ChiplessError
from chipless.torch import graph_text
from chipless.torch.eager import (DEVICE_DTYPE, bindable, compiles, element_of, launch,
                                  map_tensors, program, resident, run_or_cpu, shape_of,
                                  reads_view, stats_of, view_of)
from chipless.torch.graph_text import Graph

#: Ops a deferred graph holds at most before it is run (a Python loop that never syncs
#: must not grow one graph for ever).
MAX_DEFERRED_OPS = 4000

_recorders = {}    # slot -> Recorder
_plans = {}        # (slot, graph key) -> the (start, end) parts a refused graph ran as


def record(dev, op):
    """Adds `op` to the device's deferred graph."""
    _recorders.setdefault(dev.slot, Recorder(dev)).record(op)
    stats_of(dev).deferred_ops += 1


def pending(slot=-1, address=0):
    """Whether recorded ops wait to run: on any device, or (slot >= 0) ones of device `slot`
    that read or write the storage at `address`."""
    if slot < 0:
        return any(r.ops for r in _recorders.values())
    recorder = _recorders.get(slot)
    return recorder is not None and recorder.touches(address)


def flush():
    """Runs every device's recorded ops."""
    for recorder in list(_recorders.values()):
        recorder.flush()


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

    def _read_as(self, t, op):
        """How operand `t` of `op` is read: ("reshaped", (address, shape)) from a value the
        graph computes, ("view", view_of) from its base, ("bound", bindable) in place, or
        ("copy", None) when it must first be made a tensor of its own."""
        reshaped = self._reshaped(t)
        if reshaped:
            return "reshaped", reshaped
        bound = bindable(t)
        if bound is not None:
            return "bound", bound
        view = view_of(t, self.dev) if reads_view(self.dev, t, op) else None
        return ("view", view) if view is not None else ("copy", None)

    def record(self, op):
        # Copies (a view made a tensor of its own) run what is pending first, so they are all
        # made before any operand is taken from the pending graph: how the others are read
        # is decided after them (a value pending before a copy may have been run by it).
        copies = {}
        while True:
            needed = [i for i, t in enumerate(op.operands)
                      if i not in copies and self._read_as(t, op)[0] == "copy"]
            if not needed:
                break
            for i in needed:
                copies[i] = resident(op.operands[i], self.dev)
        owned, views = [], []
        for i, t in enumerate(op.operands):
            how, found = ("copied", copies[i]) if i in copies else self._read_as(t, op)
            views.append(found if how == "view" else None)
            if how == "reshaped":
                owned.append((t, (found[0], None, found[1])))
            elif how == "view":  # read from its base in the graph
                owned.append((t, (found[0], None, found[2])))
            else:  # copied, or bound in place (resident checks it is on this device)
                owned.append(found if how == "copied" else resident(t, self.dev))
        mark = (len(self.graph.lines), len(self.graph.args), dict(self.args))
        try:
            operands = [self._operand(own, address, shape)
                        for own, (address, _, shape) in owned]
            for i, view in enumerate(views):
                if view is not None:
                    _, _, base, sizes, plan = view
                    element = element_of(owned[i][0])
                    operands[i] = (graph_text.emit_view(self.graph, operands[i][0], base, sizes,
                                                        plan, element), list(sizes) or [1])
            results = op.emit(self.graph, operands)
        except Exception:
            del self.graph.lines[mark[0]:], self.graph.args[mark[1]:]
            self.args = mark[2]
            raise
        op.operands = [self._own(own) for own, _ in owned]
        op.outputs = [self._own(out) for out in op.outputs]
        op.args = map_tensors(op.args, self._own)
        op.kwargs = {k: map_tensors(v, self._own) for k, v in op.kwargs.items()}
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
            return (graph_text.reshape(self.graph, value, computed, shape, element), shape)
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
