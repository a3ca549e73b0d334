"""The ops Spyre's front end lowers through its window, concatenation and gather kernels:
2-d convolutions (unfold + matmul), pooling, batch normalisation in inference form, `cat`,
`index_select` and `repeat_interleave`. tpu-compile has `cat` (each part written into its
slice), `index_select` (a DMA per gathered row), `repeat_interleave` (a broadcast),
convolutions (matmuls over the taps' strided slices), pooling (maxima or sums over strided
slices) and batch normalisation. Registered like the ops of
chipless.torch.ops, whose registry and helpers they use.
"""
import functools
import math

import torch
import torch.nn.functional as F

import chipless

from chipless.torch import (device_constants, eager, execution, graph_text, graph_windows,
                            kept_copies)
from chipless.torch.ops import (_Refused, _autograd_lib, _device_of, _element, _execute,
                                _lib, _lowered, aten, on_cpu)
from chipless.torch.reductions import reduction


# ---- convolutions ------------------------------------------------------------------------------
# A convolution on a backend other than CPU and CUDA reaches convolution_overrideable, for
# which the CPU has no kernel: what is not lowered runs ATen's own convolution on the host.

def _pads_lanes(dev):
    """Whether `dev` lays every tensor's innermost dimension out padded to its vector lanes
    (the TPU): an image's H and W, or a filter's KH and KW, then do not merge in place, and
    the graphs permute them without merging (graph_windows.to_nhwc)."""
    return dev.kind == "tpu"


def _matmul_channels(dev, c, taps, element_size):
    """The channels a convolution of `taps` filter positions over `c` channels computes with
    on `dev`: tpu-compile concatenates the taps' slices of the NHWC image along the channels,
    read in place, when each tap's channels are whole DMA runs (dma.alignment_bytes), and
    makes one matmul per tap otherwise; there zero channels are appended to image and filters
    (an RGB image's 3 become 8 in f32). `c` elsewhere."""
    if not _pads_lanes(dev) or taps == 1:
        return c
    align = _dma_alignment(dev.arch, dev.sets)
    return -(-c * element_size // align) * align // element_size


@functools.lru_cache(maxsize=None)
def _dma_alignment(arch, sets):
    return int(chipless.arch(arch, sets)["params"]["dma.alignment_bytes"]["value"])


def _convolution(x, weight, bias, stride, padding, dilation, transposed, output_padding,
                 groups):
    """A 2-d convolution on the device: Spyre's front end unfolds it into a matmul,
    tpu-compile makes it a matmul over its taps' strided slices; a transposed or grouped one,
    or one of another type, on the CPU."""
    args = (x, weight, bias, stride, padding, dilation, transposed, output_padding, groups)
    dev = _device_of(x, weight)
    element = _element(x.dtype, dev)
    reason = ("a transposed or grouped convolution" if transposed or groups != 1 else
              "not a 2-d convolution" if x.dim() != 4 or weight.dim() != 4 else
              f"{x.dtype} convolutions" if element is None or weight.dtype != x.dtype else
              None)
    if reason is not None:
        return on_cpu(aten.convolution.default, args, {}, dev, reason)
    stride, padding, dilation = list(stride), list(padding), list(dilation)
    n, _, h, w = x.shape
    f, c, kh, kw = weight.shape
    lanes = _pads_lanes(dev)
    channels = _matmul_channels(dev, c, kh * kw, x.element_size())
    # the filters as the matmul reads them, [KH KW C, F]: kept with the weight
    filters = kept_copies.kept_copy(
        dev, weight, f"filters hwcf {channels}", [kh, kw, channels, f],
        lambda g, v, shape, e: graph_windows.filters_hwcf(g, v, shape, e, lanes, channels),
        lambda h: F.pad(h, (0, 0, 0, 0, 0, channels - c)).permute(2, 3, 1, 0))
    out_shape = [n, f, graph_windows.conv_output(h, kh, stride[0], padding[0], dilation[0]),
                 graph_windows.conv_output(w, kw, stride[1], padding[1], dilation[1])]
    operands = [x, filters] + ([bias.to(x.dtype)] if bias is not None else [])
    out = torch.empty(out_shape, dtype=x.dtype, device=dev.torch_device)
    key = ("conv2d", tuple(x.shape), tuple(weight.shape), bias is not None, tuple(stride),
           tuple(padding), tuple(dilation), element)

    def emit(g, xs):
        return [graph_windows.emit_conv2d(g, xs[0], xs[1], xs[2] if len(xs) == 3 else None,
                                       stride, padding, dilation, element, lanes)]
    execution.execute(dev, eager.Op(key, operands, [out], emit, aten.convolution.default,
                                    args, {}))
    return out


_lib.impl("convolution_overrideable", _convolution)  # the gradients: conv_grad.py


# ---- pooling, batch normalisation (both chips) --------------------------------------------------

def _float_element(dev, x, what):
    """x's graph element type, or _Refused unless a float tensor of the device's compiler."""
    element = _element(x.dtype, dev)
    if element is None:
        raise _Refused(f"{what} of {x.dtype}")
    return element


def _pair(v):
    v = list(v) if isinstance(v, (list, tuple)) else [v]
    return v * 2 if len(v) == 1 else v


def _pool2d(dev, aten_op, args, kind, x, kernel, stride, padding, dilation, ceil_mode,
            divisor=None):
    element = _float_element(dev, x, f"{kind} pooling")
    kernel = _pair(kernel)
    stride = _pair(stride) if stride else kernel
    padding, dilation = _pair(padding), _pair(dilation)
    if x.dim() != 4:
        raise _Refused("pooling of a tensor that is not NCHW")
    n, c, h, w = x.shape
    out_shape = [n, c] + [graph_windows.conv_output(size, k, s, p, d) for size, k, s, p, d in
                          zip((h, w), kernel, stride, padding, dilation)]
    if ceil_mode and any((size + 2 * p - d * (k - 1) - 1) % s for size, k, s, p, d in
                         zip((h, w), kernel, stride, padding, dilation)):
        raise _Refused("ceil_mode with a partial last window")
    out = torch.empty(out_shape, dtype=x.dtype, device=dev.torch_device)
    key = (f"{kind}_pool2d", tuple(x.shape), tuple(kernel), tuple(stride), tuple(padding),
           tuple(dilation), divisor, element)
    _execute(dev, aten_op, args, {}, key, [x], [out],
             lambda g, xs: [graph_windows.emit_pool2d(g, xs[0], kind, kernel, stride, padding,
                                                   dilation, element, divisor,
                                                   _pads_lanes(dev))])
    return out


@_lowered(aten.avg_pool2d.default)
def _avg_pool2d(dev, x, kernel_size, stride=(), padding=0, ceil_mode=False,
                count_include_pad=True, divisor_override=None):
    args = (x, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)
    if not count_include_pad and any(_pair(padding)):
        raise _Refused("average pooling that leaves the padding out of the count")
    return _pool2d(dev, aten.avg_pool2d.default, args, "avg", x, kernel_size, stride, padding,
                   1, ceil_mode, divisor_override)


@_lowered(aten._adaptive_avg_pool2d.default)
def _adaptive_avg_pool2d(dev, x, output_size):
    """An average pool whose windows divide the image evenly (ResNet's global pool reaches
    mean.dim instead); uneven windows on the CPU."""
    size = _pair(output_size)
    if x.dim() != 4 or x.shape[2] % size[0] or x.shape[3] % size[1]:
        raise _Refused("adaptive pooling into windows of different sizes")
    kernel = [x.shape[2] // size[0], x.shape[3] // size[1]]
    return _pool2d(dev, aten._adaptive_avg_pool2d.default, (x, output_size), "avg", x, kernel,
                   kernel, 0, 1, False)


def _max_pool2d(x, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """max_pool2d, PyTorch's composite of max_pool2d_with_indices that drops the indices:
    on the device when autograd does not need them (no gradient is taken through x), else
    through max_pool2d_with_indices, whose backward reads them (on the CPU)."""
    args = (x, kernel_size, stride, padding, dilation, ceil_mode)
    if torch.is_grad_enabled() and x.requires_grad:
        return aten.max_pool2d_with_indices.default(*args)[0]
    dev = _device_of(x)
    try:
        return _pool2d(dev, aten.max_pool2d.default, args, "max", x, kernel_size, stride,
                       padding, dilation, ceil_mode)
    except _Refused as e:
        return on_cpu(aten.max_pool2d.default, args, {}, dev, str(e))


# max_pool2d is CompositeImplicitAutograd: a kernel for the backend alone would take autograd
# out of its path, so the autograd key has one too, which keeps it where a gradient is needed.
_lib.impl("max_pool2d", _max_pool2d)
_autograd_lib.impl("max_pool2d", _max_pool2d)


@_lowered(aten.native_batch_norm.default)
def _batch_norm(dev, x, weight, bias, running_mean, running_var, training, momentum, eps):
    """Inference form (running statistics given) and training form (the batch's statistics,
    the running ones updated) on the device; an empty input launches nothing."""
    if x.numel() == 0:
        return _empty_batch_norm(dev, x, running_mean, running_var, training, momentum)
    element = _float_element(dev, x, "batch normalisation")
    if not 2 <= x.dim() <= 4:
        raise _Refused(f"batch normalisation of a rank-{x.dim()} tensor")
    params = [p for p in (running_mean, running_var, weight, bias) if p is not None]
    if any(p.dtype != x.dtype or p.device != x.device for p in params):
        raise _Refused("statistics or parameters of another dtype or device")
    args = (x, weight, bias, running_mean, running_var, training, momentum, eps)
    if training:
        return _batch_norm_training(dev, args, element)
    if running_mean is None or running_var is None:
        raise _Refused("inference form without running statistics")  # the CPU's error
    out = torch.empty(x.shape, dtype=x.dtype, device=dev.torch_device)
    key = ("batch_norm", tuple(x.shape), weight is not None, bias is not None, eps, element)

    def emit(g, xs):
        it = iter(v for v, _ in xs[1:])
        mean, var = next(it), next(it)
        w = next(it) if weight is not None else None
        b = next(it) if bias is not None else None
        return [graph_text.emit_batch_norm(g, xs[0], mean, var, w, b, eps, element)]
    _execute(dev, aten.native_batch_norm.default, args, {}, key, [x, *params], [out], emit)
    empty = torch.empty([0], dtype=x.dtype, device=dev.torch_device)
    return out, empty, empty.clone()


def _batch_norm_training(dev, args, element):
    """Batch normalisation with the batch's statistics, in one program: the mean per channel
    (dimension 1) over the others, the variance as the mean of the squared deviations from it
    (two passes, as the CPU computes it), y normalised by them; outputs y, the mean, 1 /
    sqrt(variance + eps) and the unbiased variance, with which the running statistics given
    are then moved by `momentum` (device ops)."""
    x, weight, bias, running_mean, running_var, _, momentum, eps = args
    shape, c = list(x.shape), x.shape[1]
    count = x.numel() // c
    if count < 2:
        raise _Refused("batch statistics of one value per channel")
    dims = [0] + list(range(2, x.dim()))
    mean_of, _ = reduction(x.dim(), dims, element, "arith.addf", 0.0, mean=True)
    new = lambda s: torch.empty(s, dtype=x.dtype, device=dev.torch_device)  # noqa: E731
    out, mean, invstd, unbiased = new(shape), new([c]), new([c]), new([c])

    def emit(g, xs):
        xv = xs[0][0]
        it = iter(v for v, _ in xs[1:])
        w = next(it) if weight is not None else None
        b = next(it) if bias is not None else None
        m = mean_of(g, [(xv, shape)])[0]
        # x - mean: a batch norm by a variance of 1 with no epsilon (a scale of exactly 1)
        centred = graph_text.emit_batch_norm(g, (xv, shape), m, g.fill(1.0, [c], element),
                                             None, None, 0.0, element)
        squares = graph_text.emit_elementwise(g, [(centred, shape)], shape, element,
                                              lambda wr, e: wr.op("arith.mulf", e[0], e[0]))
        var = mean_of(g, [(squares, shape)])[0]
        y = graph_text.emit_batch_norm(g, (xv, shape), m, var, w, b, eps, element)
        inv = graph_text.emit_elementwise(
            g, [(var, [c])], [c], element,
            lambda wr, e: graph_text.rstd_of_variance(wr, e, eps))
        unb = graph_text.emit_elementwise(
            g, [(var, [c])], [c], element,
            lambda wr, e: wr.op("arith.mulf", e[0], wr.const(count / (count - 1))))
        return [y, m, inv, unb]

    def reference(hx, *hp):
        it = iter(hp)
        w = next(it) if weight is not None else None
        b = next(it) if bias is not None else None
        y, m, inv = torch.native_batch_norm(hx, w, b, None, None, True, momentum, eps)
        return [y, m, inv, hx.var(dims, unbiased=True)]
    params = [p for p in (weight, bias) if p is not None]
    execution.execute(dev, eager.Op(
        ("batch_norm_training", tuple(shape), weight is not None, bias is not None, eps,
         element), [x, *params], [out, mean, invstd, unbiased], emit,
        aten.native_batch_norm.default, args, {}, reference=reference))
    if running_mean is not None:
        running_mean.mul_(1 - momentum).add_(mean, alpha=momentum)
    if running_var is not None:
        running_var.mul_(1 - momentum).add_(unbiased, alpha=momentum)
    return out, mean, invstd


def _empty_batch_norm(dev, x, running_mean, running_var, training, momentum):
    """Batch normalisation of an input with no element, as PyTorch's CPU computes it where it
    can: an empty result; in training form NaN batch statistics, the running mean moved
    towards NaN and the running variance by a variance sum of 0. PyTorch 1.13's CPU kernel
    itself divides by zero (SIGFPE, the process dies) on a batch or channel count of 0, which
    group_norm of an empty batch reaches here through its composite (batch_norm over
    [1, N G, -1])."""
    out = torch.empty(x.shape, dtype=x.dtype, device=dev.torch_device)
    if not training:
        empty = torch.empty([0], dtype=x.dtype, device=dev.torch_device)
        return out, empty, empty.clone()
    stats = torch.full([x.shape[1]], math.nan, dtype=x.dtype, device=dev.torch_device)
    if running_mean is not None:
        running_mean.mul_(1 - momentum).add_(stats, alpha=momentum)
    if running_var is not None:
        running_var.mul_(1 - momentum)
    return out, stats, stats.clone()


# ---- concatenation (both chips) and row gathers (Spyre) ---------------------------------------

@_lowered(aten.cat.default)
def _cat(dev, tensors, dim=0):
    parts = [t for t in tensors if not (t.dim() == 1 and t.numel() == 0)]  # legacy empties
    if not parts:
        raise _Refused("nothing to concatenate")
    # both chips: Spyre's front end copies the parts, tpu-compile writes each in place
    element = _float_element(dev, parts[0], "concatenation")
    dim = dim % parts[0].dim()
    if any(t.dtype != parts[0].dtype or t.dim() != parts[0].dim() for t in parts):
        raise _Refused("parts of different dtypes or ranks")
    if len(parts) == 1:
        raise _Refused("a concatenation of one tensor (a copy)")
    shape = list(parts[0].shape)
    shape[dim] = sum(t.shape[dim] for t in parts)
    out = torch.empty(shape, dtype=parts[0].dtype, device=dev.torch_device)
    key = ("cat", tuple(tuple(t.shape) for t in parts), dim, element)
    _execute(dev, aten.cat.default, (tensors, dim), {}, key, parts, [out],
             lambda g, xs: [graph_text.emit_concat(g, xs, dim, element)])
    return out


@_lowered(aten.index_select.default)
def _index_select(dev, table, dim, index):
    """Slices of a tensor along `dim` by a vector of indices, where nothing lies before `dim`
    but dimensions of 1: rows of a matrix (an embedding lookup), heads of [1, H, S, D]
    (grouped-query attention's repeated keys), read as the rows of [N, rest] gathered; a
    vector's elements as the rows of [N, 1]. Spyre's front end and tpu-compile gather them by
    DMA, a row per index. The indices are checked first, as PyTorch's CPU checks them
    (_index_range): Spyre's gather would read whatever lies past the table, the TPU's clamps."""
    element = _float_element(dev, table, "index_select")
    dim = dim % max(table.dim(), 1)
    if table.dim() < 1 or any(d != 1 for d in table.shape[:dim]) or index.dim() != 1 or \
            index.dtype not in (torch.int64, torch.int32) or index.numel() == 0:
        raise _Refused("index_select other than of slices along the first dimension (of size "
                       "more than 1) by a vector of indices")
    low, high = _index_range(index)
    if low < 0 or high >= table.shape[dim]:
        raise IndexError("index out of range in self")
    shape = list(table.shape)
    rows = [shape[dim], math.prod(shape[dim + 1:])]
    out_shape = shape[:dim] + [index.numel()] + shape[dim + 1:]
    out = torch.empty(out_shape, dtype=table.dtype, device=dev.torch_device)
    key = ("gather_rows", tuple(shape), dim, index.numel(), element)

    def emit(g, xs):
        matrix = graph_text.reshape(g, xs[0][0], shape, rows, element)
        gathered = graph_text.emit_gather_rows(g, (matrix, rows), xs[1], element)
        return [graph_text.reshape(g, gathered, [index.numel(), rows[1]], out_shape, element)]
    _execute(dev, aten.index_select.default, (table, dim, index), {}, key, [table, index], [out],
             emit)
    return out


def _index_range(index):
    """The least and the greatest of a device vector of indices: read back the first time,
    then kept with its storage until that is written (chipless::derived), so indices used
    again (a repeat's, positions) cost no transfer and leave a deferred graph recording."""
    how = f"index range {index.storage_offset()} {index.numel()} {index.stride(0)}"
    found = torch.ops.chipless.derived(index, how)
    if found is None:
        values = index.cpu()
        found = torch.tensor([int(values.min()), int(values.max())])
        torch.ops.chipless.keep_derived(index, how, found)
    return int(found[0]), int(found[1])


def _repeat_interleave(x, repeats, dim=None, output_size=None):
    """x.repeat_interleave(n, dim) as index_select by [0]*n + [1]*n + ... (a device tensor
    made once per size and count): on Spyre a gather, and autograd through index_select's
    own backward. PyTorch's composite builds that index with ops that run on the CPU. On the
    TPU, which has no gather, as a broadcast: x viewed with a new dimension of n after `dim`,
    expanded (stride 0, read n times by one copy program) and merged into `dim`; autograd
    through the views (the gradient sums over the copies)."""
    if dim is None:
        x, dim = x.reshape(-1), 0
    dim = dim % x.dim()
    dev = _device_of(x)
    if dev.kind == "tpu":
        shape = list(x.shape)
        expanded = shape[:dim + 1] + [repeats] + shape[dim + 1:]
        merged = shape[:dim] + [shape[dim] * repeats] + shape[dim + 1:]
        return x.unsqueeze(dim + 1).expand(expanded).reshape(merged)
    index = device_constants.constant(
        dev, ("repeat index", x.shape[dim], repeats),
        lambda: torch.arange(x.shape[dim]).repeat_interleave(repeats))
    return aten.index_select.default(x, dim, index)


# CompositeImplicitAutograd, so the autograd key has the kernel too (index_select then
# records the backward).
_lib.impl("repeat_interleave.self_int", _repeat_interleave)
_autograd_lib.impl("repeat_interleave.self_int", _repeat_interleave)


