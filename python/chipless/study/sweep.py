"""Expansion of a study's `sweep:` into points: lists, ranges, products and zips.

Grammar (every form may nest):

    sweep:                               # a mapping is the product of its keys, in order
      dram.bandwidth_gb_s: [100, 200]    #   a list of values
      chip.cores: {from: 4, to: 32, factor: 2}   # 4 8 16 32 (geometric, both ends kept)
      ring.hop_latency_cycles: {from: 1, to: 9, step: 4}   # 1 5 9 (arithmetic)
      scratchpad.bytes: 2097152          #   one value
    sweep:
      product: [NODE, NODE, ...]         # every combination, the first node outermost
    sweep:
      zip: [NODE, NODE, ...]             # the i-th point of each node together (same lengths)

A point is a dict parameter -> value; the order of points is the order written.
"""
from chipless.errors import ChiplessError
from chipless.located_yaml import line_of

_SCALARS = (int, float, str, bool)


def _where(file, container, key):
    return f"{file}:{line_of(container, key)}"


def _number(file, container, key, field, value):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ChiplessError(f"{_where(file, container, key)}: {field}: expected a number, "
                            f"got {value!r}")
    return value


def expand_values(file, container, key, spec):
    """The values one parameter takes: `spec` is a list, one scalar, or a range mapping."""
    field = f"sweep.{key}"
    if isinstance(spec, _SCALARS):
        return [spec]
    if isinstance(spec, list):
        if not spec:
            raise ChiplessError(f"{_where(file, container, key)}: {field}: an empty list")
        for i, v in enumerate(spec):
            if not isinstance(v, _SCALARS):
                raise ChiplessError(f"{file}:{line_of(spec, i)}: {field}[{i}]: expected a "
                                    f"number, word or true/false, got {type(v).__name__}")
        return list(spec)
    if isinstance(spec, dict):
        unknown = set(spec) - {"from", "to", "step", "factor"}
        if unknown or "from" not in spec or "to" not in spec or \
                ("step" in spec) == ("factor" in spec):
            raise ChiplessError(
                f"{_where(file, container, key)}: {field}: a range is {{from: A, to: B, step: S}} "
                "or {from: A, to: B, factor: F}"
                + (f" (unknown key {sorted(map(str, unknown))[0]!r})" if unknown else ""))
        start = _number(file, spec, "from", f"{field}.from", spec["from"])
        stop = _number(file, spec, "to", f"{field}.to", spec["to"])
        integral = all(isinstance(spec[k], int) for k in spec)
        values = []
        if "step" in spec:
            step = _number(file, spec, "step", f"{field}.step", spec["step"])
            if step == 0 or (stop - start) * step < 0:
                raise ChiplessError(f"{_where(file, spec, 'step')}: {field}.step: {step} never "
                                    f"goes from {start} to {stop}")
            n = int((stop - start) / step + 1e-9)
            values = [start + i * step for i in range(n + 1)]
        else:
            factor = _number(file, spec, "factor", f"{field}.factor", spec["factor"])
            if start == 0 or factor <= 0 or factor == 1 or (stop / start < 1) != (factor < 1):
                raise ChiplessError(f"{_where(file, spec, 'factor')}: {field}.factor: {factor} "
                                    f"never goes from {start} to {stop}")
            v = start
            while (v <= stop * (1 + 1e-9)) if factor > 1 else (v >= stop * (1 - 1e-9)):
                values.append(v)
                v = v * factor
        if len(values) > 100000:
            raise ChiplessError(f"{_where(file, container, key)}: {field}: {len(values)} values")
        return [int(v) if integral else float(v) for v in values]
    raise ChiplessError(f"{_where(file, container, key)}: {field}: expected a list, a value or "
                        "a range")


def expand(file, node, container=None, key="sweep"):
    """The points of a sweep node, in order (each a dict parameter -> value)."""
    if node is None:
        return [{}]
    if not isinstance(node, dict):
        if isinstance(node, list):
            return _product(file, node, f"{key}")
        raise ChiplessError(f"{_where(file, container, key)}: {key}: expected a mapping of "
                            "parameters, product: or zip:")
    if set(node) & {"product", "zip"}:
        if len(node) != 1:
            raise ChiplessError(f"{file}:{node.line}: {key}: product: or zip: stands alone in "
                                "its mapping; nest the other parameters inside it")
        (op, children), = node.items()
        if not isinstance(children, list) or not children:
            raise ChiplessError(f"{_where(file, node, op)}: {key}.{op}: expected a list of "
                                "sweeps")
        return _product(file, children, f"{key}.{op}") if op == "product" \
            else _zip(file, children, f"{key}.{op}")
    points = [{}]
    for param, spec in node.items():
        values = expand_values(file, node, param, spec)
        points = [dict(p, **{param: v}) for p in points for v in values]
    return points


def _product(file, children, field):
    points = [{}]
    for i, child in enumerate(children):
        inner = expand(file, child, children, f"{field}[{i}]")
        points = [_merge(file, children, i, a, b) for a in points for b in inner]
    return points


def _zip(file, children, field):
    expanded = [expand(file, child, children, f"{field}[{i}]") for i, child in
                enumerate(children)]
    lengths = {len(e) for e in expanded}
    if len(lengths) != 1:
        raise ChiplessError(f"{file}:{line_of(children, 0)}: {field}: the zipped sweeps have "
                            f"{' vs '.join(str(len(e)) for e in expanded)} points; zip needs "
                            "equal lengths")
    points = []
    for parts in zip(*expanded):
        merged = {}
        for i, part in enumerate(parts):
            merged = _merge(file, children, i, merged, part)
        points.append(merged)
    return points


def _merge(file, children, i, a, b):
    clash = set(a) & set(b)
    if clash:
        raise ChiplessError(f"{file}:{line_of(children, i)}: parameter {sorted(clash)[0]} is "
                            "swept twice")
    return {**a, **b}
