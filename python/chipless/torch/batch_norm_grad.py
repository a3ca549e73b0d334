"""The gradient of batch normalisation (native_batch_norm_backward) on the emulated devices,
in one program: the sums per channel of the upstream gradient and of its product with the
normalised input, then the input's gradient from them, as PyTorch's CPU kernel computes
them. Registered like the ops of chipless.torch.ops.
"""
import torch

from chipless.torch import eager, execution, graph_text
from chipless.torch.ops import _Refused, _element, _lowered, aten
from chipless.torch.reductions import reduction


@_lowered(aten.native_batch_norm_backward.default)
def _batch_norm_backward(dev, grad, x, weight, running_mean, running_var, save_mean,
                         save_invstd, train, eps, output_mask):
    """(d x, d weight, d bias) of y = (x - mean) * invstd * weight + bias per channel
    (dimension 1). Training form (the batch's mean and invstd, saved by the forward):
    d x = (g - sum(g) / M - xhat * sum(g xhat) / M) * invstd * weight, with xhat = (x -
    mean) * invstd and M the values per channel; inference form (the running statistics):
    d x = g * invstd * weight. In both, d weight = sum(g xhat) and d bias = sum(g)."""
    element = _element(x.dtype, dev)
    if element is None or not 2 <= x.dim() <= 4 or x.numel() == 0 or grad.dtype != x.dtype:
        raise _Refused("a batch norm gradient of this dtype, rank or size")
    mean, var = (save_mean, save_invstd) if train else (running_mean, running_var)
    vectors = [v for v in (mean, var, weight) if v is not None]
    if mean is None or var is None or \
            any(v.dtype != x.dtype or v.device != x.device for v in vectors):
        raise _Refused("statistics or a weight of another dtype or device, or none")
    shape, c = list(x.shape), x.shape[1]
    count = x.numel() // c
    sum_of, _ = reduction(x.dim(), [0] + list(range(2, x.dim())), element, "arith.addf", 0.0)
    new = lambda s: torch.empty(s, dtype=x.dtype, device=dev.torch_device)  # noqa: E731
    grad_input, grad_weight, grad_bias = new(shape), new([c]), new([c])

    def emit(g, xs):
        gv, xv = xs[0][0], xs[1][0]
        m, v = xs[2][0], xs[3][0]
        w = xs[4][0] if weight is not None else None

        def per_element(values, vectors, body):
            operands = [(a, shape) for a in values] + \
                graph_text.per_channel_operands(g, vectors, shape, element)
            return graph_text.emit_elementwise(g, operands, shape, element, body)

        def invstd(b, e):
            return e if train else graph_text.rstd_of_variance(b, [e], eps)
        # xhat = (x - mean) * invstd; g * xhat summed per channel
        xhat = per_element([xv], [m, v], lambda b, e: b.op(
            "arith.mulf", b.op("arith.subf", e[0], e[1]), invstd(b, e[2])))
        products = per_element([gv, xhat], [], lambda b, e: b.op("arith.mulf", e[0], e[1]))
        sum_gx = sum_of(g, [(products, shape)])[0]
        sum_g = sum_of(g, [(gv, shape)])[0]

        weights = [w] if w is not None else []

        def scaled(b, e, value, at):
            """value * invstd (e[at]) [* weight (e[-1])]."""
            scale = invstd(b, e[at])
            if weight is not None:
                scale = b.op("arith.mulf", scale, e[-1])
            return b.op("arith.mulf", value, scale)

        def trained(b, e):  # g, xhat; invstd, sum(g), sum(g xhat)[, weight]
            per_count = b.const(1.0 / count)
            centred = b.op("arith.subf", e[0], b.op("arith.mulf", e[3], per_count))
            part = b.op("arith.mulf", b.op("arith.mulf", e[1], e[4]), per_count)
            return scaled(b, e, b.op("arith.subf", centred, part), 2)
        if train:
            dx = per_element([gv, xhat], [v, sum_g, sum_gx] + weights, trained)
        else:  # g; var[, weight]
            dx = per_element([gv], [v] + weights, lambda b, e: scaled(b, e, e[0], 1))
        return [dx, sum_gx, sum_g]

    def reference(hg, hx, *hv):
        it = iter(hv)
        hm, hs = next(it), next(it)
        hw = next(it) if weight is not None else None
        stats = (None, None, hm, hs) if train else (hm, hs, None, None)
        return torch.ops.aten.native_batch_norm_backward(hg, hx, hw, *stats, train, eps,
                                                         [True, True, True])
    args = (grad, x, weight, running_mean, running_var, save_mean, save_invstd, train, eps,
            output_mask)
    execution.execute(dev, eager.Op(
        ("batch_norm_backward", tuple(shape), weight is not None, bool(train), eps, element),
        [grad, x, *vectors], [grad_input, grad_weight, grad_bias], emit,
        aten.native_batch_norm_backward.default, args, {}, reference=reference))
    return grad_input, grad_weight, grad_bias
