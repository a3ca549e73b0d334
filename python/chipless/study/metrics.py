"""The metrics of a study: values read from each point's stats.json by path, and arithmetic
over them and the point's architecture.

    metrics:
      cycles: chip.cycles                                  # a statistic's path
      dram_util: {path: chip.utilization.dram}
      macs: {path: "chip.core[*].compute0.pt_macs", reduce: sum}   # [*]: every element
      tflops: {expr: "2 * macs / seconds / 1e12"}          # arithmetic over earlier metrics
      seconds: {expr: "cycles / (arch('chip.clock_ghz') * 1e9)"}

An expression may use earlier metrics by name, numbers, + - * / // % **, parentheses,
min(), max(), abs(), sqrt(), log2(), arch('key.path') (the point's resolved parameter),
param('name') (the point's swept value) and stat('path') (a statistic).
"""
import ast
import math
import re

from chipless.errors import ChiplessError
from chipless.located_yaml import line_of

_SEGMENT = re.compile(r"^([A-Za-z0-9_\-]+)(?:\[(\d+|\*)\])?$")
REDUCERS = {"sum": sum, "max": max, "min": min, "mean": lambda v: sum(v) / len(v),
            "count": len}
_FUNCTIONS = {"min": min, "max": max, "abs": abs, "sqrt": math.sqrt, "log2": math.log2}
_BINARY = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
           ast.Mult: lambda a, b: a * b, ast.Div: lambda a, b: a / b,
           ast.FloorDiv: lambda a, b: a // b, ast.Mod: lambda a, b: a % b,
           ast.Pow: lambda a, b: a ** b}


class Metric:
    """One column of the study's table: how its value is found in a point's results."""

    def __init__(self, name, path=None, reduce=None, expr=None, unit=""):
        self.name, self.path, self.reduce, self.expr, self.unit = name, path, reduce, expr, unit
        self.tree = ast.parse(expr, mode="eval") if expr else None

    def describe(self):
        """A short text for reports: the path (with its reduction) or the expression."""
        if self.expr:
            return self.expr
        return f"{self.reduce}({self.path})" if self.reduce else self.path


def parse_metrics(file, section):
    """The `metrics:` mapping of a study file as Metric objects, in order; located errors for
    malformed paths, unknown reducers and expressions that are not plain arithmetic."""
    if not isinstance(section, dict) or not section:
        raise ChiplessError(f"{file}:{getattr(section, 'line', 0)}: metrics: expected a mapping "
                            "of names to stats.json paths or expressions")
    metrics = []
    for name, spec in section.items():
        where = f"{file}:{line_of(section, name)}: metrics.{name}"
        if not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", str(name)):
            raise ChiplessError(f"{where}: a metric's name is a word (letters, digits, _)")
        if isinstance(spec, str):
            spec = {"path": spec}
        if not isinstance(spec, dict) or ("path" in spec) == ("expr" in spec):
            raise ChiplessError(f"{where}: expected a stats.json path, {{path: P, reduce: R}} "
                                "or {expr: E}")
        unknown = set(spec) - {"path", "reduce", "expr", "unit"}
        if unknown:
            raise ChiplessError(f"{where}: unknown key {sorted(unknown)[0]!r} (path, reduce, "
                                "expr, unit)")
        if "path" in spec:
            path, reduce = str(spec["path"]), spec.get("reduce")
            segments = path.split(".")
            if not all(_SEGMENT.match(s) for s in segments):
                raise ChiplessError(f"{where}: {path!r} is not a stats path (name.name[3].name, "
                                    "[*] for every element)")
            wild = "[*]" in path
            if reduce is not None and reduce not in REDUCERS:
                raise ChiplessError(f"{where}: reduce: {reduce!r} is not one of "
                                    f"{', '.join(REDUCERS)}")
            if wild and reduce is None:
                raise ChiplessError(f"{where}: {path!r} names many statistics; say how to "
                                    f"combine them with reduce: ({', '.join(REDUCERS)})")
            metrics.append(Metric(name, path=path, reduce=reduce, unit=spec.get("unit", "")))
        else:
            try:
                metric = Metric(name, expr=str(spec["expr"]), unit=spec.get("unit", ""))
            except SyntaxError as e:
                raise ChiplessError(f"{where}: expr: {e.msg} in {spec['expr']!r}") from None
            known = {m.name for m in metrics}
            _check_expression(where, metric.tree.body, known)
            metrics.append(metric)
    return metrics


def _check_expression(where, node, known):
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
        return
    if isinstance(node, ast.Name):
        if node.id not in known:
            raise ChiplessError(f"{where}: expr: {node.id!r} is not an earlier metric "
                                f"({', '.join(sorted(known)) or 'none yet'})")
        return
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        _check_expression(where, node.left, known)
        _check_expression(where, node.right, known)
        return
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        _check_expression(where, node.operand, known)
        return
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
        if node.func.id in ("arch", "param", "stat"):
            if len(node.args) != 1 or not isinstance(node.args[0], ast.Constant) or \
                    not isinstance(node.args[0].value, str):
                raise ChiplessError(f"{where}: expr: {node.func.id}() takes one quoted name")
            return
        if node.func.id in _FUNCTIONS:
            for a in node.args:
                _check_expression(where, a, known)
            return
    raise ChiplessError(f"{where}: expr: only numbers, earlier metrics, + - * / // % **, "
                        f"{', '.join(_FUNCTIONS)}, arch(), param() and stat() are allowed "
                        f"(got {ast.unparse(node)!r})")


def stat_values(stats, path):
    """The values of every statistic `path` names in a stats.json tree ([*] matches every
    element); ChiplessError naming the first segment that is not there."""
    nodes = [(stats, "")]
    for segment in path.split("."):
        name, index = _SEGMENT.match(segment).groups()
        following = []
        for node, where in nodes:
            if not isinstance(node, dict) or name not in node:
                raise ChiplessError(f"stats.json has no {(where + '.' if where else '') + name}")
            child = node[name]
            if index is None:
                following.append((child, where + ("." if where else "") + name))
            elif not isinstance(child, list):
                raise ChiplessError(f"stats.json: {where + name} is not an array")
            elif index == "*":
                following += [(c, f"{where}{'.' if where else ''}{name}[{i}]")
                              for i, c in enumerate(child) if c]
            elif int(index) >= len(child):
                raise ChiplessError(f"stats.json: {name} has {len(child)} elements, not "
                                    f"{int(index) + 1}")
            else:
                following.append((child[int(index)], f"{where}{'.' if where else ''}{segment}"))
        nodes = following
    values = []
    for node, where in nodes:
        if not isinstance(node, dict) or "value" not in node:
            raise ChiplessError(f"stats.json: {where} is a group, not a statistic")
        values.append(node["value"])
    if not values:
        raise ChiplessError(f"stats.json: {path} matches no statistic")
    return values


def evaluate(metrics, stats, arch_values, params):
    """{metric name: value} for one point: `stats` is its stats.json tree, `arch_values` its
    resolved parameters, `params` its swept values. ChiplessError names the metric."""
    values = {}
    for m in metrics:
        try:
            if m.path:
                found = stat_values(stats, m.path)
                values[m.name] = REDUCERS[m.reduce](found) if m.reduce else found[0]
            else:
                values[m.name] = _evaluate(m.tree.body, values, stats, arch_values, params)
        except ChiplessError as e:
            raise ChiplessError(f"metric {m.name}: {e}") from None
        except (ZeroDivisionError, OverflowError, ValueError) as e:
            raise ChiplessError(f"metric {m.name}: {m.expr}: {e}") from None
    return values


def _evaluate(node, values, stats, arch_values, params):
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return values[node.id]
    if isinstance(node, ast.BinOp):
        return _BINARY[type(node.op)](_evaluate(node.left, values, stats, arch_values, params),
                                      _evaluate(node.right, values, stats, arch_values, params))
    if isinstance(node, ast.UnaryOp):
        v = _evaluate(node.operand, values, stats, arch_values, params)
        return -v if isinstance(node.op, ast.USub) else v
    name, args = node.func.id, node.args
    if name == "arch":
        key = args[0].value
        if key not in arch_values:
            raise ChiplessError(f"arch('{key}'): no such parameter")
        return arch_values[key]
    if name == "param":
        key = args[0].value
        if key not in params:
            raise ChiplessError(f"param('{key}'): not a parameter of this point")
        return params[key]
    if name == "stat":
        return stat_values(stats, args[0].value)[0]
    return _FUNCTIONS[name](*[_evaluate(a, values, stats, arch_values, params) for a in args])
