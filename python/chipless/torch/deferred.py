"""DeferAndFuse: ops recorded into one graph per device until something needs their data —
a copy to or from the host that touches a recorded tensor (`.cpu()`, `.item()`, printing, a
branch on a value), an op that runs on the CPU, a view that must be copied, the end of a
`defer_and_fuse()` block or `synchronize()` — then compiled as one program (cached by its
text: the same training step is the same program) and launched once. The text is written
only the first time a recording of its structure flushes; the next identical step finds its
program by the structure. Results nobody holds any more are not written back. A graph the
compiler refuses runs in the parts halving finds, and that split is kept for the next
identical graph.
"""
import hashlib

import torch

from chipless.errors import ChiplessError
from chipless.torch import graph_text
from chipless.torch.eager import (bindable, compiles, element_of, launch,
                                  map_tensors, program, resident, run_or_cpu, shape_of,
                                  reads_view, stats_of, view_key, view_of)
from chipless.torch.graph_text import Graph

#: Ops a deferred graph holds at most before it is run (a Python loop that never syncs
#: must not grow one graph for ever).
MAX_DEFERRED_OPS = 4000

_recorders = {}    # slot -> Recorder
_plans = {}        # (slot, graph key) -> the (start, end) parts a refused graph ran as
#: (slot, structure) -> (graph key, [(result name, op index, output index)], graph): the
#: program of a recording of that structure (Recorder._structure), the results it writes
#: back and its graph, so that the next identical step is not written out as text again
_graphs = {}


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
        self.ops = []
        self.reads = []    # per op, per operand: (how it is read, its view, the view's key)
        self.values = {}   # address -> (op index, output index, shape, element): its latest
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
        for d in pending[2]:
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
        """Adds `op`: how it reads each operand (a value the graph computes, or an argument,
        either perhaps through a view), and the values it writes; the graph's text waits
        for the flush."""
        # Copies (a view made a tensor of its own) run what is pending first, so they are all
        # made before any operand is taken from the pending graph: how the others are read
        # is decided after them (a value pending before a copy may have been run by it).
        copies = {}
        read_as = [self._read_as(t, op) for t in op.operands]
        while True:
            needed = [i for i, (how, _) in enumerate(read_as)
                      if i not in copies and how == "copy"]
            if not needed:
                break
            for i in needed:
                copies[i] = resident(op.operands[i], self.dev)
            # a copy may have run the pending graph: the others are read anew
            read_as = [self._read_as(t, op) for t in op.operands]
        owned, views = [], []
        for i, t in enumerate(op.operands):
            how, found = ("copied", copies[i]) if i in copies else read_as[i]
            views.append(found if how == "view" else None)
            if how == "reshaped":
                owned.append((t, (found[0], None, found[1])))
            elif how == "view":  # read from its base in the graph
                owned.append((t, (found[0], None, found[2])))
            else:  # copied, or bound in place (resident checks it is on this device)
                owned.append(found if how == "copied" else resident(t, self.dev))
        reads = []
        for i, (own, (address, _, shape)) in enumerate(owned):
            pending = self.values.get(address)
            if pending is not None:  # a value the graph computes, read in `shape`
                read = ("value",) + pending[:2] + (tuple(pending[2]), pending[3], tuple(shape))
            else:
                key = (address, tuple(shape))
                if key not in self.args:
                    self.args[key] = f"a{len(self.args)}"
                read = ("argument", self.args[key], tuple(shape), element_of(own))
            view = views[i]
            reads.append((read, view and (view[2], view[3], view[4], element_of(own)),
                          view and view_key(view)))
        op.operands = [self._own(own) for own, _ in owned]
        op.outputs = [self._own(out) for out in op.outputs]
        op.args = map_tensors(op.args, self._own)
        op.kwargs = {k: map_tensors(v, self._own) for k, v in op.kwargs.items()}
        for j, out in enumerate(op.outputs):
            address, _, shape = bindable(out)
            self.values[address] = (len(self.ops), j, shape, element_of(out))
        self.reads.append(reads)
        self.ops.append(op)
        if len(self.ops) >= MAX_DEFERRED_OPS:
            self.flush()

    def _graph(self):
        """The recorded ops written into one graph: (graph, {(op index, output index): the
        value it computes})."""
        graph, computed, declared = Graph("deferred"), {}, set()
        for index, (op, reads) in enumerate(zip(self.ops, self.reads)):
            operands = []
            for read, view, _ in reads:
                if read[0] == "value":
                    _, producer, output, shape, element, as_shape = read
                    value = graph_text.reshape(graph, computed[(producer, output)], list(shape),
                                               list(as_shape), element)
                    operands.append((value, list(as_shape)))
                else:
                    _, name, shape, element = read
                    if name not in declared:
                        declared.add(name)
                        graph.argument(name, list(shape), element)
                    operands.append((f"%{name}", list(shape)))
                if view is not None:
                    base, sizes, plan, element = view
                    operands[-1] = (graph_text.emit_view(graph, operands[-1][0], base, sizes,
                                                         plan, element), list(sizes) or [1])
            for j, value in enumerate(op.emit(graph, operands)):
                computed[(index, j)] = value
        return graph, computed

    def _structure(self, written):
        """What the graph's text depends on: each op's key and how it reads its operands,
        and which of the values are written back (`written`: (op index, output index) ->
        whether it is): the same for the same training step, whatever its addresses."""
        return (tuple((op.key, tuple((read, view) for read, _, view in reads))
                      for op, reads in zip(self.ops, self.reads)),
                tuple(sorted(written.items())))

    def touches(self, address):
        """Whether a recorded op reads or writes the storage at `address`."""
        return address in self.held

    def _compose(self):
        """The program key of the recorded graph (compiled from build() the first time),
        and the tensors to bind; the key is None when there is nothing to write back."""
        bound = {}
        for (address, shape), name in self.args.items():
            bound[name] = (address, element_of(self.held[address]), list(shape))
        s = stats_of(self.dev)
        written, where = {}, {}
        for address, (producer, output, shape, element) in self.values.items():
            held = torch.ops.chipless.storage_use_count(self.held[address])
            written[(producer, output)] = held > self.ours[address]
            where[(producer, output)] = (address, element, shape)
        structure = (self.dev.slot, self._structure(written))
        found = _graphs.get(structure)
        if found is None:
            graph, computed = self._graph()
            # results in the order the graph computes them, so that the same step gives the
            # same text (and program) whatever addresses its tensors got
            order = sorted(written, key=lambda v: _value_order(computed[v]))
            results = []
            for k, v in enumerate(order):
                if written[v]:
                    graph.result(f"r{k}", computed[v], where[v][2], where[v][1])
                    results.append((f"r{k}",) + v)
            key = ("deferred", hashlib.sha256(graph.text().encode()).hexdigest()) \
                if results else None
            found = _graphs[structure] = (key, results, graph)
        key, results, graph = found
        s.kept_inside += len(written) - len(results)
        s.written_back += len(results)
        for name, producer, output in results:
            bound[name] = where[(producer, output)]
        return graph, bound, key

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
