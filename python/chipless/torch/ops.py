"""The ATen ops lowered to the emulated devices, registered as PrivateUse1 kernels. Every op
not here runs through ATen's CPU fallback (pybind/torch/cpu_fallback.cpp), counted; docs/
ops.md lists which ops run on each device and how their numerics compare with the CPU's.

Python numbers and one-element tensors in element-wise ops (`x * 0.5`, `alpha=`, `value=`)
become rows of the output's last dimension passed as arguments, so a program is compiled per
op, shapes and dtypes — not per value — and an optimizer's changing step sizes reuse it.
"""
import math

import torch

from chipless.errors import ChiplessError
from chipless.torch import devices, eager, graph_text

_lib = torch.library.Library("aten", "IMPL", "PrivateUse1")


def _device_of(*values):
    for v in values:
        if isinstance(v, torch.Tensor) and v.device.type == "privateuseone":
            return devices.of(v)
    raise ChiplessError("no operand is on an emulated device")


def on_cpu(op, args, kwargs, dev, reason=None):
    """Runs `op` on the CPU: device tensors copied to the host, results copied back (into
    `self` for an in-place op). An error instead in strict mode."""
    if eager.strict():
        raise ChiplessError(f"chipless: {op} does not run on {dev.name} "
                            f"({reason or 'no lowering'}), and strict mode does not let it run "
                            f"on the CPU (chipless.torch.set_strict(False) allows the fallback)")
    eager.count_cpu(dev, str(op))

    def host(v):
        if isinstance(v, torch.Tensor) and v.device.type == "privateuseone":
            return v.cpu()
        if isinstance(v, (list, tuple)):
            return type(v)(host(x) for x in v)
        return v

    result = op(*[host(a) for a in args], **{k: host(v) for k, v in kwargs.items()})
    if op._schema.name.endswith("_") and args and isinstance(args[0], torch.Tensor):
        args[0].copy_(result)
        return args[0]
    if isinstance(result, torch.Tensor):
        return result.to(dev.torch_device)
    if isinstance(result, tuple):
        return tuple(r.to(dev.torch_device) if isinstance(r, torch.Tensor) else r
                     for r in result)
    return result


def _element(dtype, dev):
    """The graph element type of `dtype` on `dev`, or None when its compiler has no float
    arithmetic of that type."""
    name = eager.DEVICE_DTYPE.get(dtype)
    return name if name in eager.FLOAT_TYPES[dev.kind] else None


def _row(value, n, dtype, dev):
    """A one-value operand (a number, or a one-element tensor) as a device row of n values."""
    if isinstance(value, torch.Tensor) and value.device.type == "privateuseone":
        return value.reshape(1).to(dtype).expand(n)
    if isinstance(value, torch.Tensor):
        value = value.item()
    return torch.full([n], value, dtype=dtype).to(dev.torch_device)


def _run_elementwise(dev, op_name, operands, out_shape, dtype, body, out=None):
    """out = body(operands) on the device; operands are tensors or numbers (rows)."""
    element = _element(dtype, dev)
    if element is None:
        raise _Refused(f"{dtype} arithmetic is not lowered on {dev.kind}")
    n = out_shape[-1] if out_shape else 1
    gshape = list(out_shape) or [1]
    tensors = []
    for v in operands:
        if not isinstance(v, torch.Tensor) or v.numel() == 1 and gshape != [1]:
            v = _row(v, n, dtype, dev)
        elif v.device.type != "privateuseone":
            v = v.to(dev.torch_device)
        if v.dtype != dtype:
            v = v.to(dtype)
        tensors.append(v)
    shapes = [list(t.shape) or [1] for t in tensors]
    key = (op_name, tuple(gshape), tuple(map(tuple, shapes)), element)
    names = [f"x{i}" for i in range(len(tensors))]
    prepared = eager.program(dev, key, lambda: graph_text.elementwise(
        op_name.replace(".", "_"), gshape, element, list(zip(names, shapes)), body))
    bound, keep = {}, []  # keep: copies made for binding live until the launch is done
    for name, t in zip(names, tensors):
        own, bound[name] = eager.resident(t, dev)
        keep.append(own)
    target = out if out is not None and eager.bindable(out) is not None else None
    result = target if target is not None else torch.empty(out_shape, dtype=dtype,
                                                           device=dev.torch_device)
    bound["out"] = eager.bindable(result)
    eager.launch(dev, prepared, bound)
    if out is not None and target is None:
        out.copy_(result)
        return out
    return result


class _Refused(Exception):
    """This call cannot be lowered (the op then runs on the CPU)."""


def _lowered(op):
    """Registers `fn(dev, *args, **kwargs)` as the PrivateUse1 kernel of `op` (an OpOverload);
    a call it refuses, or whose graph the compiler refuses, runs on the CPU."""
    def register(fn):
        def kernel(*args, **kwargs):
            dev = _device_of(*args, *kwargs.values())
            try:
                return fn(dev, *args, **kwargs)
            except _Refused as e:
                return on_cpu(op, args, kwargs, dev, str(e))
            except ChiplessError as e:
                if "strict mode" in str(e):
                    raise
                return on_cpu(op, args, kwargs, dev, str(e).splitlines()[0])
        _lib.impl(op._schema.name.split("::")[1] +
                  (f".{op._overloadname}" if op._overloadname != "default" else ""), kernel)
        return fn
    return register


aten = torch.ops.aten


def _binary(op, instruction, inplace=False):
    """add and sub: a (op) alpha * b."""
    @_lowered(op)
    def lower(dev, a, b, alpha=1):
        dtype = a.dtype if inplace else torch.result_type(a, b)
        out_shape = _broadcast(a, b)
        if inplace and out_shape != list(a.shape):
            raise _Refused("the in-place result does not have self's shape")
        operands = [a, b] + ([alpha] if alpha != 1 else [])

        def body(w, x):
            other = w.op("arith.mulf", x[1], x[2]) if len(x) == 3 else x[1]
            return w.op(instruction, x[0], other)
        name = instruction.split(".")[1] + ("_alpha" if alpha != 1 else "")
        return _run_elementwise(dev, name, operands, out_shape, dtype, body,
                                out=a if inplace else None)


def _broadcast(a, b):
    shape = lambda v: tuple(v.shape) if isinstance(v, torch.Tensor) else ()  # noqa: E731
    return list(torch.broadcast_shapes(shape(a), shape(b)))


_binary(aten.add.Tensor, "arith.addf")
_binary(aten.add_.Tensor, "arith.addf", inplace=True)
_binary(aten.sub.Tensor, "arith.subf")
_binary(aten.sub_.Tensor, "arith.subf", inplace=True)


def _plain_binary(op, instruction, inplace=False):
    @_lowered(op)
    def lower(dev, a, b):
        dtype = a.dtype if inplace else torch.result_type(a, b)
        out_shape = _broadcast(a, b)
        if inplace and out_shape != list(a.shape):
            raise _Refused("the in-place result does not have self's shape")
        return _run_elementwise(dev, instruction.split(".")[1], [a, b], out_shape, dtype,
                                lambda w, x: w.op(instruction, x[0], x[1]),
                                out=a if inplace else None)


_plain_binary(aten.mul.Tensor, "arith.mulf")
_plain_binary(aten.mul_.Tensor, "arith.mulf", inplace=True)
_plain_binary(aten.div.Tensor, "arith.divf")
_plain_binary(aten.div_.Tensor, "arith.divf", inplace=True)
_plain_binary(aten.maximum.default, "arith.maximumf")
_plain_binary(aten.minimum.default, "arith.minimumf")


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
        return _run_elementwise(dev, name, [a], list(a.shape), a.dtype,
                                lambda w, x: body(w, x[0]), out=a if inplace else None)


for _name, _body in UNARY.items():
    _unary(getattr(aten, _name).default, _name, _body)
    if hasattr(aten, _name + "_"):
        _unary(getattr(aten, _name + "_").default, _name, _body, inplace=True)


@_lowered(aten.gelu.default)
def _gelu_op(dev, a, approximate="none"):
    return _run_elementwise(dev, f"gelu_{approximate}", [a], list(a.shape), a.dtype,
                            lambda w, x: _gelu(w, x[0], approximate))


@_lowered(aten.threshold_backward.default)
def _threshold_backward(dev, grad, x, threshold):
    def body(w, v):
        keep = w.cmp("ogt", v[1], v[2])
        return w.select(keep, v[0], w.const(0.0))
    return _run_elementwise(dev, "threshold_backward", [grad, x, threshold], list(grad.shape),
                            grad.dtype, body)


@_lowered(aten.tanh_backward.default)
def _tanh_backward(dev, grad, y):
    def body(w, v):
        return w.op("arith.mulf", v[0], w.op("arith.subf", w.const(1.0),
                                             w.op("arith.mulf", v[1], v[1])))
    return _run_elementwise(dev, "tanh_backward", [grad, y], list(grad.shape), grad.dtype, body)


@_lowered(aten.sigmoid_backward.default)
def _sigmoid_backward(dev, grad, y):
    def body(w, v):
        return w.op("arith.mulf", v[0], w.op("arith.mulf", v[1],
                                             w.op("arith.subf", w.const(1.0), v[1])))
    return _run_elementwise(dev, "sigmoid_backward", [grad, y], list(grad.shape), grad.dtype,
                            body)


def _addc(op, combine):
    @_lowered(op)
    def lower(dev, a, t1, t2, value=1):
        def body(w, v):
            product = w.op(combine, v[1], v[2])
            return w.op("arith.addf", v[0], w.op("arith.mulf", product, v[3]))
        return _run_elementwise(dev, op._schema.name.split("::")[1].rstrip("_"),
                                [a, t1, t2, value], list(a.shape), a.dtype, body,
                                out=a if op._schema.name.endswith("_") else None)


_addc(aten.addcmul_.default, "arith.mulf")
_addc(aten.addcdiv_.default, "arith.divf")
_addc(aten.addcmul.default, "arith.mulf")
_addc(aten.addcdiv.default, "arith.divf")


# ---- matmuls --------------------------------------------------------------------------

def _matmul_operand(b, dev):
    """(tensor to bind, transposed?): a transposed view of a tensor of its own is bound as
    that tensor and read through a transpose in the graph."""
    if b.dim() >= 2 and eager.bindable(b) is None:
        t = b.transpose(-1, -2)
        if eager.bindable(t) is not None:
            return t, True
    return b, False


def _matmul(dev, name, a, b, bias=None, beta=1, alpha=1, batch=False):
    if beta != 1 or alpha != 1:
        raise _Refused("addmm with beta or alpha other than 1")
    dtype = a.dtype
    if b.dtype != dtype or (bias is not None and bias.dtype != dtype):
        raise _Refused("operands of different dtypes")
    element = eager.DEVICE_DTYPE.get(dtype)
    allowed = ("bf16", "f32") if dev.kind == "tpu" else ("f16", "bf16")
    if element not in allowed:
        raise _Refused(f"{dtype} matmuls are not lowered on {dev.kind}")
    b_bound, transposed = _matmul_operand(b, dev)
    out_shape = [*a.shape[:-1], b.shape[-1]]
    bias_shape = (list(bias.shape) or [1]) if bias is not None else None
    if bias is not None and bias.numel() == 1:
        bias = bias.reshape(1).expand(out_shape[-1])
        bias_shape = [out_shape[-1]]
    key = (name, tuple(a.shape), tuple(b.shape), transposed, element,
           tuple(bias_shape) if bias_shape else None)
    prepared = eager.program(dev, key, lambda: graph_text.matmul(
        name, list(a.shape), list(b.shape), element, element, bias_shape, batch, transposed))
    operands = {"a": a, "b": b_bound, **({"bias": bias} if bias is not None else {})}
    bound, keep = {}, []  # keep: copies made for binding live until the launch is done
    for name, t in operands.items():
        own, bound[name] = eager.resident(t, dev)
        keep.append(own)
    out = torch.empty(out_shape, dtype=dtype, device=dev.torch_device)
    bound["out"] = eager.bindable(out)
    eager.launch(dev, prepared, bound)
    return out


@_lowered(aten.mm.default)
def _mm(dev, a, b):
    return _matmul(dev, "mm", a, b)


@_lowered(aten.addmm.default)
def _addmm(dev, bias, a, b, beta=1, alpha=1):
    return _matmul(dev, "addmm", a, b, bias, beta, alpha)


@_lowered(aten.bmm.default)
def _bmm(dev, a, b):
    return _matmul(dev, "bmm", a, b, batch=True)


# ---- softmax and reductions over the last dimension ------------------------------------

@_lowered(aten._softmax.default)
def _softmax(dev, x, dim, half_to_float):
    element = _element(x.dtype, dev)
    if half_to_float or element is None or dim % x.dim() != x.dim() - 1 or x.dim() < 1:
        raise _Refused("softmax over another dimension than the last, or of this dtype")
    shape = list(x.shape)
    prepared = eager.program(dev, ("softmax", tuple(shape), element),
                             lambda: graph_text.softmax("softmax", shape, element))
    own, bound = eager.resident(x, dev)
    out = torch.empty(shape, dtype=x.dtype, device=dev.torch_device)
    eager.launch(dev, prepared, {"x": bound, "out": eager.bindable(out)})
    del own
    return out


def _reduce_last(dev, name, x, dims, keepdim, dtype, combine, init, mean=False):
    element = _element(x.dtype, dev)
    last = x.dim() - 1
    dims = [d % x.dim() for d in (dims or [])] if x.dim() else []
    if element is None or dtype not in (None, x.dtype) or dims != [last] or x.dim() < 1:
        raise _Refused("a reduction over another dimension than the last, or of this dtype")
    shape = list(x.shape)
    scale = 1.0 / shape[-1] if mean else None
    prepared = eager.program(dev, (name, tuple(shape), element), lambda: graph_text.reduce_last(
        name, shape, element, combine, init, scale))
    own, bound = eager.resident(x, dev)
    out = torch.empty(shape[:-1], dtype=x.dtype, device=dev.torch_device)
    eager.launch(dev, prepared, {"x": bound, "out": eager.bindable(out)})
    del own
    return out.unsqueeze(-1) if keepdim else out


@_lowered(aten.sum.dim_IntList)
def _sum(dev, x, dim, keepdim=False, dtype=None):
    return _reduce_last(dev, "sum", x, dim, keepdim, dtype, "arith.addf", 0.0)


@_lowered(aten.mean.dim)
def _mean(dev, x, dim, keepdim=False, dtype=None):
    return _reduce_last(dev, "mean", x, dim, keepdim, dtype, "arith.addf", 0.0, mean=True)


@_lowered(aten.amax.default)
def _amax(dev, x, dim=(), keepdim=False):
    return _reduce_last(dev, "amax", x, list(dim), keepdim, None, "arith.maximumf",
                        -3.0e38 if x.dtype != torch.float16 else -65504.0)
