"""Clamping and the activations beyond relu, gelu, sigmoid, silu and tanh (ops.py), with the
gradients autograd reaches for them: clamp, clamp_min, clamp_max, hardtanh (ReLU6),
leaky_relu, elu (celu and selu are elu in 1.13), hardsigmoid, hardswish, softplus and mish.
Each is one element-wise program as PyTorch's CPU kernel computes it (the same comparisons,
so NaN and the infinities come out as on the CPU); the op's numbers (bounds, slopes, beta)
are constants of the program, so the compile cache keys on them. Registered like the ops of
chipless.torch.ops and chipless.torch.pointwise, whose helpers they use.
"""
from chipless.torch.ops import _Refused, _elementwise, _lowered, aten, program_name
from chipless.torch.pointwise import floating, gradient_operands, number, register


def _clamp(w, x, low=None, high=None):
    """min(max(x, low), high) as the CPU's clamp: NaN stays NaN, low > high gives high."""
    if low is not None:
        x = w.op("arith.maximumf", x, w.const(low))
    if high is not None:
        x = w.op("arith.minimumf", x, w.const(high))
    return x


@_lowered(aten.clamp.default)
def _clamp_op(dev, a, min=None, max=None):
    return _clamp_any(dev, aten.clamp.default, a, min, max, inplace=False)


@_lowered(aten.clamp_.default)
def _clamp_inplace(dev, a, min=None, max=None):
    return _clamp_any(dev, aten.clamp_.default, a, min, max, inplace=True)


def _clamp_any(dev, op, a, low, high, inplace):
    floating("clamp", a)
    low, high = number("clamp", low), number("clamp", high)
    if low is None and high is None:
        raise _Refused("clamp without a bound")  # the CPU's error
    return _elementwise(dev, op, (a, low, high), {}, program_name("clamp", (low, high)), [a],
                        list(a.shape), a.dtype, lambda w, x: _clamp(w, x[0], low, high),
                        out=a if inplace else None)


register("clamp_min", lambda w, x, low: _clamp(w, x, low=low))
register("clamp_max", lambda w, x, high: _clamp(w, x, high=high))


def _between(w, x, low, high, inside):
    """`inside` where low < x < high, else 0 (NaN too, as on the CPU)."""
    zero = w.const(0.0)
    return w.select(w.cmp("ogt", x, w.const(low)),
                    w.select(w.cmp("olt", x, w.const(high)), inside, zero), zero)


register("hardtanh", lambda w, x, low=-1.0, high=1.0: _clamp(w, x, low, high),
          lambda w, g, x, low, high: _between(w, x, low, high, g))


def _leaky_relu(w, x, slope=0.01):
    return w.select(w.cmp("ogt", x, w.const(0.0)), x, w.op("arith.mulf", x, w.const(slope)))


def _leaky_relu_backward(w, g, x, slope, self_is_result=False):
    return w.select(w.cmp("ogt", x, w.const(0.0)), g, w.op("arith.mulf", g, w.const(slope)))


register("leaky_relu", _leaky_relu, _leaky_relu_backward)


def _elu(w, x, alpha=1.0, scale=1.0, input_scale=1.0):
    """x <= 0 ? (exp(x input_scale) - 1) alpha scale : x scale."""
    negative = w.op("arith.mulf", w.op("arith.subf", w.op("math.exp", w.op(
        "arith.mulf", x, w.const(input_scale))), w.const(1.0)), w.const(alpha * scale))
    return w.select(w.cmp("ole", x, w.const(0.0)), negative,
                    w.op("arith.mulf", x, w.const(scale)))


register("elu", _elu)


@_lowered(aten.elu_backward.default)
def _elu_backward(dev, grad, alpha, scale, input_scale, is_result, x):
    """grad scale where x > 0; elsewhere (NaN too, as the CPU) from the input, grad
    input_scale alpha scale exp(x input_scale), or from the result, grad input_scale (out +
    alpha scale)."""
    gradient_operands("elu_backward", grad, x)
    alpha, scale, input_scale = (float(v) for v in (alpha, scale, input_scale))

    def body(w, v):
        g, y = v
        if is_result:
            slope = w.op("arith.mulf", w.const(input_scale), w.op(
                "arith.addf", y, w.const(alpha * scale)))
        else:
            slope = w.op("arith.mulf", w.const(input_scale * alpha * scale), w.op(
                "math.exp", w.op("arith.mulf", y, w.const(input_scale))))
        return w.select(w.cmp("ogt", y, w.const(0.0)), w.op("arith.mulf", g, w.const(scale)),
                        w.op("arith.mulf", g, slope))
    name = program_name("elu_backward", (alpha, scale, input_scale, bool(is_result)))
    return _elementwise(dev, aten.elu_backward.default,
                        (grad, alpha, scale, input_scale, is_result, x), {}, name, [grad, x],
                        list(x.shape), x.dtype, body)


def _hardsigmoid(w, x):
    """min(max(x + 3, 0), 6) / 6."""
    return w.op("arith.divf", _clamp(w, w.op("arith.addf", x, w.const(3.0)), 0.0, 6.0),
                w.const(6.0))


def _hardsigmoid_backward(w, g, x):
    """grad / 6 where -3 < x < 3, else 0."""
    return _between(w, x, -3.0, 3.0, w.op("arith.divf", g, w.const(6.0)))


register("hardsigmoid", _hardsigmoid, _hardsigmoid_backward)


def _hardswish_backward(w, g, x):
    """0 where x < -3, grad above 3, grad (x / 3 + 0.5) between (and for NaN, as the CPU)."""
    middle = w.op("arith.mulf", g, w.op("arith.addf", w.op("arith.divf", x, w.const(3.0)),
                                        w.const(0.5)))
    return w.select(w.cmp("olt", x, w.const(-3.0)), w.const(0.0),
                    w.select(w.cmp("ogt", x, w.const(3.0)), g, middle))


register("hardswish", lambda w, x: w.op("arith.mulf", x, _hardsigmoid(w, x)),
          _hardswish_backward)


def _softplus(w, x, beta=1.0, threshold=20.0):
    """x where x beta > threshold, else log(1 + exp(x beta)) / beta."""
    z = w.op("arith.mulf", x, w.const(beta))
    smooth = w.op("arith.divf", w.op("math.log", w.op("arith.addf", w.const(1.0),
                                                      w.op("math.exp", z))), w.const(beta))
    return w.select(w.cmp("ogt", z, w.const(threshold)), x, smooth)


def _softplus_backward(w, g, x, beta, threshold):
    """grad where x beta > threshold, else grad e / (e + 1) with e = exp(x beta)."""
    z = w.op("arith.mulf", x, w.const(beta))
    e = w.op("math.exp", z)
    smooth = w.op("arith.mulf", g, w.op("arith.divf", e, w.op("arith.addf", e, w.const(1.0))))
    return w.select(w.cmp("ogt", z, w.const(threshold)), g, smooth)


register("softplus", _softplus, _softplus_backward)
register("mish", lambda w, x: w.op("arith.mulf", x, w.op("math.tanh", _softplus(w, x))))
