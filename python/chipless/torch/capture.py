"""Ahead-of-time capture, where PyTorch 2's torch.compile would go (1.13 has no Dynamo): the
model's ATen ops are captured once with make_fx (forward) or functorch's aot_module (forward
and backward as two graphs), and every call runs a captured graph as one deferred region —
one program per graph, compiled when the model is captured (with the example inputs) and
reused by every call of those shapes.

    fast = chipless.torch.aot(model, x)        # captures and compiles now
    y = fast(x)                                # one program
    fast = chipless.torch.aot(model, x, backward=True)
    fast(x).sum().backward()                   # one program forward, one backward
"""
import torch
from torch.fx.experimental.proxy_tensor import make_fx

from chipless.torch import execution


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
            graph = make_fx(lambda *xs: model(*xs))(*example_inputs)
            self.graphs.append(graph)
            self._call = _run_deferred(graph)
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
