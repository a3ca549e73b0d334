"""Matrix products on the device: mm, addmm and bmm as one program each (a bias added in
the product's epilogue), addmm and baddbmm with beta and alpha (the product, then beta c +
alpha product), and mv, addmv and dot (vectors as one-row and one-column matrices). A
Linear layer's transposed weight is read in place (the TPU) or kept transposed with the
weight (Spyre, kept_copies). Registered like the ops of chipless.torch.ops, whose helpers
they use.
"""
import torch

from chipless.torch import eager, graph_text, kept_copies
from chipless.torch.ops import _Refused, _elementwise, _execute, _lowered, aten, program_name


def _matmul(dev, aten_op, args, name, a, b, bias=None, batch=False):
    dtype = a.dtype
    if b.dtype != dtype or (bias is not None and bias.dtype != dtype):
        raise _Refused("operands of different dtypes")
    element = eager.DEVICE_DTYPE.get(dtype)
    if element not in (("bf16", "f32") if dev.kind == "tpu" else ("f16", "bf16", "f32")):
        raise _Refused(f"{dtype} matmuls are not lowered on {dev.kind}")
    transposed = False
    if b.dim() >= 2 and eager.bindable(b) is None and \
            eager.bindable(b.transpose(-1, -2)) is not None:
        # a transposed view (a Linear layer's weight): read in place through a transpose
        b, transposed = b.transpose(-1, -2), True
        if dev.kind == "spyre" and b.dim() == 2:
            b, transposed = kept_copies.transposed(dev, b), False
    b_shape = list(b.shape) if not transposed else [*b.shape[:-2], b.shape[-1], b.shape[-2]]
    out_shape = [*a.shape[:-1], b_shape[-1]]
    operands = [a, b]
    if bias is not None:
        if bias.numel() == 1:
            bias = bias.reshape(1).expand(out_shape[-1])
        operands.append(bias)
    key = (name, tuple(a.shape), tuple(b_shape), transposed, element,
           tuple(bias.shape) if bias is not None else None)

    def emit(g, xs):
        shaped = [(xs[0][0], list(a.shape)), (xs[1][0], b_shape)]
        return [graph_text.emit_matmul(g, *shaped, element, bias=xs[2] if len(xs) > 2 else None,
                                       batch=batch, b_transposed=transposed)]
    out = torch.empty(out_shape, dtype=dtype, device=dev.torch_device)
    _execute(dev, aten_op, args, {}, key, operands, [out], emit)
    return out


@_lowered(aten.mm.default)
def _mm(dev, a, b):
    return _matmul(dev, aten.mm.default, (a, b), "mm", a, b)


def _scaled_sum(dev, op, args, c, product, beta, alpha):
    """beta c + alpha product (c broadcast to the product), as addmm, baddbmm and addmv
    combine them: with beta 0, c is not read (its NaN do not propagate)."""
    beta, alpha = float(beta), float(alpha)
    operands = [product] + ([c] if beta != 0 else [])

    def body(w, x):
        scaled = w.op("arith.mulf", x[0], w.const(alpha)) if alpha != 1 else x[0]
        if beta == 0:
            return scaled
        other = w.op("arith.mulf", x[1], w.const(beta)) if beta != 1 else x[1]
        return w.op("arith.addf", other, scaled)
    return _elementwise(dev, op, args, {}, program_name("scaled_sum", (beta, alpha)), operands,
                        list(product.shape), product.dtype, body)


@_lowered(aten.addmm.default)
def _addmm(dev, bias, a, b, beta=1, alpha=1):
    if beta == 1 and alpha == 1:
        return _matmul(dev, aten.addmm.default, (bias, a, b), "addmm", a, b, bias)
    product = _matmul(dev, aten.mm.default, (a, b), "mm", a, b)
    return _scaled_sum(dev, aten.addmm.default, (bias, a, b, beta, alpha), bias, product, beta,
                       alpha)


@_lowered(aten.bmm.default)
def _bmm(dev, a, b):
    return _matmul(dev, aten.bmm.default, (a, b), "bmm", a, b, batch=True)


@_lowered(aten.baddbmm.default)
def _baddbmm(dev, c, a, b, beta=1, alpha=1):
    product = _matmul(dev, aten.bmm.default, (a, b), "bmm", a, b, batch=True)
    return _scaled_sum(dev, aten.baddbmm.default, (c, a, b, beta, alpha), c, product, beta,
                       alpha)


@_lowered(aten.mv.default)
def _mv(dev, m, v):
    """A matrix times a vector: the vector as a one-column matrix."""
    if m.dim() != 2 or v.dim() != 1:
        raise _Refused("mv of other ranks")
    column = v.reshape(v.shape[0], 1)
    return _matmul(dev, aten.mm.default, (m, column), "mm", m, column).reshape(m.shape[0])


@_lowered(aten.addmv.default)
def _addmv(dev, c, m, v, beta=1, alpha=1):
    return _scaled_sum(dev, aten.addmv.default, (c, m, v, beta, alpha), c, _mv(dev, m, v), beta,
                       alpha)


@_lowered(aten.dot.default)
def _dot(dev, a, b):
    """Two vectors' inner product: a one-row matrix times a one-column one."""
    if a.dim() != 1 or b.dim() != 1:
        raise _Refused("dot of other ranks")
    row, column = a.reshape(1, a.shape[0]), b.reshape(b.shape[0], 1)
    return _matmul(dev, aten.mm.default, (row, column), "mm", row, column).reshape(())
