"""Tensor graphs (docs/graph-ir.md) for one ATen op at a time: the text tpu-compile and
spyre-compile take, with static shapes and one element type per op.

Every builder returns (text, arguments, results): the MLIR text of a module holding one
func.func, and the graph names of its tensor arguments and results in order.
"""

#: MLIR element types of the device dtypes.
ELEMENT = {"f32": "f32", "bf16": "bf16", "f16": "f16", "i32": "i32", "i8": "i8"}


def tensor_type(shape, element):
    return "tensor<" + "x".join(str(d) for d in shape) + f"x{element}>"


def _affine(rank, dims):
    loops = ", ".join(f"d{i}" for i in range(rank))
    return f"affine_map<({loops}) -> ({', '.join(f'd{d}' for d in dims)})>"


def broadcast_operand(shape, out_shape):
    """How an operand of `shape` is read by an element-wise op of `out_shape` (PyTorch's
    broadcasting, aligned on the right): (the shape it is collapsed to, its reassociation
    groups or None when nothing is dropped, the loops that index it). None when every
    dimension is broadcast (the operand is one value)."""
    offset = len(out_shape) - len(shape)
    kept, loops = [], []
    for j, d in enumerate(shape):
        if d == out_shape[j + offset]:
            kept.append(j)
            loops.append(j + offset)
        elif d != 1:
            raise ValueError(f"shape {list(shape)} does not broadcast to {list(out_shape)}")
    if not kept:
        return None
    if len(kept) == len(shape):
        return list(shape), None, loops
    # Each dropped (size-1) dimension joins the group of the next kept one, or the last.
    groups, pending = [], []
    for j in range(len(shape)):
        pending.append(j)
        if j in kept:
            groups.append(pending)
            pending = []
    groups[-1].extend(pending)
    return [shape[j] for j in kept], groups, loops


class Graph:
    """A graph being written: arguments, body lines, results."""

    def __init__(self, name):
        self.name = name
        self.args, self.lines, self.results = [], [], []
        self._n = 0

    def value(self):
        self._n += 1
        return f"%v{self._n}"

    def argument(self, name, shape, element):
        self.args.append((name, tensor_type(shape, element)))
        return f"%{name}"

    def line(self, text):
        self.lines.append("  " + text)

    def collapse(self, value, shape, groups, to_shape, element):
        out = self.value()
        self.line(f"{out} = tensor.collapse_shape {value} {groups} : "
                  f"{tensor_type(shape, element)} into {tensor_type(to_shape, element)}")
        return out

    def expand(self, value, shape, groups, to_shape, element):
        out = self.value()
        self.line(f"{out} = tensor.expand_shape {value} {groups} output_shape "
                  f"{list(to_shape)} : {tensor_type(shape, element)} into "
                  f"{tensor_type(to_shape, element)}")
        return out

    def empty(self, shape, element):
        out = self.value()
        self.line(f"{out} = tensor.empty() : {tensor_type(shape, element)}")
        return out

    def fill(self, value, shape, element):
        """A tensor of `shape` filled with the constant `value`."""
        c, e, out = self.value(), self.empty(shape, element), self.value()
        self.line(f"{c} = arith.constant {_literal(value, element)} : {element}")
        self.line(f"{out} = linalg.fill ins({c} : {element}) outs({e} : "
                  f"{tensor_type(shape, element)}) -> {tensor_type(shape, element)}")
        return out

    def result(self, name, value, shape, element):
        self.results.append((name, value, tensor_type(shape, element)))

    def text(self):
        args = ", ".join(f'%{n}: {t} {{graph.name = "{n}"}}' for n, t in self.args)
        results = ", ".join(f'{t} {{graph.name = "{n}"}}' for n, _, t in self.results)
        ret = ", ".join(v for _, v, _ in self.results)
        types = ", ".join(t for _, _, t in self.results)
        return "\n".join([f"func.func @{self.name}({args}) -> ({results}) {{", *self.lines,
                          f"  return {ret} : {types}", "}", ""])

    def signature(self):
        return [n for n, _ in self.args], [n for n, _, _ in self.results]


def _literal(value, element):
    if element in ("i32", "i8", "i1"):
        return str(int(value))
    value = float(value)
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError(f"the constant {value} has no literal here")
    return f"{value:.9e}"


def _parallel(rank):
    return "[" + ", ".join(['"parallel"'] * rank) + "]"


def elementwise(name, out_shape, element, operands, body, out_element=None):
    """out = body(operands...) element by element. `operands` are (graph name, shape) pairs
    broadcast to `out_shape`; `body(b, xs)` writes body lines with b.op(...) and returns the
    value yielded (xs: the scalar block arguments)."""
    out_element = out_element or element
    rank = len(out_shape)
    g = Graph(name)
    values, maps = [], []
    for arg, shape in operands:
        v = g.argument(arg, shape, element)
        read = broadcast_operand(shape, out_shape)
        if read is None:
            raise ValueError("an operand of one value is passed as a row")
        to_shape, groups, loops = read
        if groups is not None:
            v = g.collapse(v, shape, groups, to_shape, element)
        values.append((v, tensor_type(to_shape, element)))
        maps.append(_affine(rank, loops))
    out = g.empty(out_shape, out_element)
    maps.append(_affine(rank, range(rank)))
    body_writer = Body(element)
    block = ", ".join(f"%e{i}: {element}" for i in range(len(operands)))
    yielded = body(body_writer, [f"%e{i}" for i in range(len(operands))])
    result = g.value()
    out_type = tensor_type(out_shape, out_element)
    g.line(f"{result} = linalg.generic {{indexing_maps = [{', '.join(maps)}], "
           f"iterator_types = {_parallel(rank)}}}")
    g.line(f"    ins({', '.join(v for v, _ in values)} : {', '.join(t for _, t in values)}) "
           f"outs({out} : {out_type}) {{")
    g.line(f"  ^bb0({block}, %o: {out_element}):")
    for line in body_writer.lines:
        g.line("    " + line)
    g.line(f"    linalg.yield {yielded} : {out_element}")
    g.line(f"}} -> {out_type}")
    g.result("out", result, out_shape, out_element)
    return g


class Body:
    """Scalar ops of a linalg body, in one element type."""

    def __init__(self, element):
        self.element = element
        self.lines = []
        self._n = 0

    def _value(self):
        self._n += 1
        return f"%s{self._n}"

    def const(self, value, element=None):
        element = element or self.element
        v = self._value()
        self.lines.append(f"{v} = arith.constant {_literal(value, element)} : {element}")
        return v

    def op(self, name, *operands, result=None):
        v = self._value()
        self.lines.append(f"{v} = {name} {', '.join(operands)} : {result or self.element}")
        return v

    def cmp(self, predicate, a, b):
        v = self._value()
        self.lines.append(f"{v} = arith.cmpf {predicate}, {a}, {b} : {self.element}")
        return v

    def select(self, condition, a, b):
        v = self._value()
        self.lines.append(f"{v} = arith.select {condition}, {a}, {b} : {self.element}")
        return v


def matmul(name, a_shape, b_shape, element, out_element, bias_shape=None, batch=False,
           b_transposed=False):
    """out = a @ b (+ bias, broadcast over the rows) as linalg.matmul or batch_matmul. With
    `b_transposed` the argument b holds b's transpose ([N, K]), read through a
    linalg.transpose (the compilers read such a right-hand side in place)."""
    g = Graph(name)
    a = g.argument("a", a_shape, element)
    if b_transposed:
        stored = [*b_shape[:-2], b_shape[-1], b_shape[-2]]
        bt = g.argument("b", stored, element)
        e = g.empty(b_shape, element)
        b = g.value()
        perm = list(range(len(b_shape) - 2)) + [len(b_shape) - 1, len(b_shape) - 2]
        g.line(f"{b} = linalg.transpose ins({bt} : {tensor_type(stored, element)}) outs({e} : "
               f"{tensor_type(b_shape, element)}) permutation = {perm}")
    else:
        b = g.argument("b", b_shape, element)
    out_shape = [*a_shape[:-1], b_shape[-1]]
    zero = g.fill(0.0, out_shape, out_element)
    product = g.value()
    op = "linalg.batch_matmul" if batch else "linalg.matmul"
    out_type = tensor_type(out_shape, out_element)
    g.line(f"{product} = {op} ins({a}, {b} : {tensor_type(a_shape, element)}, "
           f"{tensor_type(b_shape, element)}) outs({zero} : {out_type}) -> {out_type}")
    if bias_shape is None:
        g.result("out", product, out_shape, out_element)
        return g
    bias = g.argument("bias", bias_shape, out_element)
    read = broadcast_operand(bias_shape, out_shape)
    to_shape, groups, loops = read
    if groups is not None:
        bias = g.collapse(bias, bias_shape, groups, to_shape, out_element)
    rank = len(out_shape)
    e = g.empty(out_shape, out_element)
    result = g.value()
    g.line(f"{result} = linalg.generic {{indexing_maps = [{_affine(rank, range(rank))}, "
           f"{_affine(rank, loops)}, {_affine(rank, range(rank))}], iterator_types = "
           f"{_parallel(rank)}}}")
    g.line(f"    ins({product}, {bias} : {out_type}, {tensor_type(to_shape, out_element)}) "
           f"outs({e} : {out_type}) {{")
    g.line(f"  ^bb0(%p: {out_element}, %c: {out_element}, %o: {out_element}):")
    g.line(f"    %s = arith.addf %p, %c : {out_element}")
    g.line(f"    linalg.yield %s : {out_element}")
    g.line(f"}} -> {out_type}")
    g.result("out", result, out_shape, out_element)
    return g


def softmax(name, shape, element):
    """Softmax over the last dimension."""
    g = Graph(name)
    x = g.argument("x", shape, element)
    e = g.empty(shape, element)
    out = g.value()
    t = tensor_type(shape, element)
    g.line(f"{out} = linalg.softmax dimension({len(shape) - 1}) ins({x} : {t}) outs({e} : {t}) "
           f"-> {t}")
    g.result("out", out, shape, element)
    return g


def reduce_last(name, shape, element, combine, init, scale=None):
    """out[...] = combine over the last dimension (arith.addf, arith.maximumf, ...) of x, or
    of x times `scale` when given (a mean: the scaling fuses with the reduction's kernel)."""
    g = Graph(name)
    x = g.argument("x", shape, element)
    out_shape = list(shape[:-1]) or [1]
    if len(shape) == 1:  # a whole 1-D tensor into one value: read it as [1, N]
        x = g.expand(x, shape, [[0, 1]], [1, shape[0]], element)
        shape = [1, shape[0]]
    t = tensor_type(shape, element)
    if scale is not None:
        rank = len(shape)
        e, scaled = g.empty(shape, element), g.value()
        g.line(f"{scaled} = linalg.generic {{indexing_maps = [{_affine(rank, range(rank))}, "
               f"{_affine(rank, range(rank))}], iterator_types = {_parallel(rank)}}} "
               f"ins({x} : {t}) outs({e} : {t}) {{")
        g.line(f"  ^bb0(%v: {element}, %o: {element}):")
        g.line(f"    %k = arith.constant {_literal(scale, element)} : {element}")
        g.line(f"    %m = arith.mulf %v, %k : {element}")
        g.line(f"    linalg.yield %m : {element}")
        g.line(f"}} -> {t}")
        x = scaled
    acc = g.fill(init, out_shape, element)
    out = g.value()
    g.line(f"{out} = linalg.reduce ins({x} : {t}) outs({acc} : "
           f"{tensor_type(out_shape, element)}) dimensions = [{len(shape) - 1}]")
    g.line(f"  (%in: {element}, %acc: {element}) {{")
    g.line(f"    %r = {combine} %in, %acc : {element}")
    g.line(f"    linalg.yield %r : {element}")
    g.line("  }")
    g.result("out", out, out_shape, element)
    return g
