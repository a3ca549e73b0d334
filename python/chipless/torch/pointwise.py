"""Element-wise ops of one tensor and some numbers, and the helpers that register them (used
by chipless.torch.activations too): tests of values (isnan, isinf, isposinf, isneginf,
isfinite: booleans; NaN is the value unequal to itself), sign and sgn, nan_to_num,
threshold, hardshrink and softshrink with their gradients, log_sigmoid with its gradient,
deg2rad, rad2deg, exp2; and of two: rsub, lerp, xlogy,
heaviside. Each is one program computed as PyTorch's CPU kernel computes it (the same
comparisons: NaN and the infinities come out as there), the op's numbers constants of the
program. Registered like the ops of chipless.torch.ops, whose helpers they use.
"""
import math

import torch

from chipless.torch import graph_text
from chipless.torch.ops import (_Refused, _broadcast, _element, _elementwise, _execute,
                                _lowered, aten, program_name)


def floating(name, *tensors):
    """_Refused unless every tensor is of a float dtype."""
    for t in tensors:
        if not t.is_floating_point():
            raise _Refused(f"{name} of {t.dtype}")


def number(name, value):
    """A bound or coefficient of an op as a float, or _Refused for a tensor one (clamp's
    Tensor overloads take those)."""
    if value is None or isinstance(value, (int, float, bool)):
        return None if value is None else float(value)
    raise _Refused(f"{name} with a bound that is not a number")


def unary(op, name, body, inplace=False):
    """Registers op(self, *numbers) as out = body(w, x, *numbers) on the device."""
    @_lowered(op)
    def lower(dev, a, *numbers):
        floating(name, a)
        numbers = tuple(number(name, n) for n in numbers)
        return _elementwise(dev, op, (a,) + numbers, {}, program_name(name, numbers), [a],
                            list(a.shape), a.dtype, lambda w, x: body(w, x[0], *numbers),
                            out=a if inplace else None)
    return lower


def gradient_operands(name, grad, x):
    """_Refused unless grad and x are float tensors of one shape and dtype."""
    floating(name, grad, x)
    if grad.shape != x.shape or grad.dtype != x.dtype:
        raise _Refused("a gradient of another shape or dtype than the input")


def backward(op, name, body):
    """Registers op(grad, self, *numbers) as grad_input = body(w, grad, x, *numbers)."""
    @_lowered(op)
    def lower(dev, grad, x, *numbers):
        gradient_operands(name, grad, x)
        numbers = tuple(number(name, n) for n in numbers)
        return _elementwise(dev, op, (grad, x) + numbers, {}, program_name(name, numbers),
                            [grad, x], list(x.shape), x.dtype,
                            lambda w, v: body(w, v[0], v[1], *numbers))
    return lower


def register(name, body, gradient=None):
    """name and name_ (where ATen has it), and name_backward with `gradient` (its body)."""
    unary(getattr(aten, name).default, name, body)
    if hasattr(aten, name + "_"):
        unary(getattr(aten, name + "_").default, name, body, inplace=True)
    if gradient is not None:
        backward(getattr(aten, name + "_backward").default, name + "_backward", gradient)


# ---- tests of values: booleans ---------------------------------------------------------------

def _test(op, name, condition):
    """op(self) as a boolean: condition(w, x) an i1."""
    @_lowered(op)
    def lower(dev, a):
        floating(name, a)
        return _elementwise(dev, op, (a,), {}, name, [a], list(a.shape), a.dtype,
                            lambda w, x: w.boolean(condition(w, x[0])), out_dtype=torch.bool)


def _magnitude(w, x):
    return w.op("math.absf", x)


_test(aten.isnan.default, "isnan", lambda w, x: w.cmp("une", x, x))
_test(aten.isinf.default, "isinf",
      lambda w, x: w.cmp("oeq", _magnitude(w, x), w.const(math.inf)))
_test(aten.isfinite.default, "isfinite",
      lambda w, x: w.cmp("olt", _magnitude(w, x), w.const(math.inf)))
_test(aten.isposinf.default, "isposinf", lambda w, x: w.cmp("oeq", x, w.const(math.inf)))
_test(aten.isneginf.default, "isneginf", lambda w, x: w.cmp("oeq", x, w.const(-math.inf)))


# ---- one tensor and numbers -------------------------------------------------------------------

def _sign(w, x):
    """1 above 0, -1 below, 0 at zeros and NaN (the CPU's (0 < x) - (x < 0))."""
    zero = w.const(0.0)
    return w.select(w.cmp("ogt", x, zero), w.const(1.0),
                    w.select(w.cmp("olt", x, zero), w.const(-1.0), zero))


register("sign", _sign)
unary(aten.sgn.default, "sign", _sign)
unary(aten.sgn_.default, "sign", _sign, inplace=True)


@_lowered(aten.nan_to_num.default)
def _nan_to_num(dev, a, nan=None, posinf=None, neginf=None):
    """NaN to `nan` (0), +inf to `posinf` and -inf to `neginf` (the dtype's largest and
    lowest finite values)."""
    floating("nan_to_num", a)
    info = torch.finfo(a.dtype)
    values = (number("nan_to_num", nan) or 0.0,
              info.max if posinf is None else number("nan_to_num", posinf),
              info.min if neginf is None else number("nan_to_num", neginf))

    def body(w, x):
        replaced = w.select(w.cmp("oeq", x[0], w.const(math.inf)), w.const(values[1]),
                            w.select(w.cmp("oeq", x[0], w.const(-math.inf)),
                                     w.const(values[2]), x[0]))
        return w.select(w.cmp("une", x[0], x[0]), w.const(values[0]), replaced)
    return _elementwise(dev, aten.nan_to_num.default, (a, nan, posinf, neginf), {},
                        program_name("nan_to_num", values), [a], list(a.shape), a.dtype, body)


register("threshold", lambda w, x, threshold, value: w.select(
    w.cmp("ole", x, w.const(threshold)), w.const(value), x))


def _hardshrink(w, x, lambd=0.5):
    """0 where -lambd <= x <= lambd, else x (NaN stays)."""
    inside = w.select(w.cmp("ole", x, w.const(lambd)), w.const(0.0), x)
    return w.select(w.cmp("oge", x, w.const(-lambd)), inside, x)


def _softshrink(w, x, lambd=0.5):
    """x - lambd above lambd, x + lambd below -lambd, 0 between (and at NaN)."""
    below = w.select(w.cmp("olt", x, w.const(-lambd)), w.op("arith.addf", x, w.const(lambd)),
                     w.const(0.0))
    return w.select(w.cmp("ogt", x, w.const(lambd)), w.op("arith.subf", x, w.const(lambd)),
                    below)


def _shrink_backward(w, g, x, lambd):
    """grad where x < -lambd or x > lambd, else 0: both shrinks' gradient. At NaN 0, as the
    CPU's vector kernel gives (its scalar loop over a last few elements gives grad)."""
    below = w.select(w.cmp("olt", x, w.const(-lambd)), g, w.const(0.0))
    return w.select(w.cmp("ogt", x, w.const(lambd)), g, below)


register("hardshrink", _hardshrink, _shrink_backward)
register("softshrink", _softshrink, _shrink_backward)
register("deg2rad", lambda w, x: w.op("arith.mulf", x, w.const(math.pi / 180)))
register("rad2deg", lambda w, x: w.op("arith.mulf", x, w.const(180 / math.pi)))
register("exp2", lambda w, x: w.op("math.exp", w.op("arith.mulf", x, w.const(math.log(2.0)))))


@_lowered(aten.log_sigmoid_forward.default)
def _log_sigmoid(dev, a):
    """(min(x, 0) - log(1 + z), z) with z = exp(-|x|), the buffer the gradient reads."""
    element = _element(a.dtype, dev)
    if element is None:
        raise _Refused(f"log_sigmoid of {a.dtype}")
    out, buffer = (torch.empty_like(a) for _ in range(2))
    shape = list(a.shape) or [1]  # a number is a tensor of one element in the graph

    def emit(g, xs):
        z = graph_text.emit_elementwise(g, xs, shape, element, lambda w, x: w.op(
            "math.exp", w.op("arith.negf", w.op("math.absf", x[0]))))
        y = graph_text.emit_elementwise(
            g, [xs[0], (z, shape)], shape, element, lambda w, x: w.op(
                "arith.subf", w.op("arith.minimumf", x[0], w.const(0.0)),
                w.op("math.log", w.op("arith.addf", w.const(1.0), x[1]))))
        return [y, z]
    _execute(dev, aten.log_sigmoid_forward.default, (a,), {},
             ("log_sigmoid", tuple(a.shape), element), [a], [out, buffer], emit)
    return out, buffer


@_lowered(aten.log_sigmoid_backward.default)
def _log_sigmoid_backward(dev, grad, x, buffer):
    """grad / (1 + z) where x < 0, else grad z / (1 + z) (NaN: the latter, as the CPU)."""
    floating("log_sigmoid_backward", grad, x, buffer)

    def body(w, v):
        g, x, z = v
        share = w.op("arith.divf", z, w.op("arith.addf", w.const(1.0), z))
        return w.op("arith.mulf", g, w.select(w.cmp("olt", x, w.const(0.0)), w.op(
            "arith.subf", w.const(1.0), share), share))
    return _elementwise(dev, aten.log_sigmoid_backward.default, (grad, x, buffer), {},
                        "log_sigmoid_backward", [grad, x, buffer], list(x.shape), x.dtype, body)


# ---- two tensors (or a tensor and a number) ---------------------------------------------------

def _binary(op, name, body, inplace=False):
    """op(self, other, *numbers) as out = body(w, x, y, *numbers), other a tensor or a number
    (a row, kept on the device), broadcast as PyTorch broadcasts."""
    @_lowered(op)
    def lower(dev, a, b, *positional, **kw):
        # rsub's alpha is keyword-only: the numbers in schema order, the call kept as made
        numbers = tuple(number(name, n) for n in positional + tuple(kw.values()))
        others = [b] if isinstance(b, torch.Tensor) else []
        floating(name, a, *others)
        dtype = a.dtype if inplace else torch.result_type(a, b)
        out_shape = _broadcast(a, b)
        if inplace and out_shape != list(a.shape):
            raise _Refused("the in-place result does not have self's shape")
        return _elementwise(dev, op, (a, b) + positional, kw, program_name(name, numbers),
                            [a, b], out_shape, dtype, lambda w, x: body(w, x[0], x[1], *numbers),
                            out=a if inplace else None)


def _rsub(w, x, y, alpha=1.0):
    """other - alpha self."""
    scaled = w.op("arith.mulf", x, w.const(alpha)) if alpha != 1 else x
    return w.op("arith.subf", y, scaled)


_binary(aten.rsub.Tensor, "rsub", _rsub)
_binary(aten.rsub.Scalar, "rsub", _rsub)


def _xlogy(w, x, y):
    """NaN where y is NaN, 0 where x is 0, else x log(y)."""
    value = w.select(w.cmp("oeq", x, w.const(0.0)), w.const(0.0),
                     w.op("arith.mulf", x, w.op("math.log", y)))
    return w.select(w.cmp("une", y, y), y, value)


_binary(aten.xlogy.Tensor, "xlogy", _xlogy)
_binary(aten.xlogy_.Tensor, "xlogy", _xlogy, inplace=True)


def _heaviside(w, x, values):
    """values where x is 0, 1 above, 0 below and at NaN."""
    step = w.select(w.cmp("ogt", x, w.const(0.0)), w.const(1.0), w.const(0.0))
    return w.select(w.cmp("oeq", x, w.const(0.0)), values, step)


_binary(aten.heaviside.default, "heaviside", _heaviside)
_binary(aten.heaviside_.default, "heaviside", _heaviside, inplace=True)


def _lerp(w, start, end, weight):
    """start + weight (end - start) below a weight of 0.5, end - (end - start) (1 - weight)
    from it, as the CPU (exact at both ends)."""
    span = w.op("arith.subf", end, start)
    if weight < 0.5:
        return w.op("arith.addf", start, w.op("arith.mulf", w.const(weight), span))
    return w.op("arith.subf", end, w.op("arith.mulf", span, w.const(1.0 - weight)))


_binary(aten.lerp.Scalar, "lerp", _lerp)
_binary(aten.lerp_.Scalar, "lerp", _lerp, inplace=True)
