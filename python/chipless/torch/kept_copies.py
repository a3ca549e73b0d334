"""Copies of a weight re-laid out for a chip that reads it dearly as it lies, made on the
device the first time and kept with the weight's storage until that is written or freed
(chipless::derived, pybind/torch/derived_copies.cpp): a Linear layer's transposed weight
and a convolution's filters.
"""
import torch

from chipless.torch import eager, execution, graph_text

aten = torch.ops.aten


def kept_copy(dev, w, how, shape, emit, reference):
    """A copy of `w` re-laid out (`emit(g, value)` in a graph, `reference(host)` on the
    CPU) into a tensor of `shape`, made on the device the first time and kept with `w`'s
    storage until `w` is written or freed (chipless::derived): for weights a chip reads
    dearly as they lie, re-laid out once rather than at every call."""
    copy = torch.ops.chipless.derived(w, how)
    if copy is not None:
        return copy
    element = eager.element_of(w)
    stored = list(w.shape)
    copy = torch.empty(shape, dtype=w.dtype, device=dev.torch_device)
    execution.execute(dev, eager.Op(
        (how.replace(" ", "_"), tuple(stored), element), [w], [copy],
        lambda g, xs: [emit(g, xs[0][0], stored, element)], aten.clone.default, (w,), {},
        reference=lambda h: [reference(h)]))
    torch.ops.chipless.keep_derived(w, how, copy)
    return copy


def transposed(dev, w):
    """The transpose of matrix `w` as a kept copy. For Spyre, whose matmul reads
    a transposed right-hand side one element per DMA run, each costing a whole stick
    (docs/frontend.md): a Linear layer's weight is re-laid out once, not at every call (40x
    the modelled time of GPT-2's MLP matmuls when read in place)."""
    return kept_copy(dev, w, "transpose", list(w.shape)[::-1],
                     lambda g, v, shape, e: graph_text.transpose(g, v, shape, [1, 0], e),
                     lambda h: h.t())
