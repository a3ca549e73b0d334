"""Tensor graphs (docs/graph-ir.md), the text tpu-compile and spyre-compile take, written op
by op into one func.func: a single ATen op in eager mode, or every op of a deferred region
in DeferAndFuse mode. Static shapes, one element type per op.

The emit_* functions add one op to a Graph: they take operand values (SSA names with their
shapes) and return the result's value.
"""

#: MLIR element types of the device dtypes.
ELEMENT = {"f32": "f32", "bf16": "bf16", "f16": "f16", "i32": "i32", "i8": "i8"}


def tensor_type(shape, element):
    return "tensor<" + "x".join(str(d) for d in shape) + f"x{element}>"


def _affine(rank, dims):
    loops = ", ".join(f"d{i}" for i in range(rank))
    return f"affine_map<({loops}) -> ({', '.join(f'd{d}' for d in dims)})>"


def _parallel(rank):
    return "[" + ", ".join(['"parallel"'] * rank) + "]"


#: The bit patterns of +inf, -inf and NaN per float type (MLIR writes them as hex literals).
_SPECIAL = {"f32": ("0x7F800000", "0xFF800000", "0x7FC00000"),
            "bf16": ("0x7F80", "0xFF80", "0x7FC0"),
            "f16": ("0x7C00", "0xFC00", "0x7E00")}


def literal(value, element):
    """`value` as an MLIR constant of `element` (infinities and NaN as their bit patterns)."""
    if element in ("i32", "i8", "i1"):
        return str(int(value))
    value = float(value)
    if value != value or value in (float("inf"), float("-inf")):
        inf, minus_inf, nan = _SPECIAL[element]
        return nan if value != value else inf if value > 0 else minus_inf
    return f"{value:.9e}"


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
        self.line(f"{c} = arith.constant {literal(value, element)} : {element}")
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


#: Bits of the float element types a body converts between.
FLOAT_BITS = {"f16": 16, "bf16": 16, "f32": 32}


class Body:
    """Scalar ops of a linalg body, in one element type; `types` names the element type of
    block arguments of another (a boolean operand) and `out` the result's."""

    def __init__(self, element, types=None, out=None):
        self.element = element
        self.types = types or {}
        self.out = out or element
        self.lines = []
        self._n = 0

    def _value(self):
        self._n += 1
        return f"%s{self._n}"

    def const(self, value, element=None):
        element = element or self.element
        v = self._value()
        self.lines.append(f"{v} = arith.constant {literal(value, element)} : {element}")
        return v

    def op(self, name, *operands, result=None):
        v = self._value()
        self.lines.append(f"{v} = {name} {', '.join(operands)} : {result or self.element}")
        return v

    def cmp(self, predicate, a, b):
        v = self._value()
        self.lines.append(f"{v} = arith.cmpf {predicate}, {a}, {b} : {self.element}")
        return v

    def select(self, condition, a, b, element=None):
        v = self._value()
        self.lines.append(f"{v} = arith.select {condition}, {a}, {b} : "
                          f"{element or self.element}")
        return v

    def convert(self, value, source, target):
        """`value` of float type `source` as `target` of another size (arith.extf or
        truncf)."""
        if source == target:
            return value
        v = self._value()
        op = "arith.extf" if FLOAT_BITS[target] > FLOAT_BITS[source] else "arith.truncf"
        self.lines.append(f"{v} = {op} {value} : {source} to {target}")
        return v

    def cast(self, value, source, target):
        """`value` of float type `source` as float type `target`: by way of f32 between the
        two 16-bit types (MLIR has no conversion between them)."""
        if source != target and FLOAT_BITS[source] == FLOAT_BITS[target]:
            value, source = self.convert(value, source, "f32"), "f32"
        return self.convert(value, source, target)

    def is_true(self, flag):
        """An i1 from a boolean operand: 0 or 1 in i8, or in a float type (f16 on Spyre),
        compared in the body's type (Spyre's SFU computes one size of element per op)."""
        element = self.types.get(flag, "i8")
        if self._resized(element, self.element):
            flag, element = self.convert(flag, element, self.element), self.element
        zero = self.const(0, element)
        v = self._value()
        compare = "arith.cmpi ne" if element in ("i8", "i32") else "arith.cmpf une"
        self.lines.append(f"{v} = {compare}, {flag}, {zero} : {element}")
        return v

    def boolean(self, condition):
        """The result's boolean (1 or 0, in its type) of an i1: selected in the body's type
        and converted when the result is a float of another (an f32 comparison's f16
        boolean on Spyre)."""
        element = self.element if self._resized(self.element, self.out) else self.out
        v = self.select(condition, self.const(1, element), self.const(0, element),
                        element=element)
        return self.convert(v, element, self.out)

    @staticmethod
    def _resized(a, b):
        """Whether float types a and b differ in size (a conversion between them widens or
        narrows)."""
        return a in FLOAT_BITS and b in FLOAT_BITS and FLOAT_BITS[a] != FLOAT_BITS[b]


def _generic(g, ins, maps, out_shape, element, block_args, body_lines, yielded):
    """A linalg.generic over `out_shape`, all loops parallel."""
    rank = len(out_shape)
    out = g.empty(out_shape, element)
    result = g.value()
    out_type = tensor_type(out_shape, element)
    g.line(f"{result} = linalg.generic {{indexing_maps = [{', '.join(maps)}, "
           f"{_affine(rank, range(rank))}], iterator_types = {_parallel(rank)}}}")
    g.line(f"    ins({', '.join(v for v, _ in ins)} : {', '.join(t for _, t in ins)}) "
           f"outs({out} : {out_type}) {{")
    g.line(f"  ^bb0({block_args}, %o: {element}):")
    for line in body_lines:
        g.line("    " + line)
    g.line(f"    linalg.yield {yielded} : {element}")
    g.line(f"}} -> {out_type}")
    return result


def emit_elementwise(g, operands, out_shape, element, body, elements=None, out_element=None):
    """out = body(operands...) element by element; `operands` are (value, shape) broadcast to
    `out_shape` as PyTorch broadcasts, or (value, shape, loops) read along the given loops
    (a row statistic [M] of an [M, N] op: loops [0]); `body(b, xs)` writes b.op(...) lines and
    returns the value yielded. The body computes in `element`; `elements` gives operands of
    other types (a boolean condition, i8) and `out_element` the result's type (a comparison's
    boolean)."""
    rank = len(out_shape)
    elements = elements or [element] * len(operands)
    ins, maps = [], []
    for operand, own in zip(operands, elements):
        v, shape = operand[0], operand[1]
        if len(operand) == 3:
            ins.append((v, tensor_type(shape, own)))
            maps.append(_affine(rank, operand[2]))
            continue
        read = broadcast_operand(shape, out_shape)
        if read is None:
            raise ValueError("an operand of one value is passed as a row")
        to_shape, groups, loops = read
        if groups is not None:
            v = g.collapse(v, shape, groups, to_shape, own)
        ins.append((v, tensor_type(to_shape, own)))
        maps.append(_affine(rank, loops))
    writer = Body(element, {f"%e{i}": own for i, own in enumerate(elements)}, out_element)
    yielded = body(writer, [f"%e{i}" for i in range(len(operands))])
    block = ", ".join(f"%e{i}: {own}" for i, own in enumerate(elements))
    return _generic(g, ins, maps, out_shape, out_element or element, block, writer.lines,
                    yielded)


def emit_fill(g, value, shape, element):
    """A tensor of `shape` holding `value` everywhere."""
    return g.fill(value, shape, element)


def emit_matmul(g, a, b, element, bias=None, batch=False, b_transposed=False):
    """a @ b (+ bias broadcast over the rows): `a`, `b`, `bias` are (value, shape); with
    `b_transposed` b's value holds b's transpose, read through a linalg.transpose (the
    compilers read such a right-hand side in place)."""
    (av, a_shape), (bv, b_shape) = a, b
    if b_transposed:
        stored = [*b_shape[:-2], b_shape[-1], b_shape[-2]]
        perm = list(range(len(b_shape) - 2)) + [len(b_shape) - 1, len(b_shape) - 2]
        bv = transpose(g, bv, stored, perm, element)
    out_shape = [*a_shape[:-1], b_shape[-1]]
    zero = g.fill(0.0, out_shape, element)
    product = g.value()
    op = "linalg.batch_matmul" if batch else "linalg.matmul"
    out_type = tensor_type(out_shape, element)
    g.line(f"{product} = {op} ins({av}, {bv} : {tensor_type(a_shape, element)}, "
           f"{tensor_type(b_shape, element)}) outs({zero} : {out_type}) -> {out_type}")
    if bias is None:
        return product
    return emit_elementwise(g, [(product, out_shape), bias], out_shape, element,
                            lambda w, x: w.op("arith.addf", x[0], x[1]))


def transpose(g, value, shape, perm, element):
    """`value` of `shape` with its dimensions in the order `perm` (a view for the compilers)."""
    out_shape = [shape[p] for p in perm]
    e = g.empty(out_shape, element)
    out = g.value()
    g.line(f"{out} = linalg.transpose ins({value} : {tensor_type(shape, element)}) "
           f"outs({e} : {tensor_type(out_shape, element)}) permutation = {list(perm)}")
    return out


def broadcast(g, value, shape, to_shape, dimensions, element):
    """linalg.broadcast of `value` to `to_shape`, the new `dimensions`."""
    e, out = g.empty(to_shape, element), g.value()
    g.line(f"{out} = linalg.broadcast ins({value} : {tensor_type(shape, element)}) outs({e} : "
           f"{tensor_type(to_shape, element)}) dimensions = {list(dimensions)}")
    return out


def per_channel_rows(g, value, shape, element):
    """A vector of one value per channel ([C]) as one value per row of an [N, C, ...] tensor
    of `shape` (rank 3 or 4): a tensor of shape[:-1], read along every loop but the last, as
    the Spyre front end reads per-row operands (its element-wise kernels take no vector
    along a middle dimension alone)."""
    c = shape[1]
    rows = list(shape[:-1])
    per_image = [c]
    if len(shape) == 4:  # [C] -> [C, H], along the columns
        value = broadcast(g, value, [c], [c, shape[2]], [1], element)
        per_image = [c, shape[2]]
    if shape[0] == 1:  # one image: its rows as they are
        groups = [[0, 1]] + [[i + 1] for i in range(1, len(per_image))]
        return g.expand(value, per_image, groups, rows, element)
    # repeated for every image
    return emit_elementwise(g, [(value, per_image)], rows, element, lambda b, v: v[0])


def per_channel_operands(g, vectors, shape, element):
    """[C] values as operands of an element-wise op over `shape` (rank 2 to 4, the channels
    its dimension 1): read per column (rank 2) or per row (per_channel_rows)."""
    if len(shape) == 2:
        return [(v, [shape[1]]) for v in vectors]
    rows = list(range(len(shape) - 1))
    return [(per_channel_rows(g, v, shape, element), shape[:-1], rows) for v in vectors]


def emit_batch_norm(g, x, mean, var, weight, bias, eps, element):
    """Batch normalisation in inference form over the channels (dimension 1) of `x`
    ((value, shape), rank 2 to 4): y = (x - mean) / sqrt(var + eps) * weight + bias per
    channel; `mean`, `var`, `weight`, `bias` are [C] values (weight and bias may be None),
    each read per column (rank 2) or per row. The statistics are combined per element, not
    once per channel first: the Spyre front end fuses such a combination with the rows it
    feeds and then reads one tensor in two forms, which it refuses."""
    xv, shape = x
    vectors = [v for v in (mean, var, weight, bias) if v is not None]
    operands = [(xv, shape)] + per_channel_operands(g, vectors, shape, element)

    def body(b, v):
        it = iter(v[3:])
        scale = rstd_of_variance(b, [v[2]], eps)
        if weight is not None:
            scale = b.op("arith.mulf", scale, next(it))
        y = b.op("arith.mulf", b.op("arith.subf", v[0], v[1]), scale)
        return b.op("arith.addf", y, next(it)) if bias is not None else y
    return emit_elementwise(g, operands, shape, element, body)


def emit_concat(g, parts, dim, element):
    """tensor.concat of `parts` ((value, shape) each) along `dim`."""
    out_shape = list(parts[0][1])
    out_shape[dim] = sum(shape[dim] for _, shape in parts)
    out = g.value()
    g.line(f"{out} = tensor.concat dim({dim}) {', '.join(v for v, _ in parts)} : "
           f"({', '.join(tensor_type(shape, element) for _, shape in parts)}) -> "
           f"{tensor_type(out_shape, element)}")
    return out


def emit_gather_rows(g, table, ids, element):
    """The rows of `table` ([V, D]) that the i32 indices `ids` ([K]) name: [K, D] (an
    embedding lookup, tensor.gather)."""
    (tv, (v, d)), (iv, (k,)) = table, ids
    column = g.expand(iv, [k], [[0, 1]], [k, 1], "i32")
    out = g.value()
    g.line(f"{out} = tensor.gather {tv}[{column}] gather_dims([0]) : "
           f"({tensor_type([v, d], element)}, {tensor_type([k, 1], 'i32')}) -> "
           f"{tensor_type([k, 1, d], element)}")
    return g.collapse(out, [k, 1, d], [[0, 1], [2]], [k, d], element)


def emit_softmax(g, x, element):
    """Softmax over the last dimension."""
    v, shape = x
    e = g.empty(shape, element)
    out = g.value()
    t = tensor_type(shape, element)
    g.line(f"{out} = linalg.softmax dimension({len(shape) - 1}) ins({v} : {t}) outs({e} : {t}) "
           f"-> {t}")
    return out


def _reduce(g, v, shape, dim, out_shape, element, combine, init):
    """A linalg.reduce of `v` over dimension `dim` by the arith op `combine`, from `init`."""
    acc = g.fill(init, out_shape, element)
    out = g.value()
    g.line(f"{out} = linalg.reduce ins({v} : {tensor_type(shape, element)}) outs({acc} : "
           f"{tensor_type(out_shape, element)}) dimensions = [{dim}]")
    g.line(f"  (%in: {element}, %acc: {element}) {{")
    g.line(f"    %r = {combine} %in, %acc : {element}")
    g.line(f"    linalg.yield %r : {element}")
    g.line("  }")
    return out


def reduced_shape(shape):
    """The shape of a reduction of `shape` over its last dimension (at least rank 1)."""
    return list(shape[:-1]) or [1]


def emit_reduce_last(g, x, element, combine, init, scale=None):
    """combine over the last dimension (arith.addf, arith.maximumf, ...) of x, or of x times
    `scale` when given (a mean: the scaling fuses with the reduction's kernel)."""
    v, shape = x
    out_shape = reduced_shape(shape)
    if len(shape) == 1:  # a whole 1-D tensor into one value: read it as [1, N]
        v = g.expand(v, shape, [[0, 1]], [1, shape[0]], element)
        shape = [1, shape[0]]
    if scale is not None:
        v = emit_elementwise(g, [(v, shape)], shape, element,
                             lambda w, e: w.op("arith.mulf", e[0], w.const(scale)))
    return _reduce(g, v, shape, len(shape) - 1, out_shape, element, combine, init)


def emit_layer_norm(g, x, weight, bias, element, eps):
    """Layer normalisation over the last dimension of x ([M, N]): (y, mean, rstd), mean and
    rstd of shape [M], y = (x - mean) * rstd * weight + bias (weight and bias [N] or None)."""
    v, (m, n) = x
    scale = 1.0 / n
    mean = emit_reduce_last(g, (v, [m, n]), element, "arith.addf", 0.0, scale)
    centred = emit_elementwise(g, [(v, [m, n]), (mean, [m], [0])], [m, n], element,
                               lambda w, e: w.op("arith.subf", e[0], e[1]))
    var = emit_reduce_last(
        g, (emit_elementwise(g, [(centred, [m, n])], [m, n], element,
                             lambda w, e: w.op("arith.mulf", e[0], e[0])), [m, n]),
        element, "arith.addf", 0.0, scale)
    rstd = emit_elementwise(g, [(var, [m])], [m], element,
                            lambda w, e: w.op("math.rsqrt", w.op("arith.addf", e[0],
                                                                  w.const(eps))))
    operands = [(centred, [m, n]), (rstd, [m], [0])]
    operands += [(p, [n]) for p in (weight, bias) if p is not None]

    def body(w, e):
        y = w.op("arith.mulf", e[0], e[1])
        if weight is not None:
            y = w.op("arith.mulf", y, e[2])
        if bias is not None:
            y = w.op("arith.addf", y, e[3 if weight is not None else 2])
        return y
    return emit_elementwise(g, operands, [m, n], element, body), mean, rstd


def emit_log_softmax(g, x, element, lowest):
    """log_softmax over the last dimension of x ([M, N]): x - max - log(sum(exp(x - max))),
    the maximum taken from `lowest` (the element type's most negative finite value)."""
    v, (m, n) = x
    top = emit_reduce_last(g, (v, [m, n]), element, "arith.maximumf", lowest)
    shifted = emit_elementwise(g, [(v, [m, n]), (top, [m], [0])], [m, n], element,
                               lambda w, e: w.op("arith.subf", e[0], e[1]))
    sums = emit_reduce_last(
        g, (emit_elementwise(g, [(shifted, [m, n])], [m, n], element,
                             lambda w, e: w.op("math.exp", e[0])), [m, n]),
        element, "arith.addf", 0.0)
    return emit_elementwise(g, [(shifted, [m, n]), (sums, [m], [0])], [m, n], element,
                            lambda w, e: w.op("arith.subf", e[0], w.op("math.log", e[1])))


def emit_log_softmax_backward(g, grad, out, element):
    """The gradient of log_softmax over the last dimension ([M, N] each): grad - exp(out) *
    sum(grad), the sum per row."""
    gv, (m, n) = grad
    sums = emit_reduce_last(g, (gv, [m, n]), element, "arith.addf", 0.0)
    return emit_elementwise(
        g, [(gv, [m, n]), (out[0], [m, n]), (sums, [m], [0])], [m, n], element,
        lambda w, e: w.op("arith.subf", e[0], w.op("arith.mulf", w.op("math.exp", e[1]), e[2])))


def emit_softmax_backward(g, grad, out, element):
    """The gradient of softmax over the last dimension ([M, N] each): out * (grad -
    sum(grad * out)), the sum per row."""
    gv, (m, n) = grad
    products = emit_elementwise(g, [(gv, [m, n]), (out[0], [m, n])], [m, n], element,
                                lambda w, e: w.op("arith.mulf", e[0], e[1]))
    sums = emit_reduce_last(g, (products, [m, n]), element, "arith.addf", 0.0)
    return emit_elementwise(
        g, [(gv, [m, n]), (out[0], [m, n]), (sums, [m], [0])], [m, n], element,
        lambda w, e: w.op("arith.mulf", e[1], w.op("arith.subf", e[0], e[2])))


def emit_reduce_columns(g, x, element, combine, init):
    """combine over the next-to-last dimension of x (rank 2 or 3: column sums, a bias's
    gradient); the TPU compiler reduces the transposed input on its MXU."""
    v, shape = x
    out_shape = list(shape[:-2]) + [shape[-1]]
    return _reduce(g, v, shape, len(shape) - 2, out_shape, element, combine, init)


def rstd_of_variance(w, e, eps):
    """Body: 1 / sqrt(variance + eps)."""
    return w.op("math.rsqrt", w.op("arith.addf", e[0], w.const(eps)))


def reshape(g, value, shape, to_shape, element):
    """`value` of `shape` read as `to_shape` (the same elements in order): one expand_shape
    where to_shape splits dimensions, one collapse_shape where it merges them, else a
    collapse into the runs both shapes share then an expand."""
    if list(shape) == list(to_shape):
        return value
    segments = _segments(list(shape), list(to_shape))
    merged = [_product(shape[d] for d in a) for a, _ in segments]
    if all(len(a) == 1 for a, _ in segments):
        return g.expand(value, shape, [b for _, b in segments], to_shape, element)
    value = g.collapse(value, shape, [a for a, _ in segments], merged, element)
    if all(len(b) == 1 for _, b in segments):
        return value
    return g.expand(value, merged, [b for _, b in segments], to_shape, element)


def _product(dims):
    n = 1
    for d in dims:
        n *= d
    return n


def _segments(shape, to_shape):
    """The runs of dimensions of `shape` and `to_shape` that hold the same elements:
    [(dims of shape, dims of to_shape)], each side at least one dimension (dimensions of 1
    at the end join the last run)."""
    segments, i, j = [], 0, 0
    while i < len(shape) and j < len(to_shape):
        a, b = [i], [j]
        pa, pb = shape[i], to_shape[j]
        i, j = i + 1, j + 1
        while pa != pb:
            if pa < pb:
                a.append(i)
                pa *= shape[i]
                i += 1
            else:
                b.append(j)
                pb *= to_shape[j]
                j += 1
        segments.append((a, b))
    segments[-1][0].extend(range(i, len(shape)))
    segments[-1][1].extend(range(j, len(to_shape)))
    return segments


# ---- views of a tensor's storage read in the graph ----------------------------------------------

def view_plan(base_shape, sizes, strides, offset):
    """How the view (sizes, strides, offset) of a contiguous tensor of `base_shape` is read
    in a graph instead of copied into a tensor of its own: the base reshaped to `shape` (its
    elements in order, split at the view's strides), a box of it (`offsets`, `box`), the
    box's dimensions of one dropped and the rest permuted by `order` into the view's order,
    then repeated along the view's broadcast dimensions (stride 0; `broadcast`: "rows" when
    they all come before the others, "columns" when after, "inner" when between them, as an
    expanded dimension that a reshape then merges (repeat_interleave), None when there are
    none). None for a view that is no such box (overlapping or irregular strides)."""
    numel = 1
    for d in base_shape:
        numel *= d
    repeated = [i for i, s in enumerate(sizes) if s != 1 and strides[i] == 0]
    dims = [i for i, s in enumerate(sizes) if s != 1 and strides[i] != 0]
    broadcast = None
    if repeated:
        if dims and max(repeated) < min(dims):
            broadcast = "rows"
        elif not dims or min(repeated) > max(dims):
            broadcast = "columns"  # one value: a row of it, split as the view's sizes
        else:
            broadcast = "inner"
        sizes = [1 if i in repeated else s for i, s in enumerate(sizes)]
    if any(strides[i] < 0 for i in dims):
        return None
    order = sorted(dims, key=lambda i: -strides[i])
    steps = [strides[i] for i in order]
    if len(set(steps)) != len(steps) or (steps and numel % steps[0]):
        return None
    # extents: each stride over the next one in; the outermost over the whole storage
    extents = [numel // steps[0]] if steps else []
    for outer, inner in zip(steps, steps[1:]):
        if outer % inner:
            return None
        extents.append(outer // inner)
    innermost = steps[-1] if steps else 1
    shape, offsets, box = list(extents), [], []
    for step, extent, i in zip(steps, extents, order):
        coordinate = (offset // step) % extent if step != steps[0] else offset // step
        if coordinate + sizes[i] > extent:
            return None
        offsets.append(coordinate)
        box.append(sizes[i])
    if innermost > 1 or not steps:  # the element picked inside the innermost stride
        shape.append(innermost if steps else numel)
        offsets.append(offset % innermost if steps else offset)
        box.append(1)
    return {"shape": shape, "offsets": offsets, "box": box, "order": order,
            "broadcast": broadcast}


def extract_slice(g, value, shape, offsets, box, element):
    """The box of `value` (of `shape`) at `offsets`, unit strides (tensor.extract_slice)."""
    out = g.value()
    g.line(f"{out} = tensor.extract_slice {value}{list(offsets)} {list(box)} "
           f"{[1] * len(box)} : {tensor_type(shape, element)} to {tensor_type(box, element)}")
    return out


def emit_view(g, value, base_shape, sizes, plan, element):
    """The view `plan` (view_plan) of `value` (a tensor of `base_shape`) as a tensor of
    `sizes`: reshaped, sliced, permuted, reshaped to the view's sizes."""
    shape, offsets, box, order = plan["shape"], plan["offsets"], plan["box"], plan["order"]
    sizes = list(sizes)
    if plan["broadcast"] == "inner":
        # the view without its broadcast dimensions, repeated along them where they stand
        repeated = [i for i, s in enumerate(sizes) if s != 1 and i not in order]
        core = [1 if i in repeated else s for i, s in enumerate(sizes)]
        kept = [s for i, s in enumerate(sizes) if i not in repeated]
        vector = emit_view(g, value, base_shape, core, dict(plan, broadcast=None), element)
        vector = reshape(g, vector, core, kept, element)
        return broadcast(g, vector, kept, sizes, repeated, element)
    if plan["broadcast"]:
        # the view without its broadcast dimensions, as a vector, repeated (linalg.broadcast
        # along rows or columns, the two the Spyre front end takes)
        core = [s if s == 1 or i in order else 1 for i, s in enumerate(sizes)]
        kept = _product(core)
        repeat = _product(sizes) // kept
        vector = emit_view(g, value, base_shape, core, dict(plan, broadcast=None), element)
        vector = reshape(g, vector, core or [1], [kept], element)
        if plan["broadcast"] == "rows":
            out, out_shape = broadcast(g, vector, [kept], [repeat, kept], [0], element), \
                [repeat, kept]
        else:
            out, out_shape = broadcast(g, vector, [kept], [kept, repeat], [1], element), \
                [kept, repeat]
        return reshape(g, out, out_shape, sizes or [1], element)
    v = reshape(g, value, base_shape, shape, element)
    if box != shape:
        v = extract_slice(g, v, shape, offsets, box, element)
    kept = [sizes[i] for i in order] or [1]
    v = reshape(g, v, box, kept, element)
    if order != sorted(order):
        ranked = sorted(order)
        perm = [order.index(i) for i in ranked]
        v = transpose(g, v, kept, perm, element)
        kept = [kept[p] for p in perm]
    return reshape(g, v, kept, list(sizes) or [1], element)
