"""Ahead-of-time capture, where PyTorch 2's torch.compile would go (1.13 has no Dynamo): the
model's ATen ops are captured once with make_fx on the meta device (forward; the model's
state passed in as inputs) or functorch's aot_module (forward and backward as two graphs),
and every call runs a captured graph as one deferred region —
one program per graph, compiled when the model is captured (with the example inputs) and
reused by every call of those shapes.

    fast = chipless.torch.aot(model, x)        # captures and compiles now
    y = fast(x)                                # one program
    fast = chipless.torch.aot(model, x, backward=True)
    fast(x).sum().backward()                   # one program forward, one backward

Bucketed is the capture of chipless.torch.compile(..., dynamic=): one graph per length
bucket, padded and masked by chipless/torch/dynamic.py.
"""
import torch
from torch.utils import _pytree as pytree

from chipless.torch import dynamic, execution


def _run_deferred(graph):
    """A callable running the FX graph of ATen ops `graph` as one deferred region."""
    def run(*args):
        before = execution.deferring()
        execution.set_defer(True)
        try:
            out = graph(*args)
            execution.flush_all()
        finally:
            execution.set_defer(before)
        return out
    return run


class Captured:
    """A model captured ahead of time: call it like the model. `graphs` are the captured
    FX graphs (their `.code` is the ATen program, readable)."""

    def __init__(self, model, example_inputs, backward):
        self.graphs = []
        if backward:
            from functorch.compile import aot_module, make_boxed_func

            def compiler(graph, inputs):
                self.graphs.append(graph)
                return make_boxed_func(_run_deferred(graph))
            self._call = aot_module(model, fw_compiler=compiler, bw_compiler=compiler)
        else:
            # traced on the meta device (nothing runs on the emulated one until the first
            # call), the model's parameters and buffers passed in as inputs
            graph = dynamic.trace(model, _state(model), example_inputs)
            _place_on(graph, _device_of(model, example_inputs))
            self.graphs.append(graph)
            run = _run_deferred(graph)
            self._call = lambda *inputs: run(*_state(model).values(), *inputs)
        # ahead of time: compile (and run once) with the example inputs; the backward's
        # gradients are undone, so capturing leaves the model as it was
        if not backward:
            with torch.no_grad():
                self(*example_inputs)
            return
        params = [p for p in model.parameters() if p.requires_grad]
        kept = [None if p.grad is None else p.grad.clone() for p in params]
        out = self(*example_inputs)
        (out if isinstance(out, torch.Tensor) else out[0]).sum().backward()
        for p, g in zip(params, kept):
            p.grad = g

    def __call__(self, *inputs):
        return self._call(*inputs)


class Bucketed:
    """A model compiled for every length up to a bound (chipless/torch/dynamic.py): a call
    runs the program of the smallest bucket holding its length, so lengths that change from
    call to call reuse a bucket's program instead of compiling their own. `counters` says
    how many buckets were captured and how many calls each served."""

    def __init__(self, model, example_inputs, places, buckets, device):
        self.model, self.places, self.buckets, self.device = model, places, buckets, device
        self._examples = [x.detach().cpu() if isinstance(x, torch.Tensor) else x
                          for x in example_inputs]
        self._entries = {}   # bucket -> (graph module, extras, output dims)
        self.counters = {"captures": 0, "calls": 0, "calls_by_bucket": {}}
        with torch.no_grad():  # ahead of time: the example's bucket, compiled and run once
            self(*example_inputs)
        self.counters = {"captures": self.counters["captures"], "calls": 0,
                         "calls_by_bucket": {}}

    @property
    def graphs(self):
        """The captured FX graphs, one per bucket (their `.code` is the ATen program)."""
        return [self._entries[b][0] for b in sorted(self._entries)]

    def _by_input(self):
        found = {}
        for index, d in self.places:
            found.setdefault(index, []).append(d)
        return found

    def _length(self, inputs):
        """The call's length: every declared dimension's, which must agree and be within the
        bound; the other dimensions must be the example's."""
        if len(inputs) != len(self._examples):
            raise dynamic.DynamicError(f"dynamic: the model was compiled with "
                                       f"{len(self._examples)} inputs, not {len(inputs)}")
        n, first = None, None
        for index, d in self.places:
            size = inputs[index].shape[d]
            if n is None:
                n, first = size, (index, d)
            elif size != n:
                raise dynamic.DynamicError(
                    f"dynamic: input {index} dimension {d} has length {size}, but input "
                    f"{first[0]} dimension {first[1]} has {n}: the declared dimensions "
                    f"share one length")
        if not 1 <= n <= self.buckets[-1]:
            raise dynamic.DynamicError(
                f"dynamic: input {first[0]} dimension {first[1]} has length {n}, outside the "
                f"declared bounds 1..{self.buckets[-1]}")
        dims = self._by_input()
        for index, (x, example) in enumerate(zip(inputs, self._examples)):
            if not isinstance(x, torch.Tensor):
                continue
            fixed = [s for k, s in enumerate(x.shape) if k not in dims.get(index, [])]
            want = [s for k, s in enumerate(example.shape) if k not in dims.get(index, [])]
            if fixed != want:
                raise dynamic.DynamicError(
                    f"dynamic: input {index} has shape {list(x.shape)}; only the declared "
                    f"dimensions may differ from the example's {list(example.shape)}")
        return n


    def _capture(self, bucket):
        """Traces the model at the bucket's length and one more, and masks the bucket's
        graph; the graph's constants and factories are put on the device."""
        state = _state(self.model)
        dims = self._by_input()
        traced = []
        for length in (bucket, dynamic.probe_length(bucket)):
            inputs = [dynamic.resize(x, dims[i], length) if i in dims else x
                      for i, x in enumerate(self._examples)]
            with torch.no_grad():
                traced.append(dynamic.trace(self.model, state, inputs))
        gm = traced[0]
        padder = dynamic.Padder(gm, dynamic.length_dims(*traced, bucket,
                                                        dynamic.probe_length(bucket)))
        _place_on(gm, self.device.torch_device)
        self.counters["captures"] += 1
        self._entries[bucket] = (gm, padder.extras, padder.outputs)
        return self._entries[bucket]

    def __call__(self, *inputs):
        n = self._length(inputs)
        bucket = dynamic.ceil_bucket(self.buckets, n)
        gm, extras, outputs = self._entries.get(bucket) or self._capture(bucket)
        target = self.device.torch_device
        dims = self._by_input()
        moved = [x.to(target) if isinstance(x, torch.Tensor) else x for x in inputs]
        padded = [dynamic.resize(x, dims[i], bucket) if i in dims else x
                  for i, x in enumerate(moved)]
        masks = [dynamic.extra_value(e, n, bucket, target) for e in extras]
        out = _run_deferred(gm)(*_state(self.model).values(), *padded, *masks)
        flat, spec = pytree.tree_flatten(out)
        flat = [_narrow(x, d, n) for x, d in zip(flat, outputs)]
        self.counters["calls"] += 1
        by_bucket = self.counters["calls_by_bucket"]
        by_bucket[bucket] = by_bucket.get(bucket, 0) + 1
        return pytree.tree_unflatten(flat, spec)


def _state(model):
    """The model's parameters and buffers by name, the inputs of its traced graph."""
    state = dict(model.named_parameters())
    state.update(model.named_buffers())
    return state


def _device_of(model, inputs):
    """The torch.device of the first tensor of the model's state or inputs on an emulated
    device (the CPU when none is)."""
    for t in [*_state(model).values(), *inputs]:
        if isinstance(t, torch.Tensor) and t.device.type == "privateuseone":
            return t.device
    return torch.device("cpu")


def _place_on(gm, target):
    """The traced graph's constants and factory ops on `target` (tracing put them on the
    meta device or the host)."""
    for node in gm.graph.nodes:
        if node.op == "get_attr":
            value = getattr(gm, node.target)
            if isinstance(value, torch.Tensor) and value.device.type == "cpu":
                setattr(gm, node.target, value.to(target))
        if node.kwargs.get("device") in (torch.device("cpu"), torch.device("meta")):
            node.kwargs = {**node.kwargs, "device": target}
    dynamic.recompile(gm)


def _narrow(x, dims, n):
    for d in dims:
        x = x.narrow(d, 0, n)
    return x
