"""A study file (scenarios/NAME.yaml) read and checked: the workloads, the chip, the fixed
and swept parameters, the metrics, the plots and the best point's criterion. Every problem
is a ChiplessError naming the file, the line and the field; docs/studies.md is the reference.
"""
import dataclasses
import difflib
import pathlib
import re

from chipless import tools
from chipless.errors import ChiplessError
from chipless.located_yaml import line_of, load_located
from chipless.study import metrics as metrics_mod
from chipless.study import sweep as sweep_mod

_TOP_KEYS = ("study", "description", "chip", "workloads", "set", "sweep", "metrics", "plots",
             "best", "run")
PLOT_KINDS = {"line": ("x", "y"), "heatmap": ("x", "y", "value"), "bar": ("x", "y"),
              "roofline": ("intensity", "performance", "peak_compute", "peak_bandwidth")}
_PLOT_KEYS = {"kind", "x", "y", "value", "series", "per", "where", "title", "log", "intensity",
              "performance", "peak_compute", "peak_bandwidth", "label"}


@dataclasses.dataclass
class Workload:
    """One program the study runs: a KTIR kernel or tensor graph (.mlir, compiled for each
    chip and planned parameters), hand-written assembly (.s) or a compiled program
    directory (job.plan, which only timing parameters may vary)."""
    name: str
    file: pathlib.Path
    kind: str                  # "mlir", "asm" or "program"
    compile_flags: tuple = ()
    #: a tensor graph: its compiler chooses divisions and fusion with a cost model that
    #: reads the timing parameters too, so every parameter is one it plans with
    graph: bool = False


@dataclasses.dataclass
class Point:
    """One run of the study: a workload on a chip with parameter values."""
    index: int
    workload: Workload
    arch: str                  # bundled name or description file
    params: dict               # the swept values (chip included when swept)
    planned: tuple             # "key=value" --set arguments the compiler plans with
    timing: tuple              # "key=value" --set arguments only the run takes


@dataclasses.dataclass
class Study:
    """A checked study file."""
    file: pathlib.Path
    name: str
    description: str
    workloads: list
    points: list
    parameters: list            # swept parameter names, in order ("chip" included)
    metrics: list
    plots: list
    best_metric: str
    best_goal: str
    timeout: float
    max_cycles: int


def _value_text(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _resolve_arch(study_dir, arch, where):
    """A bundled name stays a name; anything else is a file relative to the study file."""
    arch = str(arch)
    if arch in tools.SPYRE_ARCHS or arch in tools.TPU_ARCHS or \
            arch.removeprefix("tpu-") in tools.TPU_ARCHS:
        return arch
    path = (study_dir / arch).resolve()
    if not path.is_file():
        names = ", ".join(tools.SPYRE_ARCHS + tools.TPU_ARCHS)
        raise ChiplessError(f"{where}: {arch}: no such file (relative to {study_dir}), and not a "
                            f"bundled architecture ({names})")
    return str(path)


def load_study(path):
    """Reads and checks the study file `path`; ChiplessError on the first problem."""
    path = pathlib.Path(path)
    doc = load_located(path)
    f = str(path)
    if not isinstance(doc, dict):
        raise ChiplessError(f"{f}:1: a study file is a mapping (study:, chip:, workloads:, ...)")
    for key in doc:
        if key not in _TOP_KEYS:
            near = difflib.get_close_matches(str(key), _TOP_KEYS, 1)
            raise ChiplessError(f"{f}:{line_of(doc, key)}: unknown key {key!r}"
                                + (f" (did you mean {near[0]!r}?)" if near else
                                   f" ({', '.join(_TOP_KEYS)})"))
    for key in ("workloads", "metrics"):
        if key not in doc:
            raise ChiplessError(f"{f}:{doc.line}: missing {key}:")
    study_dir = path.resolve().parent
    chip_where = f"{f}:{line_of(doc, 'chip')}: chip"
    chip = _resolve_arch(study_dir, doc.get("chip", "spyre"), chip_where)
    workloads = _workloads(f, study_dir, doc["workloads"])

    fixed = doc.get("set") or {}
    if not isinstance(fixed, dict):
        raise ChiplessError(f"{f}:{line_of(doc, 'set')}: set: expected a mapping key.path: value")
    swept = sweep_mod.expand(f, doc.get("sweep"), doc, "sweep")
    parameters = list(dict.fromkeys(k for p in swept for k in p))
    for p in parameters:
        if p in fixed:
            raise ChiplessError(f"{f}:{line_of(fixed, p)}: set.{p}: also swept; keep one")

    sweep_where = f"{f}:{line_of(doc, 'sweep')}: sweep.chip"
    archs = sorted({_resolve_arch(study_dir, p.get("chip", chip), sweep_where) for p in swept})
    described = {}
    for arch in archs:
        try:
            described[arch] = tools.describe_arch(arch)
        except ChiplessError as e:
            raise ChiplessError(f"{chip_where}: {e}") from None
    for key in list(fixed) + [p for p in parameters if p != "chip"]:
        for arch, info in described.items():
            if key not in info["params"]:
                near = difflib.get_close_matches(key, info["params"], 1)
                container = fixed if key in fixed else doc
                raise ChiplessError(
                    f"{f}:{line_of(container, key if key in fixed else 'sweep')}: {key}: not a "
                    f"parameter of {pathlib.Path(arch).name}"
                    + (f" (did you mean {near[0]}?)" if near else
                       " (chipless-arch show NAME lists them)"))

    points = []
    for workload in workloads:
        for values in swept:
            arch = _resolve_arch(study_dir, values.get("chip", chip), sweep_where)
            roles = described[arch]["params"]
            assignments = {**fixed, **{k: v for k, v in values.items() if k != "chip"}}
            planned = tuple(f"{k}={_value_text(v)}" for k, v in sorted(assignments.items())
                            if workload.graph or roles[k]["role"] == "planned")
            timing = tuple(f"{k}={_value_text(v)}" for k, v in sorted(assignments.items())
                           if not workload.graph and roles[k]["role"] != "planned")
            if workload.kind == "program" and planned:
                raise ChiplessError(
                    f"{f}:{line_of(doc, 'workloads')}: workload {workload.name} is a compiled "
                    f"program: it cannot vary {planned[0].split('=')[0]}, a parameter the "
                    "compiler plans with; give its source instead")
            points.append(Point(len(points), workload, arch, dict(values), planned, timing))

    metric_list = metrics_mod.parse_metrics(f, doc["metrics"])
    names = [m.name for m in metric_list]
    plots = _plots(f, doc.get("plots") or [], ["workload"] + parameters, names)
    best = doc.get("best") or {}
    if not isinstance(best, dict) or set(best) - {"metric", "goal"}:
        raise ChiplessError(f"{f}:{line_of(doc, 'best')}: best: expected {{metric: NAME, "
                            "goal: min|max}")
    best_metric = best.get("metric", names[0])
    best_goal = best.get("goal", "min")
    if best_metric not in names or best_goal not in ("min", "max"):
        raise ChiplessError(f"{f}:{line_of(doc, 'best')}: best: metric must be one of "
                            f"{', '.join(names)} and goal min or max")
    run = doc.get("run") or {}
    timeout, max_cycles = (run.get("timeout", 3600), run.get("max_cycles", 0)) \
        if isinstance(run, dict) else (None, None)
    if not isinstance(run, dict) or set(run) - {"timeout", "max_cycles"} or \
            isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0 \
            or isinstance(max_cycles, bool) or not isinstance(max_cycles, int) or max_cycles < 0:
        raise ChiplessError(f"{f}:{line_of(doc, 'run')}: run: expected {{timeout: SECONDS, "
                            "max_cycles: N} (seconds > 0, cycles a whole number >= 0)")
    return Study(file=path, name=str(doc.get("study", path.stem)),
                 description=str(doc.get("description", "")).strip(),
                 workloads=workloads, points=points, parameters=parameters,
                 metrics=metric_list, plots=plots, best_metric=best_metric,
                 best_goal=best_goal, timeout=float(timeout), max_cycles=max_cycles)


def _workloads(f, study_dir, section):
    if not isinstance(section, dict) or not section:
        raise ChiplessError(f"{f}:{getattr(section, 'line', 0)}: workloads: expected a mapping "
                            "NAME: FILE or NAME: {file: FILE, compile: [FLAGS]}")
    workloads = []
    for name, spec in section.items():
        where = f"{f}:{line_of(section, name)}: workloads.{name}"
        flags = ()
        if isinstance(spec, dict):
            if "file" not in spec or set(spec) - {"file", "compile"}:
                raise ChiplessError(f"{where}: expected {{file: FILE, compile: [FLAGS]}}")
            flags = spec.get("compile") or ()
            if not isinstance(flags, list) or not all(isinstance(x, str) for x in flags):
                raise ChiplessError(f"{where}.compile: expected a list of compiler flags")
            spec = spec["file"]
        if not isinstance(spec, str):
            raise ChiplessError(f"{where}: expected a file name")
        file = (study_dir / spec).resolve()
        if file.is_dir():
            file = file / "job.plan"
        if not file.exists():
            raise ChiplessError(f"{where}: {spec}: no such file (relative to {study_dir})")
        kind = {".mlir": "mlir", ".ktir": "mlir", ".s": "asm", ".plan": "program"}.get(file.suffix)
        if kind is None:
            raise ChiplessError(f"{where}: {spec}: not a .mlir kernel or graph, a .s program or "
                                "a program directory")
        workloads.append(Workload(str(name), file, kind, tuple(flags),
                                  kind == "mlir" and _is_tensor_graph(file)))
    return workloads


def _is_tensor_graph(file):
    """Whether a .mlir file is a tensor graph rather than a KTIR kernel: no ktdp or spyreop
    op, as spyre-compile tells them apart (frontend::isTensorGraph)."""
    return re.search(r"\b(ktdp|spyreop)\.", file.read_text(errors="replace")) is None


def _plots(f, section, dimensions, metric_names):
    if not isinstance(section, list):
        raise ChiplessError(f"{f}:{getattr(section, 'line', 0)}: plots: expected a list")
    plots = []
    for i, plot in enumerate(section):
        where = f"{f}:{line_of(section, i)}: plots[{i}]"
        if not isinstance(plot, dict) or plot.get("kind") not in PLOT_KINDS:
            raise ChiplessError(f"{where}: expected a mapping with kind: "
                                f"{' | '.join(PLOT_KINDS)}")
        unknown = set(plot) - _PLOT_KEYS
        if unknown:
            raise ChiplessError(f"{where}: unknown key {sorted(unknown)[0]!r}")
        for key in PLOT_KINDS[plot["kind"]]:
            if key not in plot:
                raise ChiplessError(f"{where}: a {plot['kind']} plot needs {key}:")
        axes = {"x": dimensions, "series": dimensions, "per": dimensions,
                "y": metric_names if plot["kind"] != "heatmap" else dimensions,
                "value": metric_names, "intensity": metric_names,
                "performance": metric_names, "peak_compute": metric_names,
                "peak_bandwidth": metric_names, "label": dimensions}
        if plot["kind"] == "bar":
            axes["x"] = dimensions
        for key, allowed in axes.items():
            if key in plot and plot[key] not in allowed:
                raise ChiplessError(f"{f}:{line_of(plot, key)}: plots[{i}].{key}: "
                                    f"{plot[key]!r} is not one of {', '.join(allowed)}")
        where_filter = plot.get("where") or {}
        if not isinstance(where_filter, dict) or set(where_filter) - set(dimensions):
            raise ChiplessError(f"{f}:{line_of(plot, 'where')}: plots[{i}].where: expected "
                                f"a mapping of {', '.join(dimensions)} to values")
        plots.append(dict(plot))
    return plots
