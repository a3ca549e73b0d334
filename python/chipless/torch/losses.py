"""Losses on the emulated devices: nll_loss and nll_loss2d (cross_entropy's second half,
after its log_softmax, over rows, images and sequences) and mse_loss, forward and backward,
each one program, so that a classifier's training step stays on the device and
DeferAndFuse fuses it whole.

nll_loss picks x[i, target[i]] by comparing each class index with the row's target (a
one-hot selection, summed along the classes), which both compilers lower as element-wise
and reduction kernels; neither has integer arithmetic on [N, C] or a gather of single
elements. Integers below 256 are exact in every float type the devices compute in (bf16
keeps 8 significant bits), so class indices are compared digit by digit in base 256. The
targets are read back to the host once per written target tensor (kept with its storage,
chipless::derived), where they are checked as PyTorch's CPU checks them and turned into
those digits and, with class weights or ignored rows, the per-row weights; the selection,
the products and the sums run on the device.
"""
import math

import torch

from chipless.torch import device_constants, graph_text, graph_windows, scalar_rows
from chipless.torch.ops import _Refused, _element, _execute, _lowered, aten

#: Digits of a class index are compared in this base: every float type the devices compute
#: in holds the integers below it exactly.
DIGIT_BASE = 256

REDUCTIONS = ("none", "mean", "sum")  # at::Reduction's order


def _digit_count(classes):
    count, top = 1, DIGIT_BASE
    while classes > top:
        count, top = count + 1, top * DIGIT_BASE
    return count


def _digits_of(values, digit):
    return torch.div(values, DIGIT_BASE ** digit, rounding_mode="floor") % DIGIT_BASE


def _class_row(dev, classes, dtype, digit):
    """The device row [C] of digit `digit` of each class index 0..C-1, made once."""
    return device_constants.constant(
        dev, ("class digits", classes, dtype, digit),
        lambda: _digits_of(torch.arange(classes), digit).to(dtype))


def _kept(t, how, make):
    """make(), kept with t's storage (chipless::derived) until that is written."""
    how = f"{how} {t.storage_offset()} {tuple(t.shape)} {tuple(t.stride())}"
    found = torch.ops.chipless.derived(t, how)
    if found is None:
        found = make()
        torch.ops.chipless.keep_derived(t, how, found)
    return found


class _Targets:
    """What the device needs of one call's targets: per digit a column of the targets'
    digits, and the per-row weights (None when every row counts once), each of the
    targets' shape with a dimension of one appended ([N, 1], [N, H, W, 1]), with the
    weights' total (PyTorch's total_weight)."""

    def __init__(self, dev, target, weight, classes, ignore_index, dtype):
        host = _kept(target, "targets on the host", lambda: target.cpu().reshape(-1))
        ignored = host == ignore_index
        bad = ~ignored & ((host < 0) | (host >= classes))
        if bool(bad.any()):
            raise IndexError(f"Target {int(host[bad][0])} is out of bounds.")
        picked = torch.where(ignored, torch.zeros_like(host), host)
        column = (list(target.shape) or [1]) + [1]  # a value per row, read along the classes
        self.digits = [
            _kept(target, f"nll digit {d} {dtype} ignore {ignore_index}",
                  lambda d=d: _digits_of(picked, d).to(dtype).reshape(column).to(
                      dev.torch_device))
            for d in range(_digit_count(classes))]
        if weight is None and not bool(ignored.any()):
            self.weights, self.total = None, float(host.numel())
            return
        w = torch.ones(classes) if weight is None else _kept(
            weight, "class weights on the host", lambda: weight.detach().cpu().float())
        rows = torch.where(ignored, torch.zeros(()), w[picked])
        self.total = float(rows.sum())
        self.weights = rows.to(dtype).reshape(column).to(dev.torch_device)


class _Operands:
    """An op's device operands with the shape each is read as (a column [N, 1] of per-row
    values, a row [C] of per-class ones), by position."""

    def __init__(self):
        self.tensors, self.shapes = [], []

    def add(self, t, shape):
        self.tensors.append(t)
        self.shapes.append(shape)
        return len(self.tensors) - 1

    def read(self, xs):
        """The (value, shape) pairs emit_elementwise reads, from emit's arguments."""
        return [(v, shape) for (v, _), shape in zip(xs, self.shapes)]


def _nll_operands(dev, target, weight, classes, ignore_index, dtype, ops):
    """The targets' operands added to `ops`: (the _Targets, body(w, e, value) -> `value`
    where the row's target is the element's class, else 0, the position of the per-row
    weights or False when there are none)."""
    targets = _Targets(dev, target, weight, classes, ignore_index, dtype)
    pairs = [(ops.add(column, list(column.shape)),
              ops.add(_class_row(dev, classes, dtype, d), [classes]))
             for d, column in enumerate(targets.digits)]
    weights = targets.weights is not None and ops.add(targets.weights,
                                                      list(targets.weights.shape))

    def selected(w, e, value):
        zero = w.const(0.0)
        for mine, theirs in pairs:
            value = w.select(w.cmp("oeq", e[mine], e[theirs]), value, zero)
        return value
    return targets, selected, weights


def _check_nll(dev, x, target, reduction, images=False):
    """The graph element type of an nll_loss the devices compute; refused otherwise.
    `images`: nll_loss2d's scores [N, C, H, W] and targets [N, H, W]."""
    expected = ((4,) if images else (1, 2))
    if x.dim() not in expected or target.dim() != x.dim() - 1 or x.numel() == 0 or \
            target.dtype not in (torch.int64, torch.int32, torch.uint8) or \
            reduction not in range(len(REDUCTIONS)) or \
            x.dim() >= 2 and list(target.shape) != [x.shape[0]] + list(x.shape[2:]):
        raise _Refused("nll_loss other than of [N, C] or [C] scores (nll_loss2d: [N, C, H, W])"
                       " by class indices")
    element = _element(x.dtype, dev)
    if element is None:
        raise _Refused(f"nll_loss of {x.dtype}")
    return element


class _Rows:
    """The scores an nll_loss reads as rows of classes (`shape`, the classes last): [N, C]
    as it is, [C] as [1, C], nll_loss2d's images [N, C, H, W] as [N, H, W, C] (moved as
    convolutions move them, graph_windows.to_nhwc)."""

    def __init__(self, dev, x, images):
        self.own, self.images, self.lanes = list(x.shape), images, dev.kind == "tpu"
        n = x.shape[0]
        self.shape = [n] + list(x.shape[2:]) + [x.shape[1]] if images else \
            [1, x.shape[0]] if x.dim() == 1 else list(x.shape)
        self.classes = self.shape[-1]

    def rows(self, g, value, element):
        """The scores `value` (of x's shape) in `shape`."""
        if self.images:
            return graph_windows.to_nhwc(g, value, self.own, element, self.lanes)
        return graph_text.reshape(g, value, self.own, self.shape, element)

    def back(self, g, value, element):
        """Values in `shape` (a gradient) in x's shape."""
        if self.images:
            return graph_windows.to_nchw(g, value, self.shape, element, self.lanes)
        return graph_text.reshape(g, value, self.shape, self.own, element)


def _nll_forward(dev, aten_op, args, images):
    """(loss, total_weight): -sum_i w[t_i] x[i, t_i] over rows not ignored, divided by
    total_weight (the sum of those w[t_i]) for `mean`; per row (per pixel) for `none`."""
    x, target, weight, reduction, ignore_index = args
    element = _check_nll(dev, x, target, reduction, images)
    layout = _Rows(dev, x, images)
    shape, classes = layout.shape, layout.classes
    ops = _Operands()
    scores = ops.add(x, list(x.shape))
    targets, selected, weights = _nll_operands(dev, target, weight, classes, ignore_index,
                                               x.dtype, ops)
    per_row = REDUCTIONS[reduction] == "none" and x.dim() >= 2
    # a mean scales each selected score by 1 / total_weight (a row of that number)
    mean = REDUCTIONS[reduction] == "mean" and ops.add(scalar_rows.row(
        1.0 / targets.total if targets.total else float("nan"), classes, x.dtype, dev),
        [classes])
    out = torch.empty(list(target.shape) if per_row else [], dtype=x.dtype,
                      device=dev.torch_device)

    def emit(g, xs):
        def body(w, e):
            value = e[scores]
            for factor in (weights, mean):
                if factor is not False:
                    value = w.op("arith.mulf", value, e[factor])
            return w.op("arith.negf", selected(w, e, value))
        operands = ops.read(xs)
        operands[scores] = (layout.rows(g, xs[scores][0], element), shape)
        v = graph_text.emit_elementwise(g, operands, shape, element, body)
        # summed along the classes: the loss per row
        v = graph_text.emit_reduce_last(g, (v, shape), element, "arith.addf", 0.0)
        now = graph_text.reduced_shape(shape)
        if per_row:
            return [v]
        # then over the rows: on the TPU one dimension at a time (its rows are padded, so
        # they do not merge in place), elsewhere merged into one
        if not layout.lanes:
            count = math.prod(now)
            v, now = graph_text.reshape(g, v, now, [count], element), [count]
        for _ in range(len(now)):
            v = graph_text.emit_reduce_last(g, (v, now), element, "arith.addf", 0.0)
            now = graph_text.reduced_shape(now)
        return [v]
    key = ("nll_loss", tuple(x.shape), element, len(ops.tensors), weights, per_row, mean)
    _execute(dev, aten_op, args, {}, key, ops.tensors, [out], emit)
    total_weight = torch.tensor(targets.total, dtype=x.dtype).to(dev.torch_device)
    return out, total_weight


def _nll_backward(dev, aten_op, args, images):
    """d loss / d x: -w[t_i] * grad (grad_i per row for `none`; / total_weight for `mean`)
    at [i, t_i], 0 elsewhere."""
    grad, x, target, weight, reduction, ignore_index, total_weight = args
    element = _check_nll(dev, x, target, reduction, images)
    if grad.dtype != x.dtype:
        raise _Refused("a gradient of another dtype than the scores'")
    layout = _Rows(dev, x, images)
    shape, classes = layout.shape, layout.classes
    per_row = REDUCTIONS[reduction] == "none" and x.dim() >= 2
    ops = _Operands()
    # grad_output is one number (read as a row) unless per row
    scale = ops.add(grad.reshape(shape[:-1] + [1]), shape[:-1] + [1]) if per_row else \
        ops.add(grad.reshape(1).expand(classes), [classes])
    targets, selected, weights = _nll_operands(dev, target, weight, classes, ignore_index,
                                               x.dtype, ops)
    # total_weight is the forward's, as PyTorch's backward takes it
    mean = REDUCTIONS[reduction] == "mean" and \
        ops.add(total_weight.reshape(1).expand(classes), [classes])
    out = torch.empty(x.shape, dtype=x.dtype, device=dev.torch_device)

    def emit(g, xs):
        def body(w, e):
            value = w.op("arith.negf", e[scale])
            if weights is not False:
                value = w.op("arith.mulf", value, e[weights])
            if mean is not False:
                value = w.op("arith.divf", value, e[mean])
            return selected(w, e, value)
        grads = graph_text.emit_elementwise(g, ops.read(xs), shape, element, body)
        return [layout.back(g, grads, element)]
    key = ("nll_loss_backward", tuple(x.shape), element, len(ops.tensors), weights, per_row,
           mean)
    _execute(dev, aten_op, args, {}, key, ops.tensors, [out], emit)
    return out


@_lowered(aten.nll_loss_forward.default)
def _nll_loss_forward(dev, *args):
    return _nll_forward(dev, aten.nll_loss_forward.default, args, False)


@_lowered(aten.nll_loss_backward.default)
def _nll_loss_backward(dev, *args):
    return _nll_backward(dev, aten.nll_loss_backward.default, args, False)


@_lowered(aten.nll_loss2d_forward.default)
def _nll_loss2d_forward(dev, *args):
    """nll_loss2d (cross_entropy over images, and over [N, C, d1, ...] which PyTorch views
    as [N, C, 1, d1 ...]): the classes moved last in the program."""
    return _nll_forward(dev, aten.nll_loss2d_forward.default, args, True)


@_lowered(aten.nll_loss2d_backward.default)
def _nll_loss2d_backward(dev, *args):
    return _nll_backward(dev, aten.nll_loss2d_backward.default, args, True)


def _check_mse(dev, x, y, reduction):
    """The graph element type of an mse_loss the devices compute; refused otherwise."""
    element = _element(x.dtype, dev)
    if element is None or y.dtype != x.dtype or y.shape != x.shape or x.numel() == 0 or \
            reduction not in range(len(REDUCTIONS)):
        raise _Refused("mse_loss other than of two tensors of one shape and float dtype")
    return element


@_lowered(aten.mse_loss.default)
def _mse_loss(dev, x, y, reduction=1):
    """(x - y)^2, summed or averaged over every element unless `none`."""
    element = _check_mse(dev, x, y, reduction)
    shape, count = list(x.shape) or [1], x.numel()
    per_element = REDUCTIONS[reduction] == "none"
    out = torch.empty(x.shape if per_element else [], dtype=x.dtype, device=dev.torch_device)

    def emit(g, xs):
        def body(w, e):
            d = w.op("arith.subf", e[0], e[1])
            return w.op("arith.mulf", d, d)
        squares = graph_text.emit_elementwise(g, xs, shape, element, body)
        if per_element:
            return [squares]
        # summed one dimension at a time from the last (a merge into one would be a copy
        # on the TPU, whose rows are padded); a mean's scale fuses with the first sum
        scale = 1.0 / count if REDUCTIONS[reduction] == "mean" else None
        v, now = squares, shape
        for _ in shape:
            v = graph_text.emit_reduce_last(g, (v, now), element, "arith.addf", 0.0, scale)
            now, scale = graph_text.reduced_shape(now), None
        return [v]
    _execute(dev, aten.mse_loss.default, (x, y, reduction), {},
             ("mse_loss", tuple(shape), element, reduction), [x, y], [out], emit)
    return out


@_lowered(aten.mse_loss_backward.default)
def _mse_loss_backward(dev, grad, x, y, reduction):
    """d loss / d x: 2 (x - y) grad, / the element count for `mean`."""
    element = _check_mse(dev, x, y, reduction)
    if grad.dtype != x.dtype:
        raise _Refused("a gradient of another dtype than the inputs'")
    shape = list(x.shape) or [1]
    per_element = REDUCTIONS[reduction] == "none"
    factor = 2.0 / x.numel() if REDUCTIONS[reduction] == "mean" else 2.0
    # grad_output is one number (read as a row of the last dimension) unless per element
    g_operand = grad if per_element else grad.reshape(1).expand(shape[-1])
    out = torch.empty(x.shape, dtype=x.dtype, device=dev.torch_device)

    def emit(g, xs):
        def body(w, e):
            d = w.op("arith.subf", e[0], e[1])
            return w.op("arith.mulf", w.op("arith.mulf", d, w.const(factor)), e[2])
        return [graph_text.emit_elementwise(g, xs, shape, element, body)]
    _execute(dev, aten.mse_loss_backward.default, (grad, x, y, reduction), {},
             ("mse_loss_backward", tuple(shape), element, reduction), [x, y, g_operand], [out],
             emit)
    return out
