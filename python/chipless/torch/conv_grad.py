"""The gradients of a 2-d convolution (convolution_backward) on the emulated devices, each a
convolution itself, in the graph form's linalg.conv_2d_nhwc_hwcf as the forward is:

- the filters' gradient dW[f, c, kh, kw] = sum over n, oh, ow of g[n, f, oh, ow] *
  x_padded[n, c, oh s + kh d, ow s + kw d]: the image's channels taken as the batch and its
  batch as the channels, convolved with the output gradient as the filters ([OH, OW, N, F]),
  at stride d and dilation s (the forward's swapped), on the TPU; on Spyre the image
  unfolded by a convolution of ones and zeros, times the output gradient (a matmul);
- the input's gradient: the output gradient, spread to stride 1 when strided (its values
  s apart, zeros between, by a matmul with a matrix of ones and zeros along W and then H),
  padded by d (K - 1) - p and convolved with the filters with their F and C swapped and
  flipped in KH and KW (a gather of their rows, tap by tap, in reverse);
- the bias's gradient: the output gradient summed per channel.

On the CPU, counted, as before: a transposed or grouped convolution; the input's gradient of
a padding beyond d (K - 1); what a compiler refuses.
"""
import torch

from chipless.torch import device_constants, eager, execution, graph_text, graph_windows
from chipless.torch.ops import _device_of, _element, _lib, aten, on_cpu
from chipless.torch.reductions import reduction
from chipless.torch.window_ops import _matmul_channels, _pads_lanes

def _flip_rows(dev, taps, channels):
    """Device indices [KH KW C] of the rows of filters [KH KW C, F] with their taps reversed
    (kh, kw) -> (KH - 1 - kh, KW - 1 - kw), each tap's C rows in order; made once."""
    def make():
        rows = torch.arange(taps * channels, dtype=torch.int32)
        tap, channel = rows // channels, rows % channels
        return (taps - 1 - tap) * channels + channel
    return device_constants.constant(dev, ("flipped taps", taps, channels), make)


def _unfold_filters(dev, c, kh, kw, dtype):
    """Filters [KH, KW, C, C KH KW] of ones and zeros whose convolution is the unfold of an
    image: output channel (c, kh, kw) is input channel c at tap (kh, kw); made once."""
    def make():
        eye = torch.eye(c * kh * kw, dtype=dtype).reshape(c, kh, kw, c * kh * kw)
        return eye.permute(1, 2, 0, 3).contiguous()
    return device_constants.constant(dev, ("unfold", c, kh, kw, dtype), make)


def _weight_grad_unfolded(dev, grad, x, weight, stride, padding, dilation, element):
    """dW as Spyre's front end computes a convolution (Spyre): the image unfolded (a
    convolution by _unfold_filters: each value times one) into rows [N OH OW, C KH KW],
    transposed, times the output gradient made NHWC with its positions merged
    ([N OH OW, F]); the product [C KH KW, F] transposed. The direct form (_weight_grad) is a
    convolution of OH OW taps, which the front end unfolds box by box (98 s to compile for a
    16 x 16 output)."""
    n, c, h, w = x.shape
    f, _, kh, kw = weight.shape
    _, _, oh, ow = grad.shape
    m, depth = n * oh * ow, c * kh * kw
    unfold = _unfold_filters(dev, c, kh, kw, x.dtype)
    out = torch.empty(weight.shape, dtype=x.dtype, device=dev.torch_device)

    def emit(g, xs):
        (xv, _), (gv, _), (uv, _) = xs
        cols = graph_windows.emit_conv2d(g, (xv, [n, c, h, w]), (uv, [kh, kw, c, depth]),
                                         None, stride, padding, dilation, element, nhwc=True)
        cols = graph_text.reshape(g, cols, [n, oh, ow, depth], [m, depth], element)
        cols = graph_text.transpose(g, cols, [m, depth], [1, 0], element)
        rows = graph_windows.to_nhwc(g, gv, [n, f, oh, ow], element)
        rows = graph_text.reshape(g, rows, [n, oh, ow, f], [m, f], element)
        dwt = graph_text.emit_matmul(g, (cols, [depth, m]), (rows, [m, f]), element)
        dw = graph_text.transpose(g, dwt, [depth, f], [1, 0], element)
        return [graph_text.reshape(g, dw, [f, depth], [f, c, kh, kw], element)]

    def reference(hx, hg, _):
        return [torch.nn.grad.conv2d_weight(hx, weight.shape, hg, stride, padding, dilation)]
    execution.execute(dev, eager.Op(
        ("conv2d_weight_grad_unfolded", tuple(x.shape), tuple(weight.shape), tuple(stride),
         tuple(padding), tuple(dilation), element), [x, grad, unfold], [out], emit,
        aten.convolution_backward.default, (), {}, reference=reference))
    return out


def _weight_grad(dev, grad, x, weight, stride, padding, dilation, element, lanes):
    """dW: the convolution of the image (channels as the batch) by the output gradient."""
    n, c, h, w = x.shape
    f, _, kh, kw = weight.shape
    _, _, oh, ow = grad.shape
    batch = _matmul_channels(dev, n, oh * ow, x.element_size())  # its batch as channels
    out = torch.empty(weight.shape, dtype=x.dtype, device=dev.torch_device)

    def emit(g, xs):
        (xv, _), (gv, _) = xs
        images = graph_text.transpose(g, xv, [n, c, h, w], [1, 0, 2, 3], element)
        outputs = graph_text.transpose(g, gv, [n, f, oh, ow], [1, 0, 2, 3], element)
        filters = graph_windows.filters_hwcf(g, outputs, [f, n, oh, ow], element, lanes, batch)
        dw = graph_windows.emit_conv2d(g, (images, [c, n, h, w]), (filters, [oh, ow, batch, f]),
                                       None, dilation, padding, stride, element, lanes)
        shape = [c, f, graph_windows.conv_output(h, oh, dilation[0], padding[0], stride[0]),
                 graph_windows.conv_output(w, ow, dilation[1], padding[1], stride[1])]
        if shape[2:] != [kh, kw]:  # positions past the last tap: no filter has them
            dw = graph_text.extract_slice(g, dw, shape, [0, 0, 0, 0], [c, f, kh, kw], element)
        return [graph_text.transpose(g, dw, [c, f, kh, kw], [1, 0, 2, 3], element)]

    def reference(hx, hg):
        return [torch.nn.grad.conv2d_weight(hx, weight.shape, hg, stride, padding, dilation)]
    execution.execute(dev, eager.Op(
        ("conv2d_weight_grad", tuple(x.shape), tuple(weight.shape), tuple(stride),
         tuple(padding), tuple(dilation), element), [x, grad], [out], emit,
        aten.convolution_backward.default, (), {}, reference=reference))
    return out


def _spreading(dev, count, size, stride, dtype):
    """A device matrix [count, size] of ones at (j, j stride), zeros elsewhere: rows times it
    put their j-th value at j stride, with zeros between (a strided convolution's output
    gradient as the stride-1 one its input gradient is a convolution of); made once."""
    def make():
        m = torch.zeros(count, size, dtype=dtype)
        m[torch.arange(count), torch.arange(count) * stride] = 1
        return m
    return device_constants.constant(dev, ("spread", count, size, stride, dtype), make)


def _spread(g, value, shape, matrix, size, element):
    """`value` ([N, F, A, B]) with its last dimension spread by `matrix` ([B, size])."""
    n, f, a, b = shape
    rows = graph_text.reshape(g, value, shape, [n * f * a, b], element)
    out = graph_text.emit_matmul(g, (rows, [n * f * a, b]), (matrix, [b, size]), element)
    return graph_text.reshape(g, out, [n * f * a, size], [n, f, a, size], element)


def _input_grad(dev, grad, x, weight, stride, padding, dilation, element, lanes):
    """dx: the output gradient, spread to stride 1 when strided (zeros between its values,
    by matmuls with _spreading's matrices), padded, convolved with the flipped filters."""
    f, c, kh, kw = weight.shape
    n, _, oh, ow = grad.shape
    taps = kh * kw
    channels = _matmul_channels(dev, f, taps, x.element_size())
    flips = _flip_rows(dev, taps, f)
    pads = [dilation[0] * (kh - 1) - padding[0], dilation[1] * (kw - 1) - padding[1]]
    # the stride-1 output gradient's size: what a stride-1 convolution of the input gives
    spread = [x.shape[2] + 2 * padding[0] - dilation[0] * (kh - 1),
              x.shape[3] + 2 * padding[1] - dilation[1] * (kw - 1)]
    strided = stride != [1, 1]
    matrices = [_spreading(dev, oh, spread[0], stride[0], x.dtype),
                _spreading(dev, ow, spread[1], stride[1], x.dtype)] if strided else []
    out = torch.empty(x.shape, dtype=x.dtype, device=dev.torch_device)

    def emit(g, xs):
        (gv, _), (wv, _), (iv, _) = xs[:3]
        image, shape = gv, [n, f, oh, ow]
        if strided:  # along W, then along H through a swap of the last two dimensions
            (hv, _), (wm, _) = xs[3:]
            image = _spread(g, image, shape, wm, spread[1], element)
            image = graph_text.transpose(g, image, [n, f, oh, spread[1]], [0, 1, 3, 2],
                                         element)
            image = _spread(g, image, [n, f, spread[1], oh], hv, spread[0], element)
            image = graph_text.transpose(g, image, [n, f, spread[1], spread[0]], [0, 1, 3, 2],
                                         element)
            shape = [n, f] + spread
        # F and C swapped ([C, F, KH, KW]), laid out as the forward's filters ([KH, KW, F, C])
        swapped = graph_text.transpose(g, wv, [f, c, kh, kw], [1, 0, 2, 3], element)
        hwcf = graph_windows.filters_hwcf(g, swapped, [c, f, kh, kw], element, lanes)
        rows = graph_text.reshape(g, hwcf, [kh, kw, f, c], [taps * f, c], element)
        flipped = graph_text.emit_gather_rows(g, (rows, [taps * f, c]), (iv, [taps * f]),
                                              element)
        flipped = graph_text.reshape(g, flipped, [taps * f, c], [kh, kw, f, c], element)
        if channels != f:  # zero channels, as the forward's filters have (_matmul_channels)
            flipped, _ = graph_windows.pad_channels(g, flipped, [kh, kw, f, c], channels,
                                                    element, dim=2)
        return [graph_windows.emit_conv2d(g, (image, shape), (flipped, [kh, kw, channels, c]),
                                          None, [1, 1], pads, dilation, element, lanes)]

    def reference(hg, hw, *_):
        return [torch.nn.grad.conv2d_input(x.shape, hw, hg, stride, padding, dilation)]
    execution.execute(dev, eager.Op(
        ("conv2d_input_grad", tuple(grad.shape), tuple(weight.shape), tuple(stride),
         tuple(padding), tuple(dilation), tuple(x.shape), element),
        [grad, weight, flips] + matrices, [out], emit, aten.convolution_backward.default, (),
        {}, reference=reference))
    return out


def _bias_grad(dev, grad, element):
    """db: the output gradient summed over the batch and the positions."""
    out = torch.empty([grad.shape[1]], dtype=grad.dtype, device=dev.torch_device)
    sum_of, _ = reduction(4, [0, 2, 3], element, "arith.addf", 0.0)
    execution.execute(dev, eager.Op(
        ("conv2d_bias_grad", tuple(grad.shape), element), [grad], [out], sum_of,
        aten.convolution_backward.default, (), {},
        reference=lambda hg: [hg.sum((0, 2, 3))]))
    return out


def _convolution_backward(grad, x, weight, stride, padding, dilation, transposed,
                          output_padding, groups, mask):
    dev = _device_of(grad, x, weight)
    element = _element(x.dtype, dev)
    stride, padding, dilation = list(stride), list(padding), list(dilation)
    f = weight.shape[0] if weight.dim() else 0
    args = (grad, x, weight, [f] if mask[2] else None, stride, padding, dilation, transposed,
            output_padding, groups)
    reason = ("a transposed or grouped convolution" if transposed or groups != 1 else
              "not a 2-d convolution" if x.dim() != 4 or weight.dim() != 4 else
              f"{x.dtype} convolutions" if element is None or
              weight.dtype != x.dtype or grad.dtype != x.dtype else
              "a convolution of no element" if 0 in (*x.shape, *grad.shape) else None)
    if reason is not None:
        return on_cpu(aten.convolution_backward.default, args + (mask,), {}, dev, reason)
    lanes = _pads_lanes(dev)
    padded = all(p <= d * (k - 1) for p, d, k in zip(padding, dilation, weight.shape[2:]))
    results = [None, None, None]
    if mask[0] and not padded:
        results[0] = on_cpu(aten.convolution_backward.default,
                            args + ([True, False, False],), {}, dev,
                            "the input's gradient of a padding beyond the filter")[0]
    elif mask[0]:
        results[0] = _input_grad(dev, grad, x, weight, stride, padding, dilation, element,
                                 lanes)
    if mask[1]:
        results[1] = _weight_grad(dev, grad, x, weight, stride, padding, dilation, element,
                                  lanes) if lanes else \
            _weight_grad_unfolded(dev, grad, x, weight, stride, padding, dilation, element)
    if mask[2]:
        results[2] = _bias_grad(dev, grad, element)
    return tuple(results)


_lib.impl("convolution_backward_overrideable", _convolution_backward)
