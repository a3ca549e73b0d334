"""A conformance suite file (scenarios/conformance/NAME.yaml) read and checked.

    suite: spyre-kernels
    description: ...
    references: references.py          # fp32 reference functions, relative to the file
    chips: [spyre]                     # default chips of every case
    cases:
      - name: layernorm
        workload: ../../models/kernels/layernorm.mlir
        reference: layer_norm          # a function of the references module
        tolerance: {rtol: 0.02, atol: 0.02}
        inputs: {X: {scale: 1.5}}      # optional: per-input scale of the random values
        scalars: {N: 4096}             # optional: values of the plan's scalars
        indices: {ids: 4096}           # optional: integer inputs drawn from [0, bound)
        compile: [--grid, "32"]        # optional: compiler flags
        chips: [spyre, v5e]            # optional: overrides the suite's

`optional: true` on a suite skips (rather than refuses) cases whose workload is not there,
for suites over files outside the repository such as ../shared/ktir-examples.

A reference function takes (inputs, scalars) — inputs as float32 numpy arrays by
argument name — and returns {output name: array}. Every problem is a ChiplessError naming
the file, line and field.
"""
import dataclasses
import importlib.util
import pathlib

from chipless import tools
from chipless.errors import ChiplessError
from chipless.located_yaml import line_of, load_located

_SUITE_KEYS = ("suite", "description", "references", "chips", "cases", "optional")
_CASE_KEYS = ("name", "workload", "reference", "tolerance", "inputs", "scalars", "compile",
              "chips", "seed", "indices")


@dataclasses.dataclass
class Case:
    """One workload of a suite, run on each of its chips."""
    suite: str
    name: str
    workload: pathlib.Path
    kind: str                     # "mlir" or "asm"
    chips: tuple
    references: str               # the references file, or "" (determinism and bounds only)
    reference_name: str
    rtol: float
    atol: float
    input_scales: dict
    scalars: dict
    index_bounds: dict            # integer inputs: values drawn from [0, bound)
    compile_flags: tuple
    seed: int
    where: str                    # FILE:LINE of the case, for messages
    skip: str = ""                # why the case does not run (an optional suite's missing file)


@dataclasses.dataclass
class Suite:
    file: pathlib.Path
    name: str
    description: str
    cases: list


_MODULES = {}


def _load_references(where, path):
    if str(path) in _MODULES:
        return _MODULES[str(path)]
    spec = importlib.util.spec_from_file_location(f"chipless_references_{path.stem}", path)
    if spec is None or not path.is_file():
        raise ChiplessError(f"{where}: references: {path}: no such file")
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as e:  # the suite's own code: report whatever it raised, located
        raise ChiplessError(f"{where}: references: {path}: {type(e).__name__}: {e}") from None
    _MODULES[str(path)] = module
    return module


def load_reference(path, name):
    """The reference function `name` of the references file `path` (loaded once per
    process): how a worker process finds a case's reference."""
    return getattr(_load_references(str(path), pathlib.Path(path)), name)


def _number(where, value):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise ChiplessError(f"{where}: expected a number >= 0, got {value!r}")
    return float(value)


def load_suite(path):
    """Reads and checks a suite file; ChiplessError on the first problem."""
    path = pathlib.Path(path)
    f = str(path)
    doc = load_located(path)
    if not isinstance(doc, dict) or not isinstance(doc.get("cases"), list):
        raise ChiplessError(f"{f}:{getattr(doc, 'line', 1)}: a suite is a mapping with "
                            "cases: (a list)")
    for key in doc:
        if key not in _SUITE_KEYS:
            raise ChiplessError(f"{f}:{line_of(doc, key)}: unknown key {key!r} "
                                f"({', '.join(_SUITE_KEYS)})")
    base = path.resolve().parent
    module, references = None, ""
    if doc.get("references"):
        references = str(base / str(doc["references"]))
        module = _load_references(f"{f}:{line_of(doc, 'references')}",
                                  pathlib.Path(references))
    default_chips = doc.get("chips", ["spyre"])
    name = str(doc.get("suite", path.stem))
    cases, seen = [], set()
    for i, c in enumerate(doc["cases"]):
        where = f"{f}:{line_of(doc['cases'], i)}"
        if not isinstance(c, dict):
            raise ChiplessError(f"{where}: cases[{i}]: expected a mapping")
        for key in c:
            if key not in _CASE_KEYS:
                raise ChiplessError(f"{f}:{line_of(c, key)}: cases[{i}]: unknown key {key!r} "
                                    f"({', '.join(_CASE_KEYS)})")
        for key in ("name", "workload"):
            if key not in c:
                raise ChiplessError(f"{where}: cases[{i}]: missing {key}:")
        case_name = str(c["name"])
        if case_name in seen:
            raise ChiplessError(f"{where}: cases[{i}]: a second case named {case_name!r}")
        seen.add(case_name)
        workload = (base / str(c["workload"])).resolve()
        if not workload.is_file() and doc.get("optional"):
            skip = f"{c['workload']}: not present (an optional suite)"
        elif not workload.is_file():
            raise ChiplessError(f"{f}:{line_of(c, 'workload')}: {case_name}: workload "
                                f"{c['workload']}: no such file (relative to {base})")
        else:
            skip = ""
        kind = {".mlir": "mlir", ".ktir": "mlir", ".s": "asm"}.get(workload.suffix)
        if kind is None:
            raise ChiplessError(f"{f}:{line_of(c, 'workload')}: {case_name}: a workload is a "
                                ".mlir (or .ktir) kernel or graph or a .s program")
        chips = c.get("chips", default_chips)
        if isinstance(chips, str):
            chips = [chips]
        for chip in chips:
            if chip not in tools.SPYRE_ARCHS + tools.TPU_ARCHS:
                raise ChiplessError(f"{f}:{line_of(c, 'chips')}: {case_name}: chip {chip!r} is "
                                    f"not one of {', '.join(tools.SPYRE_ARCHS + tools.TPU_ARCHS)}")
        reference_name = str(c.get("reference", ""))
        if reference_name:
            if module is None:
                raise ChiplessError(f"{f}:{line_of(c, 'reference')}: {case_name}: reference "
                                    f"{reference_name!r} but the suite names no references: file")
            if not callable(getattr(module, reference_name, None)):
                raise ChiplessError(f"{f}:{line_of(c, 'reference')}: {case_name}: "
                                    f"{doc['references']} has no function {reference_name!r}")
        tolerance = c.get("tolerance", {})
        if not isinstance(tolerance, dict) or set(tolerance) - {"rtol", "atol"}:
            raise ChiplessError(f"{f}:{line_of(c, 'tolerance')}: {case_name}: tolerance: "
                                "expected {rtol: R, atol: A}")
        tw = f"{f}:{line_of(c, 'tolerance')}: {case_name}: tolerance"
        scales = c.get("inputs", {})
        if not isinstance(scales, dict) or not all(
                isinstance(v, dict) and set(v) <= {"scale"} for v in scales.values()):
            raise ChiplessError(f"{f}:{line_of(c, 'inputs')}: {case_name}: inputs: expected "
                                "{ARG: {scale: S}}")
        scalars = c.get("scalars", {})
        if not isinstance(scalars, dict) or not all(isinstance(v, int) for v in scalars.values()):
            raise ChiplessError(f"{f}:{line_of(c, 'scalars')}: {case_name}: scalars: expected "
                                "{NAME: INTEGER}")
        indices = c.get("indices", {})
        if not isinstance(indices, dict) or not all(isinstance(v, int) and v > 0
                                                    for v in indices.values()):
            raise ChiplessError(f"{f}:{line_of(c, 'indices')}: {case_name}: indices: expected "
                                "{ARG: BOUND}: integer inputs drawn from [0, BOUND)")
        flags = c.get("compile", [])
        if not isinstance(flags, list):
            raise ChiplessError(f"{f}:{line_of(c, 'compile')}: {case_name}: compile: expected "
                                "a list of flags")
        cases.append(Case(
            suite=name, name=case_name, workload=workload, kind=kind, chips=tuple(chips),
            references=references if reference_name else "", reference_name=reference_name,
            rtol=_number(tw + ".rtol", tolerance.get("rtol", 1e-2)),
            atol=_number(tw + ".atol", tolerance.get("atol", 1e-2)),
            input_scales={k: float(v.get("scale", 0.5)) for k, v in scales.items()},
            scalars=dict(scalars), index_bounds=dict(indices),
            compile_flags=tuple(str(x) for x in flags),
            seed=int(c.get("seed", 0)), where=where, skip=skip))
    return Suite(path, name, str(doc.get("description", "")).strip(), cases)
