"""Softmax, log_softmax, their gradients, reductions (sum, mean, amax, amin; and as
compositions of device ops logsumexp, nansum, vector norms) over any dimensions and
variances on the emulated devices: each along the last dimension of its operand, another
dimension brought there by a transpose first. Registered like the ops of chipless.torch.ops,
whose registry and helpers they use.
"""
import math

import torch

from chipless.torch import eager, execution, graph_text
from chipless.torch.ops import _Refused, _element, _execute, _lowered, aten


def _swaps(rank, dim, keep_last):
    """The permutations, applied in order, that bring dimension `dim` last: one swap of it
    with the last; with `keep_last` (tpu-compile materialises only a swap of the last two
    dimensions) one that keeps the last in place and brings `dim` next to it (a view), then
    the swap of the two."""
    last = rank - 1
    if dim == last:
        return []
    if not keep_last or dim == last - 1:
        perm = list(range(rank))
        perm[dim], perm[last] = perm[last], perm[dim]
        return [perm]
    swap = list(range(rank))
    swap[-2], swap[-1] = swap[-1], swap[-2]
    return [[d for d in range(rank) if d not in (dim, last)] + [dim, last], swap]


def _along_last(dim, element, rows, keep_last, f):
    """emit(g, operands) applying f(g, [(value, shape)...]) -> value over the last dimension
    of operands of one shape to their dimension `dim`: where `dim` is not the last, each is
    transposed to bring it there and the result transposed back (`keep_last`: as _swaps says,
    for the TPU; Spyre swaps the two at once and re-lays the result out). With `rows`, f sees
    them as [M, N] matrices."""
    def emit(g, xs):
        perms = _swaps(len(xs[0][1]), dim, keep_last)
        values = []
        for v, now in xs:
            for p in perms:
                v, now = graph_text.transpose(g, v, now, p, element), [now[i] for i in p]
            values.append(v)
        view = [math.prod(now[:-1]), now[-1]] if rows else now
        y = f(g, [(graph_text.reshape(g, v, now, view, element), view) for v in values])
        y = graph_text.reshape(g, y, view, now, element)
        for p in reversed(perms):
            back = [p.index(i) for i in range(len(p))]
            y, now = graph_text.transpose(g, y, now, back, element), [now[i] for i in back]
        return [y]
    return emit


def _softmax_like(dev, aten_op, name, x, dim, half_to_float, rows, emit):
    """softmax or log_softmax of x along `dim`: emit(g, (value, shape), element) over the last
    dimension (of [M, N] rows with `rows`), another dimension swapped with it first."""
    element = _element(x.dtype, dev)
    if half_to_float or element is None or x.dim() < 1 or x.numel() == 0:
        raise _Refused(f"{name} of this dtype or of no element")
    out = torch.empty(x.shape, dtype=x.dtype, device=dev.torch_device)
    dim %= x.dim()
    _execute(dev, aten_op, (x, dim, half_to_float), {},
             (name, tuple(x.shape), element) + ((dim,) if dim != x.dim() - 1 else ()), [x],
             [out], _along_last(dim, element, rows, dev.kind == "tpu",
                                lambda g, xs: emit(g, xs[0], element)))
    return out


@_lowered(aten._softmax.default)
def _softmax(dev, x, dim, half_to_float):
    return _softmax_like(dev, aten._softmax.default, "softmax", x, dim, half_to_float, False,
                         graph_text.emit_softmax)


@_lowered(aten._log_softmax.default)
def _log_softmax(dev, x, dim, half_to_float):
    lowest = _lowest(x.dtype)
    return _softmax_like(dev, aten._log_softmax.default, "log_softmax", x, dim, half_to_float,
                         True, lambda g, v, e: graph_text.emit_log_softmax(g, v, e, lowest))


def _reduce_last(dev, aten_op, args, name, x, dims, keepdim, dtype, combine, init, mean=False):
    element = _element(x.dtype, dev)
    dims = [d % x.dim() for d in (dims or [])] if x.dim() else []
    if x.dim() == 0 and dtype in (None, x.dtype):
        return x.clone()  # the reduction of one number is that number
    if not dims:
        dims = list(range(x.dim()))  # no dimension named: all of them (x.sum(), x.mean())
    trailing = len(set(dims))
    if element is None or dtype not in (None, x.dtype) or x.dim() < 1 or not dims or \
            trailing != len(dims) or x.numel() == 0:
        raise _Refused("a reduction of this dtype, of no element, or naming a dimension twice")
    shape = list(x.shape)
    kept = [d for d in range(x.dim()) if d not in dims]
    out = torch.empty([shape[d] for d in kept], dtype=x.dtype, device=dev.torch_device)
    emit, columns = reduction(x.dim(), dims, element, combine, init, mean)
    execution.execute(dev, eager.Op((name + ("_columns" if columns else ""), tuple(shape),
                                     element, tuple(dims)), [x], [out], emit, aten_op, args, {}))
    if keepdim:
        return out.reshape([1 if d in dims else shape[d] for d in range(x.dim())])
    return out


def reduction(rank, dims, element, combine, init, mean=False):
    """(emit(g, [x]) -> [x reduced over `dims`], whether it reduces as columns): where the
    last dimension stays (rank 2 or 3), each reduced dimension is brought next to it and
    reduced as columns are (tpu-compile would have to move the last dimension otherwise);
    else the reduced dimensions are moved last and reduced there."""
    if rank - 1 not in dims and rank <= 3:
        return _reduce_as_columns(dims, element, combine, init, mean), True
    return _reduce_moved_last(dims, element, combine, init, mean), False


def _reduce_moved_last(dims, element, combine, init, mean):
    """emit(g, [x]) reducing x over `dims`: moved last by a transpose (the others keep their
    order), then reduced there one at a time from the last (a global average pool: W, then
    H). With the last dimension among `dims` the transpose leaves it in place; otherwise it
    moves it, which tpu-compile refuses (Spyre's front end re-lays it out)."""
    def emit(g, xs):
        v, now = xs[0]
        # a reduced dimension of 1 but the last (a batch of one) is dropped by a reshape,
        # not moved by a transpose (which the Spyre front end would fuse with other reads of
        # v in another form) and summed; the TPU's last dimension stays (its rows are padded)
        last = len(now) - 1
        kept = [d for d in range(len(now)) if d not in dims or now[d] != 1 or d == last]
        reduced = [kept.index(d) for d in dims if d in kept]
        if len(kept) < len(now):
            squeezed = [now[d] for d in kept] or [1]
            v, now = graph_text.reshape(g, v, now, squeezed, element), squeezed
        perm = [d for d in range(len(now)) if d not in reduced] + sorted(reduced)
        if perm != list(range(len(now))):
            v, now = graph_text.transpose(g, v, now, perm, element), [now[p] for p in perm]
        for _ in reduced:
            v = graph_text.emit_reduce_last(g, (v, now), element, combine, init,
                                            1.0 / now[-1] if mean else None)
            now = graph_text.reduced_shape(now)
        return [v]
    return emit


def _reduce_as_columns(dims, element, combine, init, mean):
    """emit(g, [x]) reducing x (rank 2 or 3, as the compilers reduce columns) over `dims`,
    which keep its last dimension: from the highest, each moved next to the last by a
    transpose that keeps the last dimension in place, then reduced as the columns of a
    matrix; a mean scaled at the end."""
    def emit(g, xs):
        v, now = xs[0]
        count = 1
        for d in sorted(dims, reverse=True):
            r = len(now)
            if d != r - 2:
                perm = [i for i in range(r) if i not in (d, r - 1)] + [d, r - 1]
                v, now = graph_text.transpose(g, v, now, perm, element), [now[p] for p in perm]
            count *= now[-2]
            v = graph_text.emit_reduce_columns(g, (v, now), element, combine, init)
            now = now[:-2] + now[-1:]
        if mean:
            v = graph_text.emit_elementwise(
                g, [(v, now)], now, element,
                lambda b, e: b.op("arith.mulf", e[0], b.const(1.0 / count)))
        return [v]
    return emit


@_lowered(aten.sum.dim_IntList)
def _sum(dev, x, dim, keepdim=False, dtype=None):
    return _reduce_last(dev, aten.sum.dim_IntList, (x, dim, keepdim), "sum", x, dim, keepdim,
                        dtype, "arith.addf", 0.0)


@_lowered(aten.mean.dim)
def _mean(dev, x, dim, keepdim=False, dtype=None):
    return _reduce_last(dev, aten.mean.dim, (x, dim, keepdim), "mean", x, dim, keepdim, dtype,
                        "arith.addf", 0.0, mean=True)


@_lowered(aten.amax.default)
def _amax(dev, x, dim=(), keepdim=False):
    return _reduce_last(dev, aten.amax.default, (x, dim, keepdim), "amax", x, list(dim),
                        keepdim, None, "arith.maximumf", _lowest(x.dtype))


def _lowest(dtype):
    """The most negative finite value of a float dtype (a maximum's starting value)."""
    return -65504.0 if dtype == torch.float16 else -3.0e38


@_lowered(aten.amin.default)
def _amin(dev, x, dim=(), keepdim=False):
    return _reduce_last(dev, aten.amin.default, (x, dim, keepdim), "amin", x, list(dim),
                        keepdim, None, "arith.minimumf", -_lowest(x.dtype))


@_lowered(aten.aminmax.default)
def _aminmax(dev, x, dim=None, keepdim=False):
    dims = [] if dim is None else [dim]
    return _amin(dev, x, dims, keepdim), _amax(dev, x, dims, keepdim)


@_lowered(aten.logsumexp.default)
def _logsumexp(dev, x, dim, keepdim=False):
    """log(sum(exp(x - max))) + max as device ops, as the CPU computes it: an infinite maximum
    is not subtracted (so a row of -inf gives -inf, one holding +inf gives +inf)."""
    if not x.is_floating_point() or x.numel() == 0:
        raise _Refused("logsumexp of no element or of integers")
    if x.dim() == 0:
        return x.clone()
    dims = [d % x.dim() for d in dim] if len(dim) else list(range(x.dim()))
    top = x.amax(dims, keepdim=True)
    top = top.masked_fill(top.isinf(), 0.0)
    out = (x - top).exp().sum(dims, keepdim=True).log() + top
    return out if keepdim else out.reshape([n for d, n in enumerate(x.shape) if d not in dims])


@_lowered(aten.nansum.default)
def _nansum(dev, x, dim=None, keepdim=False, dtype=None):
    """The sum with NaN taken as 0."""
    if not x.is_floating_point() or dtype not in (None, x.dtype):
        raise _Refused("nansum of integers or into another dtype")
    return x.masked_fill(x.isnan(), 0.0).sum(list(dim or ()) or list(range(x.dim())),
                                             keepdim=keepdim)


@_lowered(aten.linalg_vector_norm.default)
def _vector_norm(dev, x, ord=2, dim=None, keepdim=False, dtype=None):
    """The 2-norm m sqrt(sum((x / m)^2)) with m the largest magnitude, the 1-norm sum(|x|)
    and the infinity norm amax(|x|) over `dim` (all dimensions when None); other orders on
    the CPU."""
    if not x.is_floating_point() or dtype not in (None, x.dtype) or x.numel() == 0:
        raise _Refused("a vector norm of no element, of integers or into another dtype")
    dims = list(dim) if dim else list(range(x.dim()))
    if x.dim() == 0:
        return x.abs()
    if ord == 2:
        # scaled by the largest magnitude first, so that the squares do not overflow (f16's
        # largest value is 65504: a norm above 256 would be inf); a largest magnitude of 0
        # or inf divides by 1 (the norm is then 0, or inf, as the CPU's)
        dims = sorted({d % x.dim() for d in dims})
        shape = [1 if d in dims else n for d, n in enumerate(x.shape)] if keepdim else \
            [n for d, n in enumerate(x.shape) if d not in dims]
        if len(dims) == x.dim():  # of the whole tensor: as a vector (its scale one number)
            x, dims = x.reshape(-1), [0]
        top = x.abs().amax(dims, keepdim=True)
        scale = top.masked_fill((top == 0) | top.isinf(), 1.0)
        scaled = x / scale
        return ((scaled * scaled).sum(dims, keepdim=True).sqrt() * scale).reshape(shape)
    if ord == 1:
        return x.abs().sum(dims, keepdim=keepdim)
    if ord == math.inf:
        return x.abs().amax(dims, keepdim=keepdim)
    raise _Refused(f"a vector norm of order {ord}")


@_lowered(aten.norm.ScalarOpt_dim)
def _norm_dims(dev, x, p=2, dim=(), keepdim=False):
    """Tensor.norm(p, dim): the vector norm over `dim`."""
    return _vector_norm(dev, x, 2 if p is None else p, list(dim) or None, keepdim)


@_lowered(aten.norm.Scalar)
def _norm(dev, x, p=2):
    return _vector_norm(dev, x, p)


def _softmax_gradient(dev, aten_op, name, emit_rows, grad, out, dim, input_dtype):
    """The gradient of (log_)softmax along `dim` from the result `out`: emit_rows(g, grad,
    out, element) over rows of the last dimension, another one swapped with it first."""
    element = _element(grad.dtype, dev)
    if element is None or grad.dim() < 1 or input_dtype != grad.dtype or \
            out.dtype != grad.dtype or grad.numel() == 0 or out.shape != grad.shape:
        raise _Refused(f"{name} of this dtype or of no element")
    result = torch.empty(grad.shape, dtype=grad.dtype, device=dev.torch_device)
    dim %= grad.dim()
    _execute(dev, aten_op, (grad, out, dim, input_dtype), {},
             (name, tuple(grad.shape), element, dim), [grad, out], [result],
             _along_last(dim, element, True, dev.kind == "tpu",
                         lambda g, xs: emit_rows(g, xs[0], xs[1], element)))
    return result


@_lowered(aten._log_softmax_backward_data.default)
def _log_softmax_backward(dev, grad, out, dim, input_dtype):
    return _softmax_gradient(dev, aten._log_softmax_backward_data.default,
                             "log_softmax_backward", graph_text.emit_log_softmax_backward,
                             grad, out, dim, input_dtype)


@_lowered(aten._softmax_backward_data.default)
def _softmax_backward(dev, grad, out, dim, input_dtype):
    return _softmax_gradient(dev, aten._softmax_backward_data.default, "softmax_backward",
                             graph_text.emit_softmax_backward, grad, out, dim, input_dtype)


def _variance(dev, x, dim, correction, keepdim):
    """(variance, mean) over `dim` (all dimensions when None) as device ops: the mean, then
    the sum of squared deviations from it (two passes, as the CPU computes it, so that a
    large mean does not swamp a small spread) over the count less `correction` (1 when
    None)."""
    if not x.is_floating_point() or x.numel() == 0:
        raise _Refused("a variance of no element or of integers")
    dims = list(range(x.dim())) if dim is None or len(dim) == 0 else list(dim)
    count = math.prod(x.shape[d] for d in dims) if x.dim() else 1
    mean = x.mean(dims, keepdim=True) if x.dim() else x.clone()
    centred = x - mean
    squares = (centred * centred).sum(dims, keepdim=keepdim) if x.dim() else centred * centred
    # the CPU's divisor, never below 0 (a count of 1 with the default correction: 0 / 0)
    var = squares / max(0, count - (1 if correction is None else correction))
    return var, mean if keepdim or not x.dim() else mean.reshape(var.shape)


@_lowered(aten.var.correction)
def _var(dev, x, dim=None, correction=None, keepdim=False):
    return _variance(dev, x, dim, correction, keepdim)[0]


@_lowered(aten.std.correction)
def _std(dev, x, dim=None, correction=None, keepdim=False):
    return _variance(dev, x, dim, correction, keepdim)[0].sqrt()


@_lowered(aten.var_mean.correction)
def _var_mean(dev, x, dim=None, correction=None, keepdim=False):
    return _variance(dev, x, dim, correction, keepdim)


@_lowered(aten.std_mean.correction)
def _std_mean(dev, x, dim=None, correction=None, keepdim=False):
    var, mean = _variance(dev, x, dim, correction, keepdim)
    return var.sqrt(), mean
