"""The tensor-graph text of the window ops (docs/graph-ir.md): PyTorch's NCHW images and
[F, C, KH, KW] filters permuted to the graph form's NHWC and [KH, KW, C, F], padding,
linalg.conv_2d_nhwc_hwcf and the poolings. `lanes` selects the permutations for a chip that
pads every innermost dimension to its vector lanes (the TPU): they never merge H and W.
"""
from chipless.torch.graph_text import emit_elementwise, literal, tensor_type, transpose


def conv_output(size, kernel, stride, padding, dilation):
    """The output length of a convolution or pooling window along one dimension."""
    return (size + 2 * padding - dilation * (kernel - 1) - 1) // stride + 1


def _permute3(g, value, shape, merge, perm, split, to_shape, element):
    """A rank-4 permutation done as rank 3: `value` of `shape` collapsed by the groups
    `merge`, permuted by `perm`, expanded by the groups `split` to `to_shape`."""
    merged = [1] * len(merge)
    for i, group in enumerate(merge):
        for d in group:
            merged[i] *= shape[d]
    flat = g.collapse(value, shape, merge, merged, element)
    flat = transpose(g, flat, merged, perm, element)
    return g.expand(flat, [merged[p] for p in perm], split, to_shape, element)


def to_nhwc(g, value, shape, element, lanes=False):
    """NCHW `value` of `shape` permuted to NHWC: through rank 3, the spatial dimensions merged,
    which the Spyre front end's re-layout divides over its cores; or with `lanes` (a chip
    that pads every innermost dimension to its vector lanes, the TPU, where H and W do not
    merge in place) as [N, H, C, W] (a view) with its last two dimensions swapped."""
    n, c, h, w = shape
    if lanes:
        rows = transpose(g, value, shape, [0, 2, 1, 3], element)
        return transpose(g, rows, [n, h, c, w], [0, 1, 3, 2], element)
    return _permute3(g, value, shape, [[0], [1], [2, 3]], [0, 2, 1], [[0], [1, 2], [3]],
                     [n, h, w, c], element)


def to_nchw(g, value, shape, element, lanes=False):
    """NHWC `value` of `shape` permuted back to NCHW (with `lanes` as to_nhwc: its last two
    dimensions swapped, [N, H, C, W], then viewed as NCHW)."""
    n, h, w, c = shape
    if lanes:
        rows = transpose(g, value, shape, [0, 1, 3, 2], element)
        return transpose(g, rows, [n, h, c, w], [0, 2, 1, 3], element)
    return _permute3(g, value, shape, [[0], [1, 2], [3]], [0, 2, 1], [[0], [1], [2, 3]],
                     [n, c, h, w], element)


def _pad(g, value, shape, low, high, fill, element):
    """Rank-4 `value` of `shape` padded by `low` and `high` elements per dimension with the
    constant `fill` (tensor.pad): (value, shape)."""
    padded = [s + a + b for s, a, b in zip(shape, low, high)]
    constant, out = g.value(), g.value()
    g.line(f"{constant} = arith.constant {literal(fill, element)} : {element}")
    g.line(f"{out} = tensor.pad {value} low{list(low)} high{list(high)} {{")
    g.line("^bb0(%p0: index, %p1: index, %p2: index, %p3: index):")
    g.line(f"  tensor.yield {constant} : {element}")
    g.line(f"}} : {tensor_type(shape, element)} to {tensor_type(padded, element)}")
    return out, padded


def pad_spatial(g, value, shape, padding, fill, element):
    """NHWC `value` of `shape` padded by padding = [ph, pw] on both sides of H and W with the
    constant `fill` (tensor.pad): (value, shape)."""
    low = [0, padding[0], padding[1], 0]
    return _pad(g, value, shape, low, low, fill, element)


def pad_channels(g, value, shape, channels, element, dim=1):
    """NCHW `value` (or filters [F, C, KH, KW]) of `shape` with zero channels appended up to
    `channels` (dimension `dim`, 1 or for filters [KH, KW, C, F] 2; never the innermost):
    (value, shape)."""
    high = [0] * 4
    high[dim] = channels - shape[dim]
    return _pad(g, value, shape, [0] * 4, high, 0.0, element)


def _window_attributes(stride, dilation):
    return (f"{{dilations = dense<{list(dilation)}> : tensor<2xi64>, "
            f"strides = dense<{list(stride)}> : tensor<2xi64>}}")


def filters_hwcf(g, value, shape, element, lanes=False, channels=None):
    """PyTorch's filters [F, C, KH, KW] permuted to the graph form's [KH, KW, C, F]: through
    rank 3, KH and KW merged; or with `lanes` (as to_nhwc) viewed as [C, KH, F, KW] (a view),
    its last two dimensions swapped, and that [C, KH, KW, F] permuted to [KH, KW, C, F].
    With `channels`, zero channels are appended up to that many first (pad_channels)."""
    if channels is not None and channels != shape[1]:
        value, shape = pad_channels(g, value, shape, channels, element)
    f, c, kh, kw = shape
    if lanes:
        view = transpose(g, value, shape, [1, 2, 0, 3], element)
        chwf = transpose(g, view, [c, kh, f, kw], [0, 1, 3, 2], element)
        return transpose(g, chwf, [c, kh, kw, f], [1, 2, 0, 3], element)
    return _permute3(g, value, shape, [[0], [1], [2, 3]], [2, 1, 0], [[0, 1], [2], [3]],
                     [kh, kw, c, f], element)


def emit_conv2d(g, x, w, bias, stride, padding, dilation, element, lanes=False, nhwc=False):
    """PyTorch's conv2d on NCHW `x` and filters `w` already permuted to [KH, KW, C, F]
    (filters_hwcf) ((value, shape) each; `bias` one too, or None) as the graph form has it:
    the image permuted to NHWC (to_nhwc, `lanes` as there), padded with zeros (tensor.pad),
    linalg.conv_2d_nhwc_hwcf, the bias added per output channel, permuted back to NCHW
    (left NHWC with `nhwc`). Filters with more channels than the image (zeros appended,
    filters_hwcf) have the image's channels padded with zeros to match."""
    (xv, (n, c, h, wd)), (filters, (kh, kw, cf, f)) = x, w
    if cf != c:
        xv, _ = pad_channels(g, xv, [n, c, h, wd], cf, element)
        c = cf
    image, shape = to_nhwc(g, xv, [n, c, h, wd], element, lanes), [n, h, wd, c]
    if any(padding):
        image, shape = pad_spatial(g, image, shape, padding, 0.0, element)
    oh = conv_output(h, kh, stride[0], padding[0], dilation[0])
    ow = conv_output(wd, kw, stride[1], padding[1], dilation[1])
    out_shape = [n, oh, ow, f]
    zero = g.fill(0.0, out_shape, element)
    conv = g.value()
    out_type = tensor_type(out_shape, element)
    g.line(f"{conv} = linalg.conv_2d_nhwc_hwcf {_window_attributes(stride, dilation)} "
           f"ins({image}, {filters} : {tensor_type(shape, element)}, "
           f"{tensor_type([kh, kw, c, f], element)}) outs({zero} : {out_type}) -> {out_type}")
    if bias is not None:
        conv = emit_elementwise(g, [(conv, out_shape), bias], out_shape, element,
                                lambda b, v: b.op("arith.addf", v[0], v[1]))
    return conv if nhwc else to_nchw(g, conv, out_shape, element, lanes)


def emit_pool2d(g, x, kind, kernel, stride, padding, dilation, element, divisor=None,
                lanes=False):
    """Max pooling (`kind` "max", padded with -inf) or average pooling ("avg", padded with
    zeros, the window sums divided by `divisor`, by default the window's size) of NCHW `x`
    ((value, shape)), as PyTorch's max_pool2d and avg_pool2d: permuted to NHWC (to_nhwc,
    `lanes` as there), linalg.pooling_nhwc_max or _sum, permuted back."""
    xv, (n, c, h, w) = x
    kh, kw = kernel
    fill = float("-inf") if kind == "max" else 0.0
    image, shape = to_nhwc(g, xv, [n, c, h, w], element, lanes), [n, h, w, c]
    if any(padding):
        image, shape = pad_spatial(g, image, shape, padding, fill, element)
    out_shape = [n, conv_output(h, kh, stride[0], padding[0], dilation[0]),
                 conv_output(w, kw, stride[1], padding[1], dilation[1]), c]
    init = g.fill(fill, out_shape, element)
    window = g.empty([kh, kw], element)
    pooled = g.value()
    out_type = tensor_type(out_shape, element)
    g.line(f"{pooled} = linalg.pooling_nhwc_{'max' if kind == 'max' else 'sum'} "
           f"{_window_attributes(stride, dilation)} ins({image}, {window} : "
           f"{tensor_type(shape, element)}, {tensor_type([kh, kw], element)}) "
           f"outs({init} : {out_type}) -> {out_type}")
    if kind == "avg":
        scale = 1.0 / (divisor or kh * kw)
        pooled = emit_elementwise(g, [(pooled, out_shape)], out_shape, element,
                                  lambda b, v: b.op("arith.mulf", v[0], b.const(scale)))
    return to_nchw(g, pooled, out_shape, element, lanes)
