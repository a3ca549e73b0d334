"""The ATen ops lowered to the emulated devices, registered as PrivateUse1 kernels. Every op
not here runs through ATen's CPU fallback (pybind/torch/cpu_fallback.cpp), counted;
docs/pytorch.md lists which ops run on each device and how their numerics compare with the
CPU's.

Each lowering checks what it can take (dtypes, shapes, dimensions), allocates its outputs and
hands an eager.Op to execution.execute, which queues, runs or records it (DeferAndFuse). Python
numbers and one-element tensors in element-wise ops (`x * 0.5`, `alpha=`, `value=`) become
rows of the output's last dimension passed as arguments, so a program is compiled per op,
shapes and dtypes — not per value — and an optimizer's changing step sizes reuse it.
"""
import math

import torch

from chipless.errors import ChiplessError
from chipless.torch import devices, eager, execution, graph_text, scalar_rows

_lib = torch.library.Library("aten", "IMPL", "PrivateUse1")
#: Kernels of CompositeImplicitAutograd ops lowered as a whole (a backend kernel alone would
#: take autograd out of their path): the same function on the autograd key.
_autograd_lib = torch.library.Library("aten", "IMPL", "AutogradPrivateUse1")
aten = torch.ops.aten


class _Refused(Exception):
    """This call cannot be lowered (the op then runs on the CPU)."""


def _device_of(*values):
    for v in values:
        if isinstance(v, torch.Tensor) and v.device.type == "privateuseone":
            return devices.of(v)
        if isinstance(v, (list, tuple)):
            for x in v:
                if isinstance(x, torch.Tensor) and x.device.type == "privateuseone":
                    return devices.of(x)
    raise ChiplessError("no operand is on an emulated device")


#: Arguments ops write though their schema does not say so: 1.13's native_batch_norm updates
#: its running statistics in place in training form.
UNDECLARED_WRITES = {"aten::native_batch_norm": (3, 4)}


def on_cpu(op, args, kwargs, dev, reason=None):
    """Runs `op` on the CPU: device tensors copied to the host (float16 computed in float32,
    which 1.13's CPU kernels need, and rounded back), results copied back, and so are the
    arguments the op writes (`self` of an in-place op, a batch norm's running statistics).
    An error instead in strict mode."""
    eager.check_not_strict(str(op), dev, reason or "no lowering")
    eager.count_cpu(dev, str(op))
    half = eager.has_half(args) or eager.has_half(list(kwargs.values()))
    host_args = eager.to_host(args, half)
    host_kwargs = {k: eager.to_host(v, half) for k, v in kwargs.items()}
    result = op(*host_args, **host_kwargs)
    undeclared = UNDECLARED_WRITES.get(op._schema.name, ())
    for i, a in enumerate(op._schema.arguments):
        if i not in undeclared and (a.alias_info is None or not a.alias_info.is_write):
            continue
        target, host = (args[i], host_args[i]) if i < len(args) else \
            (kwargs.get(a.name), host_kwargs.get(a.name))
        if isinstance(target, torch.Tensor) and target.device.type == "privateuseone":
            target.copy_(host)

    def back(r):
        if not isinstance(r, torch.Tensor):
            return r
        if half and r.dtype == torch.float32:
            r = r.half()
        return r.to(dev.torch_device)
    if op._schema.name.endswith("_") and args and isinstance(args[0], torch.Tensor):
        return args[0]
    return tuple(back(r) for r in result) if isinstance(result, tuple) else back(result)


#: Ops PyTorch 1.13's CPU has no float16 kernels for: with float16 device tensors they run
#: on the CPU in float32 (ATen's own CPU fallback would fail on them).
CPU_IN_FLOAT = (
    "native_layer_norm_backward", "max_pool2d_with_indices", "max_pool2d_with_indices_backward")


def _cpu_kernel(op):
    def kernel(*args, **kwargs):
        return on_cpu(op, args, kwargs, _device_of(*args, *kwargs.values()),
                      "computed on the CPU")
    return kernel


for _name in CPU_IN_FLOAT:
    _packet, _, _overload = _name.partition(".")
    if not hasattr(aten, _packet):
        continue
    _lib.impl(_name, _cpu_kernel(getattr(getattr(aten, _packet), _overload or "default")))


def _lowered(op, library=_lib):
    """Registers `fn(dev, *args, **kwargs)` as the PrivateUse1 kernel of `op` (an
    OpOverload of `library`'s namespace); a call it refuses runs on the CPU."""
    def register(fn):
        def kernel(*args, **kwargs):
            dev = _device_of(*args, *kwargs.values())
            try:
                return fn(dev, *args, **kwargs)
            except _Refused as e:
                return on_cpu(op, args, kwargs, dev, str(e))
        name = op._schema.name.split("::")[1]
        library.impl(name + (f".{op._overloadname}" if op._overloadname != "default" else ""),
                  kernel)
        kernel.__name__ = fn.__name__
        return fn
    return register


def _element(dtype, dev, integer=False):
    """The graph element type of `dtype` on `dev`, or None when its compiler has no float
    arithmetic (with `integer`: no float or integer arithmetic) of that type."""
    name = eager.DEVICE_DTYPE.get(dtype)
    if integer and dtype != torch.bool and name in eager.INTEGER_TYPES[dev.kind]:
        return name
    return name if name in eager.FLOAT_TYPES[dev.kind] else None


def _cast_on_device(dev, t, dtype, out=None):
    """Device tensor `t` as `dtype` by a conversion program on the device (extf/truncf;
    Spyre's sfu.cvt) when both are float types the device computes in; else None. With
    `out` (a whole device tensor of `dtype`), written there, `t` broadcast to its shape."""
    source, target = _element(t.dtype, dev), _element(dtype, dev)
    if t.device.type != "privateuseone" or source not in graph_text.FLOAT_BITS or \
            target not in graph_text.FLOAT_BITS or t.dim() == 0:
        return None
    aten_op, args, kwargs = (aten._to_copy.default, (t,), {"dtype": dtype}) if out is None \
        else (aten.copy_.default, (out, t), {})
    return _elementwise(dev, aten_op, args, kwargs, f"cast_{source}_{target}", [t],
                        list(t.shape if out is None else out.shape), t.dtype,
                        lambda w, x: w.cast(x[0], source, target), out=out, out_dtype=dtype)


def _cast(dev, t, dtype):
    """Device tensor `t` as `dtype`: on the device between float types, else through the
    host."""
    cast = _cast_on_device(dev, t, dtype)
    return cast if cast is not None else t.to(dtype)


def _memory_order(t):
    """The permutation that lays `t`'s dimensions out in its memory order when `t` is dense
    and non-overlapping (a transpose or permutation of a contiguous tensor), else None."""
    order = sorted(range(t.dim()), key=lambda d: (-t.stride(d), -d))
    permuted = t.permute(order)
    return order if permuted.is_contiguous() else None


def _to_copy(t, dtype=None, layout=None, device=None, pin_memory=None, non_blocking=False,
             memory_format=None):
    """`t.to(dtype)`, `.half()`, `.float()` of a device tensor on its own device: a
    conversion program (_cast_on_device); a view first made contiguous on the device, or,
    where it is a permutation of a dense tensor, converted in its memory order and given
    back its strides (as preserve_format keeps them). Anything else (a copy to or from the
    host or another device, a layout) as PyTorch's own _to_copy does it: a new tensor and a
    copy (through the host between dtypes the device does not convert)."""
    target = torch.device(device) if device is not None else t.device
    if t.device.type == "privateuseone" and target == t.device and dtype is not None and \
            dtype != t.dtype and layout in (None, torch.strided) and \
            memory_format in (None, torch.preserve_format, torch.contiguous_format):
        dev = devices.of(t)
        order = None if t.is_contiguous() or memory_format == torch.contiguous_format \
            else _memory_order(t)
        if order is None:
            cast = _cast_on_device(dev, t.contiguous(), dtype)  # t itself when contiguous
            if cast is not None:
                return cast
        else:
            cast = _cast_on_device(dev, t.permute(order), dtype)
            if cast is not None:
                inverse = sorted(range(t.dim()), key=lambda d: order[d])
                return cast.permute(inverse)
    if memory_format in (None, torch.preserve_format):
        out = torch.empty_like(t, dtype=dtype or t.dtype, device=target,
                               layout=layout or t.layout, pin_memory=pin_memory or False)
    else:
        out = torch.empty(t.shape, dtype=dtype or t.dtype, device=target,
                          layout=layout or t.layout, pin_memory=pin_memory or False,
                          memory_format=memory_format)
    return out.copy_(t, non_blocking=non_blocking)


_lib.impl("_to_copy", _to_copy)


def _copy(dst, src, non_blocking=False):
    """dst.copy_(src). Eager, between tensors of one device, into the whole of `dst` (its
    storage from the start, contiguous): a copy program on the device, `dst` written in
    place, `src` read as it lies (a view read in the program), broadcast and converted
    between float types. Anything else (to or from the host, into a view, other dtypes,
    DeferAndFuse, whose write-backs are copies, a source in the destination's own storage,
    which the program would overwrite while it reads it) is _copy_from's: through the host,
    with the link's modelled time; its errors are RuntimeErrors, as PyTorch's are."""
    bound = eager.bindable(dst) if dst.device.type == "privateuseone" else None
    if dst.device == src.device and bound is not None and src.numel() and \
            not execution.deferring() and \
            torch.ops.chipless.storage_info(src)[0] != bound[0]:
        dev = _device_of(dst)
        element = _element(src.dtype, dev)
        try:
            if eager.reads_view(dev, src):
                if src.dtype != dst.dtype:
                    if _cast_on_device(dev, src, dst.dtype, out=dst) is not None:
                        return dst
                elif element is not None:
                    return _elementwise(dev, aten.copy_.default, (dst, src), {}, "copy", [src],
                                        list(dst.shape), src.dtype, lambda w, x: x[0], out=dst)
        except _Refused:
            pass
    try:
        return torch.ops.aten._copy_from(src, dst, non_blocking)
    except ChiplessError as e:
        raise RuntimeError(str(e)) from None


_lib.impl("copy_", _copy)


def _row(value, n, dtype, dev):
    """A one-value operand (a number, or a one-element tensor) as a device row of n values."""
    if isinstance(value, torch.Tensor) and value.device.type == "privateuseone":
        return value.reshape(1).to(dtype).expand(n)
    if isinstance(value, torch.Tensor):
        value = value.item()
    return scalar_rows.row(value, n, dtype, dev)


def program_name(name, numbers):
    """The name of an op's program whose numbers are constants in it: the op's and its
    numbers' (the compile cache keys on it; a function name, so '-' is 'm', '.' is 'p')."""
    text = name + "".join(f"_{n!r}" for n in numbers)
    return text.replace("-", "m").replace(".", "p").replace("+", "")


def _execute(dev, aten_op, args, kwargs, key, operands, outputs, emit):
    """Runs (or records) one Op whose outputs are whole device tensors."""
    execution.execute(dev, eager.Op(key, operands, outputs, emit, aten_op, args, kwargs))


def _elementwise(dev, aten_op, args, kwargs, name, operands, out_shape, dtype, body, out=None,
                 out_dtype=None, conditions=(), integer=False):
    """out = body(operands) element by element on the device, computed in `dtype`; operands
    are tensors or numbers (rows), those at the indices `conditions` boolean tensors (read
    as they are stored: i8, f16 on Spyre); `out` is the tensor an in-place op writes, else
    one of `out_dtype` (`dtype`).
    `integer`: the body has integer instructions for an integer `dtype`."""
    element = _element(dtype, dev, integer)
    if element is None:
        raise _Refused(f"{dtype} arithmetic is not lowered on {dev.kind}")
    n = out_shape[-1] if out_shape else 1
    gshape = list(out_shape) or [1]
    tensors = []
    for i, v in enumerate(operands):
        if isinstance(v, torch.Tensor) and v.device.type != "privateuseone" and v.dim() > 0:
            raise RuntimeError(f"Expected all tensors to be on the same device, but found at "
                               f"least two devices, {dev.name} and {v.device}!")
        if i in conditions:
            if v.dtype != torch.bool or v.device.type != "privateuseone" or \
                    v.numel() == 1 and gshape != [1]:
                raise _Refused("a condition that is not a boolean device tensor")
        elif not isinstance(v, torch.Tensor) or v.numel() == 1 and gshape != [1]:
            v = _row(v, n, dtype, dev)
        elif v.device.type != "privateuseone":
            v = v.to(dev.torch_device)  # a 0-d CPU tensor (a number PyTorch wrapped)
        if v.dtype != dtype and i not in conditions:
            v = _cast(dev, v, dtype)
        shape = list(v.shape) or [1]
        if len(shape) > len(gshape) or graph_text.broadcast_operand(shape, gshape) is None:
            raise _Refused("an operand broadcast along every dimension")
        tensors.append(v)
    out_dtype = out_dtype or dtype
    whole = out is not None and eager.bindable(out) is not None
    result = out if whole else torch.empty(out_shape, dtype=out_dtype, device=dev.torch_device)
    key = (name, tuple(gshape), tuple(tuple(eager.shape_of(t)) for t in tensors), element)
    emit_types = {}
    if conditions or out_dtype != dtype:
        emit_types = {"elements": [eager.element_of(t) for t in tensors],
                      "out_element": eager.element_of(result)}
        key += (tuple(emit_types["elements"]), emit_types["out_element"])
    _execute(dev, aten_op, args, kwargs, key, tensors, [result],
             lambda g, xs: [graph_text.emit_elementwise(g, xs, gshape, element, body,
                                                        **emit_types)])
    if out is not None and not whole:
        out.copy_(result)  # an in-place op on a view: computed apart, copied into place
        return out
    return result


def _broadcast(*values):
    """The shape PyTorch broadcasts tensors and numbers to."""
    return list(torch.broadcast_shapes(
        *(tuple(v.shape) if isinstance(v, torch.Tensor) else () for v in values)))


# ---- element-wise ---------------------------------------------------------------------------

#: The integer instruction of each float one that has one (integer tensors on the TPU).
INTEGER_INSTRUCTIONS = {"arith.addf": "arith.addi", "arith.subf": "arith.subi",
                        "arith.mulf": "arith.muli", "arith.maximumf": "arith.maxsi",
                        "arith.minimumf": "arith.minsi"}


def _binary(op, instruction, inplace=False, alpha=False):
    """a (op) b, and for add and sub a (op) alpha * b; of integers too where the device has
    integer arithmetic (BatchNorm's batch counter; not div, whose result is a float)."""
    @_lowered(op)
    def lower(dev, a, b, **kw):
        scale = kw.get("alpha", 1)
        dtype = a.dtype if inplace else torch.result_type(a, b)
        out_shape = _broadcast(a, b)
        if inplace and out_shape != list(a.shape):
            raise _Refused("the in-place result does not have self's shape")
        operands = [a, b] + ([scale] if scale != 1 else [])
        integer = not dtype.is_floating_point and instruction in INTEGER_INSTRUCTIONS
        combine, multiply = (INTEGER_INSTRUCTIONS[instruction], "arith.muli") if integer else \
            (instruction, "arith.mulf")

        def body(w, x):
            other = w.op(multiply, x[1], x[2]) if len(x) == 3 else x[1]
            return w.op(combine, x[0], other)
        name = combine.split(".")[1] + ("_alpha" if scale != 1 else "")
        return _elementwise(dev, op, (a, b), kw, name, operands, out_shape, dtype, body,
                            out=a if inplace else None, integer=integer)


for _op, _instruction in (("add", "arith.addf"), ("sub", "arith.subf"), ("mul", "arith.mulf"),
                          ("div", "arith.divf")):
    _binary(getattr(aten, _op).Tensor, _instruction)
    _binary(getattr(aten, _op + "_").Tensor, _instruction, inplace=True)
_binary(aten.maximum.default, "arith.maximumf")
_binary(aten.minimum.default, "arith.minimumf")


# ---- comparisons and selection (booleans are i8 on the device) ------------------------------

def _compare(op, predicate):
    """a (predicate) b as a boolean; NaN compares as PyTorch does (une for ne)."""
    @_lowered(op)
    def lower(dev, a, b):
        def body(w, x):
            return w.boolean(w.cmp(predicate, x[0], x[1]))
        return _elementwise(dev, op, (a, b), {}, f"cmp_{predicate}", [a, b], _broadcast(a, b),
                            torch.result_type(a, b), body, out_dtype=torch.bool)


for _op, _predicate in (("eq", "oeq"), ("ne", "une"), ("lt", "olt"), ("le", "ole"),
                        ("gt", "ogt"), ("ge", "oge")):
    _compare(getattr(aten, _op).Tensor, _predicate)
    _compare(getattr(aten, _op).Scalar, _predicate)


@_lowered(aten.where.self)
def _where(dev, condition, a, b):
    def body(w, x):
        return w.select(w.is_true(x[0]), x[1], x[2])
    return _elementwise(dev, aten.where.self, (condition, a, b), {}, "where",
                        [condition, a, b], _broadcast(condition, a, b), torch.result_type(a, b),
                        body, conditions=(0,))


def _logical(op, name, combine):
    """A boolean of boolean tensors: `combine(w, *conditions)` of their i1s writes the result
    (1 or 0 in the result's type, Body.boolean): logical_not, _and, _or and _xor, and the
    bitwise ops of booleans (`~m`, `m & n`); in place where `op` is (clamp's gradient)."""
    inplace = op._schema.name.endswith("_")

    @_lowered(op)
    def lower(dev, *operands):
        if any(not isinstance(t, torch.Tensor) or t.dtype != torch.bool for t in operands):
            raise _Refused(f"{op._schema.name} of tensors that are not booleans")
        out_shape = _broadcast(*operands)
        if inplace and out_shape != list(operands[0].shape):
            raise _Refused("the in-place result does not have self's shape")
        # the body computes nothing in a float type; the device's own one names it
        compute = torch.float32 if dev.kind == "tpu" else torch.float16
        return _elementwise(dev, op, operands, {}, name, list(operands), out_shape, compute,
                            lambda w, x: combine(w, *[w.is_true(v) for v in x]),
                            out=operands[0] if inplace else None, out_dtype=torch.bool,
                            conditions=tuple(range(len(operands))))


def _negated(w, p):
    """The result's boolean of not p."""
    return w.select(p, w.const(0, w.out), w.const(1, w.out), element=w.out)


LOGICAL = {
    "not": _negated,
    "and": lambda w, p, q: w.select(p, w.boolean(q), w.const(0, w.out), element=w.out),
    "or": lambda w, p, q: w.select(p, w.const(1, w.out), w.boolean(q), element=w.out),
    "xor": lambda w, p, q: w.select(p, _negated(w, q), w.boolean(q), element=w.out),
}
for _name, _combine in LOGICAL.items():
    for _suffix in ("", "_"):
        _logical(getattr(aten, f"logical_{_name}{_suffix}").default, f"logical_{_name}",
                 _combine)
        _bitwise = getattr(aten, f"bitwise_{_name}{_suffix}")
        _logical(_bitwise.default if _name == "not" else _bitwise.Tensor, f"logical_{_name}",
                 _combine)


def _masked_fill(op, inplace):
    """self with `value` where `mask` is true."""
    @_lowered(op)
    def lower(dev, a, mask, value):
        if inplace and _broadcast(a, mask) != list(a.shape):
            raise _Refused("the mask does not broadcast to self")

        def body(w, x):
            return w.select(w.is_true(x[1]), x[2], x[0])
        return _elementwise(dev, op, (a, mask, value), {}, "masked_fill", [a, mask, value],
                            _broadcast(a, mask), a.dtype, body, out=a if inplace else None,
                            conditions=(1,))


_masked_fill(aten.masked_fill.Scalar, False)
_masked_fill(aten.masked_fill.Tensor, False)
_masked_fill(aten.masked_fill_.Scalar, True)
_masked_fill(aten.masked_fill_.Tensor, True)


def _sigmoid(w, x):
    one = w.const(1.0)
    return w.op("arith.divf", one, w.op("arith.addf", one, w.op("math.exp", w.op("arith.negf", x))))


def _gelu(w, x, approximate):
    half, one = w.const(0.5), w.const(1.0)
    if approximate == "tanh":
        cube = w.op("arith.mulf", w.op("arith.mulf", x, x), x)
        inner = w.op("arith.addf", x, w.op("arith.mulf", w.const(0.044715), cube))
        t = w.op("math.tanh", w.op("arith.mulf", w.const(math.sqrt(2 / math.pi)), inner))
    else:
        t = w.op("math.erf", w.op("arith.mulf", x, w.const(1 / math.sqrt(2))))
    return w.op("arith.mulf", w.op("arith.mulf", half, x), w.op("arith.addf", one, t))


UNARY = {
    "neg": lambda w, x: w.op("arith.negf", x),
    "relu": lambda w, x: w.op("arith.maximumf", x, w.const(0.0)),
    "tanh": lambda w, x: w.op("math.tanh", x),
    "exp": lambda w, x: w.op("math.exp", x),
    "log": lambda w, x: w.op("math.log", x),
    "log2": lambda w, x: w.op("arith.divf", w.op("math.log", x), w.const(math.log(2.0))),
    "log10": lambda w, x: w.op("arith.divf", w.op("math.log", x), w.const(math.log(10.0))),
    "erf": lambda w, x: w.op("math.erf", x),
    "sqrt": lambda w, x: w.op("math.sqrt", x),
    "rsqrt": lambda w, x: w.op("math.rsqrt", x),
    "abs": lambda w, x: w.op("math.absf", x),
    "reciprocal": lambda w, x: w.op("arith.divf", w.const(1.0), x),
    "sigmoid": _sigmoid,
    "silu": lambda w, x: w.op("arith.mulf", x, _sigmoid(w, x)),
}


def _unary(op, name, body, inplace=False):
    @_lowered(op)
    def lower(dev, a):
        if not a.is_floating_point():
            raise _Refused(f"{name} of {a.dtype}")
        return _elementwise(dev, op, (a,), {}, name, [a], list(a.shape), a.dtype,
                            lambda w, x: body(w, x[0]), out=a if inplace else None)


for _name, _body in UNARY.items():
    _unary(getattr(aten, _name).default, _name, _body)
    if hasattr(aten, _name + "_"):
        _unary(getattr(aten, _name + "_").default, _name, _body, inplace=True)


@_lowered(aten.gelu.default)
def _gelu_op(dev, a, approximate="none"):
    return _elementwise(dev, aten.gelu.default, (a,), {"approximate": approximate},
                        f"gelu_{approximate}", [a], list(a.shape), a.dtype,
                        lambda w, x: _gelu(w, x[0], approximate))


def _gelu_derivative(w, x, approximate):
    """d gelu(x) / dx, as PyTorch's gelu_backward computes it."""
    one, half = w.const(1.0), w.const(0.5)
    if approximate == "tanh":
        beta, kappa = math.sqrt(2 / math.pi), 0.044715
        square = w.op("arith.mulf", x, x)
        inner = w.op("arith.mulf", w.const(beta), w.op("arith.addf", x, w.op(
            "arith.mulf", w.const(kappa), w.op("arith.mulf", square, x))))
        t = w.op("math.tanh", inner)
        left = w.op("arith.mulf", half, x)
        left_derivative = w.op("arith.mulf", half, w.op("arith.addf", one, t))
        tanh_derivative = w.op("arith.subf", one, w.op("arith.mulf", t, t))
        inner_derivative = w.op("arith.mulf", w.const(beta), w.op(
            "arith.addf", one, w.op("arith.mulf", w.const(3 * kappa), square)))
        right_derivative = w.op("arith.mulf", left, w.op("arith.mulf", tanh_derivative,
                                                          inner_derivative))
        return w.op("arith.addf", left_derivative, right_derivative)
    cdf = w.op("arith.mulf", half, w.op("arith.addf", one, w.op(
        "math.erf", w.op("arith.mulf", x, w.const(1 / math.sqrt(2))))))
    pdf = w.op("arith.mulf", w.const(1 / math.sqrt(2 * math.pi)), w.op(
        "math.exp", w.op("arith.mulf", w.const(-0.5), w.op("arith.mulf", x, x))))
    return w.op("arith.addf", cdf, w.op("arith.mulf", x, pdf))


@_lowered(aten.gelu_backward.default)
def _gelu_backward(dev, grad, x, approximate="none"):
    if grad.shape != x.shape or grad.dtype != x.dtype:
        raise _Refused("a gradient of another shape or dtype than the input")
    return _elementwise(dev, aten.gelu_backward.default, (grad, x), {"approximate": approximate},
                        f"gelu_backward_{approximate}", [grad, x], list(x.shape), x.dtype,
                        lambda w, v: w.op("arith.mulf", v[0],
                                          _gelu_derivative(w, v[1], approximate)))


@_lowered(aten.threshold_backward.default)
def _threshold_backward(dev, grad, x, threshold):
    """0 where x <= threshold, else grad (at NaN too, as the CPU: relu's gradient)."""
    def body(w, v):
        return w.select(w.cmp("ole", v[1], v[2]), w.const(0.0), v[0])
    return _elementwise(dev, aten.threshold_backward.default, (grad, x, threshold), {},
                        "threshold_backward", [grad, x, threshold], list(grad.shape),
                        grad.dtype, body)


@_lowered(aten.tanh_backward.default)
def _tanh_backward(dev, grad, y):
    def body(w, v):
        return w.op("arith.mulf", v[0], w.op("arith.subf", w.const(1.0),
                                             w.op("arith.mulf", v[1], v[1])))
    return _elementwise(dev, aten.tanh_backward.default, (grad, y), {}, "tanh_backward",
                        [grad, y], list(grad.shape), grad.dtype, body)


@_lowered(aten.sigmoid_backward.default)
def _sigmoid_backward(dev, grad, y):
    def body(w, v):
        return w.op("arith.mulf", v[0], w.op("arith.mulf", v[1],
                                             w.op("arith.subf", w.const(1.0), v[1])))
    return _elementwise(dev, aten.sigmoid_backward.default, (grad, y), {}, "sigmoid_backward",
                        [grad, y], list(grad.shape), grad.dtype, body)


def _addc(op, combine):
    @_lowered(op)
    def lower(dev, a, t1, t2, value=1):
        def body(w, v):
            return w.op("arith.addf", v[0], w.op("arith.mulf", w.op(combine, v[1], v[2]), v[3]))
        name = op._schema.name.split("::")[1].rstrip("_")
        inplace = op._schema.name.endswith("_")
        out_shape = _broadcast(a, t1, t2)
        if inplace and out_shape != list(a.shape):
            raise _Refused("the in-place result does not have self's shape")
        if not a.dtype == t1.dtype == t2.dtype:
            raise _Refused("operands of different dtypes")
        dtype = a.dtype
        return _elementwise(dev, op, (a, t1, t2), {"value": value}, name, [a, t1, t2, value],
                            out_shape, dtype, body, out=a if inplace else None)


_addc(aten.addcmul_.default, "arith.mulf")
_addc(aten.addcdiv_.default, "arith.divf")
_addc(aten.addcmul.default, "arith.mulf")
_addc(aten.addcdiv.default, "arith.divf")


@_lowered(aten.clone.default)
def _clone(dev, x, memory_format=None):
    """A copy on the device, laid out contiguously (what reshape and contiguous() make of a
    view they cannot keep): the view read in the program (eager.view_of), not copied through
    the host; a deferred graph goes on recording."""
    element = _element(x.dtype, dev)
    keeps_strides = memory_format in (None, torch.preserve_format) and not x.is_contiguous()
    if element is None or keeps_strides or memory_format not in (
            None, torch.preserve_format, torch.contiguous_format) or not eager.reads_view(dev, x):
        # PyTorch's own clone: a copy through the host (which also runs what is deferred)
        out = torch.empty_like(x, memory_format=memory_format or torch.preserve_format)
        return out.copy_(x)
    out = torch.empty(x.shape, dtype=x.dtype, device=dev.torch_device)
    shape = eager.shape_of(x)
    _execute(dev, aten.clone.default, (x,), {"memory_format": memory_format},
             ("copy", tuple(shape), element), [x], [out],
             lambda g, xs: [graph_text.emit_elementwise(g, xs, shape, element,
                                                        lambda w, v: v[0])])
    return out


@_lowered(aten.fill_.Scalar)
def _fill(dev, a, value):
    if a.numel() == 0:
        return a  # nothing to write: no program
    element = _element(a.dtype, dev)
    if element is None or eager.bindable(a) is None:
        raise _Refused("fill of this dtype or of a view")
    shape = eager.shape_of(a)
    _execute(dev, aten.fill_.Scalar, (a, value), {}, ("fill", tuple(shape), element, value),
             [], [a], lambda g, xs: [graph_text.emit_fill(g, value, shape, element)])
    return a


@_lowered(aten.zero_.default)
def _zero(dev, a):
    if a.numel() == 0:
        return a  # nothing to write: no program
    element = _element(a.dtype, dev)
    if element is None or eager.bindable(a) is None:
        raise _Refused("zero of this dtype or of a view")
    shape = eager.shape_of(a)
    _execute(dev, aten.zero_.default, (a,), {}, ("zero", tuple(shape), element), [], [a],
             lambda g, xs: [graph_text.emit_fill(g, 0.0, shape, element)])
    return a


# ---- normalisation and powers -----------------------------------------------------------------

@_lowered(aten.native_layer_norm.default)
def _layer_norm(dev, x, normalized_shape, weight, bias, eps):
    """y, mean and rstd in one program (the variance in a second pass over the centred rows,
    so a large mean does not swamp a small spread)."""
    element = _element(x.dtype, dev)
    if element is None or len(normalized_shape) != 1 or x.dim() < 1:
        raise _Refused("layer norm over more than the last dimension, or of this dtype")
    n = x.shape[-1]
    m = x.numel() // n
    params = [p for p in (weight, bias) if p is not None]
    if any(p.dtype != x.dtype for p in params):
        raise _Refused("parameters of another dtype")
    args = (x, normalized_shape, weight, bias, eps)
    new = lambda shape: torch.empty(shape, dtype=x.dtype, device=dev.torch_device)  # noqa
    y, mean, rstd = new(x.shape), new([m]), new([m])
    key = ("layer_norm", tuple(x.shape), element, weight is not None, bias is not None, eps)
    rows = lambda g, v: graph_text.reshape(g, v, list(x.shape), [m, n], element)  # noqa

    def emit(g, xs):
        it = iter(xs[1:])
        w = next(it)[0] if weight is not None else None
        b = next(it)[0] if bias is not None else None
        out, mu, rs = graph_text.emit_layer_norm(g, (rows(g, xs[0][0]), [m, n]), w, b, element,
                                                 eps)
        out = graph_text.reshape(g, out, [m, n], list(x.shape), element)
        return [out, mu, rs]

    execution.execute(dev, eager.Op(key, [x, *params], [y, mean, rstd], emit,
                                    aten.native_layer_norm.default, args, {}))
    return y, mean.view([*x.shape[:-1], 1]), rstd.view([*x.shape[:-1], 1])


@_lowered(aten.pow.Tensor_Scalar)
def _pow(dev, a, exponent):
    powers = {2: lambda w, x: w.op("arith.mulf", x, x), 1: lambda w, x: x,
              0.5: lambda w, x: w.op("math.sqrt", x), -0.5: lambda w, x: w.op("math.rsqrt", x),
              -1: lambda w, x: w.op("arith.divf", w.const(1.0), x),
              3: lambda w, x: w.op("arith.mulf", w.op("arith.mulf", x, x), x)}
    if not a.is_floating_point() or exponent not in powers:
        raise _Refused(f"pow by {exponent}")
    return _elementwise(dev, aten.pow.Tensor_Scalar, (a, exponent), {}, f"pow_{exponent}", [a],
                        list(a.shape), a.dtype, lambda w, x: powers[exponent](w, x[0]))


# ---- the dynamic padder's mask (chipless/torch/dynamic.py) ---------------------------------

_dyn = torch.library.Library("chipless_dyn", "DEF")
_dyn.define("masked(Tensor x, Tensor valid, float fill) -> Tensor")


def _masked_reference(x, valid, fill):
    """x where `valid` (broadcast to x) is above one half, `fill` elsewhere."""
    return torch.where(valid > 0.5, x, torch.tensor(fill, dtype=x.dtype))


_dyn.impl("masked", _masked_reference, "CPU")


@_lowered(torch.ops.chipless_dyn.masked.default, _dyn)
def _masked(dev, x, valid, fill):
    if valid.dtype != x.dtype:
        raise _Refused("the mask's dtype is not the masked tensor's")

    def body(w, v):
        return w.select(w.cmp("ogt", v[1], w.const(0.5)), v[0], w.const(fill))
    name = {math.inf: "masked_inf", -math.inf: "masked_minus_inf"}.get(fill, f"masked_{fill:g}")
    return _elementwise(dev, torch.ops.chipless_dyn.masked.default, (x, valid, fill), {},
                        name.replace(".", "_").replace("-", "minus"), [x, valid],
                        list(x.shape), x.dtype, body)
