"""Bounded dynamic lengths for captured models: one program per length bucket, not per
length. A model compiled with `dynamic=` (chipless.torch.compile) runs a call of length n on
the program of the smallest bucket that holds n: its inputs padded to the bucket along the
declared dimensions, its outputs narrowed back to n. This is XLA's dynamic padder, done on
the ATen graph:

- The model is traced (make_fx, on the host, with its parameters as inputs) at the bucket's
  length and at one more; a dimension whose size differs between the two traces depends on
  the length. It is *plain* when it is the length itself, *derived* otherwise (a length
  merged with another dimension by a view, or the length plus a constant).
- Where padding would change a real position's value, the graph masks: every reduction
  over a plain dimension (sum, mean, max, min, softmax, log-softmax, logsumexp, prod,
  arg-max) reads its padded positions as the reduction's identity, every contraction over
  one (mm, bmm, addmm, baddbmm) reads them as zeros in both operands, and a mean is scaled
  by bucket / n. The masks are chipless_dyn::masked ops (a compare and a select on the
  device) reading small mask tensors passed with each call, so the graph text, and so the
  program, is the same for every n of a bucket.
- An op that mixes positions along a length dimension in a way masking cannot repair
  (layer norm or a variance over it, concatenation, flipping or rolling along it, an index
  counted from its end, a convolution or pooling over it, a reduction over a derived
  dimension) is refused when the bucket is traced, naming the op.

Element-wise ops, views, embedding lookups, matmuls along other dimensions and causal
attention need nothing: a real position never reads a padded one.
"""
import torch
from torch.fx.experimental.proxy_tensor import make_fx
from torch.nn.utils import stateless
from torch.utils import _pytree as pytree

from chipless.errors import ChiplessError

aten = torch.ops.aten
INF = float("inf")



def _dims_arg(index):
    """`where` of an op whose dimensions are its argument `index` (none or [] for all)."""
    def where(args, rank):
        dims = args[index] if len(args) > index else None
        if dims is None or (isinstance(dims, (list, tuple)) and not dims):
            return list(range(rank))
        return [d % rank for d in (dims if isinstance(dims, (list, tuple)) else [dims])]
    return where


def _all_dims(args, rank):
    return list(range(rank))


#: Reductions: op -> (where its reduced dimensions are, identity of the reduction, whether
#: the result is a mean to rescale). `where` maps (node args, input rank) to the dimensions.
REDUCTIONS = {
    aten.sum.dim_IntList: (_dims_arg(1), 0.0, False),
    aten.sum.default: (_all_dims, 0.0, False),
    aten.mean.dim: (_dims_arg(1), 0.0, True),
    aten.mean.default: (_all_dims, 0.0, True),
    aten.amax.default: (_dims_arg(1), -INF, False),
    aten.amin.default: (_dims_arg(1), INF, False),
    aten.max.dim: (_dims_arg(1), -INF, False),
    aten.min.dim: (_dims_arg(1), INF, False),
    aten.max.default: (_all_dims, -INF, False),
    aten.min.default: (_all_dims, INF, False),
    aten.argmax.default: (_dims_arg(1), -INF, False),
    aten.argmin.default: (_dims_arg(1), INF, False),
    aten._softmax.default: (_dims_arg(1), -INF, False),
    aten._log_softmax.default: (_dims_arg(1), -INF, False),
    aten.logsumexp.default: (_dims_arg(1), -INF, False),
    aten.prod.dim_int: (_dims_arg(1), 1.0, False),
    aten.prod.default: (_all_dims, 1.0, False),
}

#: Contractions: op -> [(argument index, contracted dimension of that argument)...].
CONTRACTIONS = {
    aten.mm.default: [(0, 1), (1, 0)],
    aten.addmm.default: [(1, 1), (2, 0)],
    aten.bmm.default: [(0, 2), (1, 1)],
    aten.baddbmm.default: [(1, 2), (2, 1)],
    aten.dot.default: [(0, 0), (1, 0)],
    aten.mv.default: [(0, 1), (1, 0)],
}


def _dim_of(index):
    return lambda args, rank: [args[index] % rank] if len(args) > index else [0]


def _last(count_index):
    return lambda args, rank: list(range(rank - len(args[count_index]), rank))


def _spatial(args, rank):
    return list(range(2, rank))


#: Ops that mix positions along the dimensions `where` gives in a way masking cannot repair.
REFUSED = {
    aten.native_layer_norm.default: (_last(1), "normalizes over"),
    aten.var.correction: (_dims_arg(1), "computes a variance over"),
    aten.var.dim: (_dims_arg(1), "computes a variance over"),
    aten.std.correction: (_dims_arg(1), "computes a deviation over"),
    aten.std.dim: (_dims_arg(1), "computes a deviation over"),
    aten.var_mean.correction: (_dims_arg(1), "computes a variance over"),
    aten.linalg_vector_norm.default: (_dims_arg(2), "computes a norm over"),
    aten.cat.default: (lambda args, rank: [(args[1] if len(args) > 1 else 0) % rank],
                       "concatenates along"),
    aten.flip.default: (_dims_arg(1), "flips"),
    aten.roll.default: (_dims_arg(2), "rolls"),
    aten.sort.default: (_dim_of(1), "sorts along"),
    aten.topk.default: (_dim_of(2), "selects the top values along"),
    aten.convolution.default: (_spatial, "convolves over"),
    aten.max_pool2d_with_indices.default: (_spatial, "pools over"),
    aten.avg_pool2d.default: (_spatial, "pools over"),
    aten._adaptive_avg_pool2d.default: (_spatial, "pools over"),
    aten.constant_pad_nd.default: (lambda args, rank: [rank - 1 - i // 2
                                                       for i in range(len(args[1]))],
                                   "pads"),
    aten.gather.default: (_dim_of(1), "gathers along"),
    aten.index_select.default: (_dim_of(1), "selects along"),
    aten.split.Tensor: (_dim_of(2), "splits"),
    aten.split_with_sizes.default: (_dim_of(2), "splits"),
    aten.unbind.int: (_dim_of(1), "unbinds"),
}


class DynamicError(ChiplessError):
    """A model, a declaration or a call the dynamic padder cannot take."""


def parse_spec(dynamic, inputs):
    """{input index: dimension or dimensions} as [(input index, dimension)...], checked
    against the example inputs."""
    places = []
    for index, dims in sorted(dynamic.items()):
        if not isinstance(index, int) or not 0 <= index < len(inputs):
            raise DynamicError(f"dynamic: input {index!r} does not exist (the model takes "
                               f"{len(inputs)} inputs)")
        x = inputs[index]
        if not isinstance(x, torch.Tensor):
            raise DynamicError(f"dynamic: input {index} is not a tensor")
        for d in dims if isinstance(dims, (list, tuple)) else [dims]:
            if not isinstance(d, int) or not -x.dim() <= d < x.dim():
                raise DynamicError(f"dynamic: input {index} has {x.dim()} dimensions, no "
                                   f"dimension {d!r}")
            places.append((index, d % x.dim()))
    if not places:
        raise DynamicError("dynamic: no dimension is declared")
    return places


def make_buckets(max_length, buckets):
    """The bucket lengths: `buckets` checked, or powers of two from 16 up to max_length
    (which is always the last)."""
    if buckets is None:
        if not isinstance(max_length, int) or max_length < 1:
            raise DynamicError(f"dynamic: max_length must be a positive integer (got "
                               f"{max_length!r})")
        sizes, b = [], 16
        while b < max_length:
            sizes.append(b)
            b *= 2
        return sizes + [max_length]
    sizes = list(buckets)
    if not sizes or any(not isinstance(b, int) or b < 1 for b in sizes) \
            or sorted(set(sizes)) != sizes:
        raise DynamicError(f"dynamic: buckets must be increasing positive integers (got "
                           f"{buckets!r})")
    if max_length is not None and sizes[-1] != max_length:
        raise DynamicError(f"dynamic: the last bucket ({sizes[-1]}) is not max_length "
                           f"({max_length})")
    return sizes


def resize(t, places, length, fill=0):
    """`t` with each dimension in `places` cut or padded (with `fill`) to `length`."""
    shape = list(t.shape)
    for d in places:
        if shape[d] > length:
            t = t.narrow(d, 0, length)
        shape[d] = length
    if list(t.shape) == shape:
        return t
    grown = torch.full(shape, fill, dtype=t.dtype, device=t.device)
    window = grown
    for d in places:
        window = window.narrow(d, 0, t.shape[d])
    window.copy_(t)
    return grown


def recompile(gm):
    """gm.recompile(), and the generated code given `device`: PyTorch 1.13's FX writes a
    device argument as `device(type='cpu')` without defining the name."""
    gm.recompile()
    gm.forward.__globals__.setdefault("device", type(torch.device("cpu")))


def trace(model, state, inputs):
    """The model's ATen graph with its state (parameters and buffers, {name: tensor}) first
    among its inputs. Traced on PyTorch's meta device (shapes only, nothing computed); where
    an op has no meta kernel, on the host with copies of the state."""
    names = list(state)

    def run(*flat):
        return stateless.functional_call(model, dict(zip(names, flat[:len(names)])),
                                         tuple(flat[len(names):]))

    def on_meta(values):
        return [torch.empty(v.shape, dtype=v.dtype, device="meta")
                if isinstance(v, torch.Tensor) else v for v in values]

    def on_host(values):
        return [v.detach().cpu() if isinstance(v, torch.Tensor) else v for v in values]
    try:
        gm = make_fx(run)(*on_meta(state.values()), *on_meta(inputs))
        if not any(isinstance(getattr(gm, n.target), torch.Tensor)
                   for n in gm.graph.nodes if n.op == "get_attr"):
            recompile(gm)
            return gm  # a constant made while tracing would have no value on meta
    except (RuntimeError, NotImplementedError):
        pass
    try:
        gm = make_fx(run)(*on_host(state.values()), *on_host(inputs))
        recompile(gm)
        return gm
    except (RuntimeError, NotImplementedError) as e:
        raise DynamicError(f"dynamic: the model could not be traced on the meta device or "
                           f"on the host to find which dimensions follow the length: "
                           f"{str(e).splitlines()[0]}") from e


def _shapes(node):
    """The shapes of what a node computes (a list: one per tensor), or None."""
    meta = node.meta.get("tensor_meta")
    if meta is None:
        return None
    metas = [meta] if hasattr(meta, "shape") else list(meta)
    return [tuple(m.shape) if hasattr(m, "shape") else None for m in metas]


def _dtype(node):
    meta = node.meta.get("tensor_meta")
    return meta.dtype if hasattr(meta, "dtype") else None


def length_dims(a, b, length_a, length_b):
    """{node name: {dimension: "plain" | "derived"}} from two traces of one model at two
    lengths (the same ops in the same order, or DynamicError)."""
    nodes_a, nodes_b = list(a.graph.nodes), list(b.graph.nodes)
    if [(n.op, n.target) for n in nodes_a] != [(n.op, n.target) for n in nodes_b]:
        raise DynamicError("dynamic: the model runs different ops at different lengths "
                           f"({length_a} and {length_b}): its ATen graph depends on the "
                           "length, so one program cannot serve a bucket")
    found = {}
    for x, y in zip(nodes_a, nodes_b):
        sa, sb = _shapes(x), _shapes(y)
        if not sa or sa[0] is None or sb[0] is None:
            continue
        dims = {}
        for d, (p, q) in enumerate(zip(sa[0], sb[0])):
            if p != q:
                dims[d] = "plain" if (p, q) == (length_a, length_b) else "derived"
        if dims:
            found[x.name] = dims
    return found


class Padder:
    """Rewrites one traced bucket's graph in place (see the module's text). `extras` are
    the mask inputs it added, in order: ("valid", dtype, shape, dimension) — 1 where a
    position is real, 0 where it is padding — and ("ratio", dtype, shape, power) —
    (bucket / n) ** power; `outputs` the length dimensions of each flattened output."""

    def __init__(self, gm, dims):
        self.gm, self.dims = gm, dims
        self.graph = gm.graph
        self.extras = []
        self._inputs = {}   # extra's key -> its placeholder node
        placeholders = [n for n in self.graph.nodes if n.op == "placeholder"]
        self._last_placeholder = placeholders[-1]
        for node in list(self.graph.nodes):
            if node.op == "call_function":
                self._visit(node)
        self.outputs = self._output_dims()
        self.graph.lint()
        recompile(gm)

    def _length_dims(self, value):
        return self.dims.get(value.name, {}) if isinstance(value, torch.fx.Node) else {}

    def _refuse(self, node, dim, what):
        raise DynamicError(f"dynamic: {node.target} (graph node '{node.name}') {what} "
                           f"dimension {dim}, which depends on the length; padding would "
                           f"change the real positions' values")

    def _visit(self, node):
        target = node.target
        first = node.args[0] if node.args else None
        if target in REDUCTIONS:
            where, identity, mean = REDUCTIONS[target]
            dims = self._length_dims(first)
            if not dims:
                return
            rank = len(_shapes(first)[0])
            masked = [d for d in where(node.args, rank) if d in dims]
            for d in masked:
                if dims[d] != "plain":
                    self._refuse(node, d, "reduces over")
            if masked:
                self._mask_arg(node, 0, masked, identity)
                if mean:
                    self._rescale(node, len(masked))
        elif target in CONTRACTIONS:
            for index, d in CONTRACTIONS[target]:
                dims = self._length_dims(node.args[index])
                if d in dims:
                    if dims[d] != "plain":
                        self._refuse(node, d, "contracts over")
                    self._mask_arg(node, index, [d], 0.0)
        elif target in REFUSED:
            where, what = REFUSED[target]
            if isinstance(first, (list, tuple)):  # cat: a list of tensors
                first = next((t for t in first if self._length_dims(t)), None)
            dims = self._length_dims(first)
            if dims:
                rank = len(_shapes(first)[0])
                for d in where(node.args, rank):
                    if d in dims:
                        self._refuse(node, d, what)
        elif target in (aten.select.int, aten.slice.Tensor):
            dims = self._length_dims(first)
            d = node.args[1] if len(node.args) > 1 else 0
            rank = len(_shapes(first)[0])
            bounds = node.args[2:4]  # select's index; slice's start and end
            if d % rank in dims and any(isinstance(b, int) and b < 0 for b in bounds):
                self._refuse(node, d % rank, "counts from the end of")

    def _extra(self, key, make):
        found = self._inputs.get(key)
        if found is None:
            with self.graph.inserting_after(self._last_placeholder):
                found = self.graph.placeholder(f"dyn_{key[0]}{len(self.extras)}")
            self._last_placeholder = found
            self._inputs[key] = found
            self.extras.append(make())
        return found

    def _mask_arg(self, node, index, dims, identity):
        value = node.args[index]
        full, dtype = _shapes(value)[0], _dtype(value)
        last = len(full) - 1
        for d in dims:
            # whole along the last dimension too: a TPU program cannot read a tensor from
            # memory broadcast along its innermost dimension
            shape = tuple(full[i] if i in (d, last) else 1 for i in range(len(full)))
            valid = self._extra(("valid", dtype, shape, d),
                                lambda: ("valid", dtype, shape, d))
            with self.graph.inserting_before(node):
                masked = self.graph.call_function(torch.ops.chipless_dyn.masked.default,
                                                  (value, valid, identity))
            masked.meta = dict(value.meta)
            value = masked
        args = list(node.args)
        args[index] = value
        node.args = tuple(args)

    def _rescale(self, node, power):
        shape = _shapes(node)[0]
        ratio_shape = tuple(shape[-1:]) if shape else ()
        dtype = _dtype(node)
        ratio = self._extra(("ratio", dtype, ratio_shape, power),
                            lambda: ("ratio", dtype, ratio_shape, power))
        with self.graph.inserting_after(node):
            scaled = self.graph.call_function(aten.mul.Tensor, (node, ratio))
        node.replace_all_uses_with(scaled)
        scaled.args = (node, ratio)
        scaled.meta = dict(node.meta)
        if node.name in self.dims:
            self.dims[scaled.name] = self.dims[node.name]

    def _output_dims(self):
        output = next(n for n in self.graph.nodes if n.op == "output")
        flat, _ = pytree.tree_flatten(output.args[0])
        found = []
        for value in flat:
            dims = self._length_dims(value)
            for d, kind in dims.items():
                if kind != "plain":
                    raise DynamicError(f"dynamic: output '{value.name}' has a dimension "
                                       f"({d}) derived from the length (the length merged "
                                       f"with another dimension, or shifted): it cannot be "
                                       f"cut back to the real length")
            found.append(sorted(dims))
        return found


def extra_value(extra, n, bucket, device):
    """The host tensor of an extra input for a call of length n in `bucket`, on `device`."""
    kind, dtype, shape, arg = extra
    if kind == "valid":
        host = torch.zeros(shape, dtype=dtype)
        host.narrow(arg, 0, n).fill_(1)
    else:
        host = torch.full(shape, (bucket / n) ** arg, dtype=dtype)
    return host.to(device)


def ceil_bucket(buckets, n):
    """The smallest bucket holding n, or None."""
    for b in buckets:
        if b >= n:
            return b
    return None


def probe_length(bucket):
    """A second length to trace at, to tell which dimensions follow the length."""
    return bucket + 1
