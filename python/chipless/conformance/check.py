"""One conformance check: a case on one chip. Compiles the workload, makes seeded inputs
from the program's plan, runs it twice with real numbers, and checks that

  1. the outputs match the fp32 reference within the case's tolerance
     (|out - ref| <= atol + rtol * |ref| everywhere, NaN where the reference has NaN),
  2. no run beats a physical bound (bounds.py),
  3. the second run's outputs and stats.json are byte-identical to the first's.

A plain function of plain dicts, so that a process pool can run it.
"""
import json
import pathlib
import shutil
import time

import numpy as np

from chipless import plan_inputs, tools
from chipless.conformance.bounds import check_bounds
from chipless.numerics import round_bf16
from chipless.resolved_arch import read_resolved_arch

def _compare(out, ref, rtol, atol):
    """(holds, worst absolute error, worst error relative to the reference's largest
    magnitude, where the worst element is)."""
    ref = np.asarray(ref, np.float32)
    if out.shape != ref.shape:
        return False, float("inf"), float("inf"), f"shape {list(out.shape)} where the " \
            f"reference has {list(ref.shape)}"
    diff = np.abs(out.astype(np.float64) - ref.astype(np.float64))
    nan_ok = np.isnan(out) == np.isnan(ref)
    diff = np.where(np.isnan(ref) & np.isnan(out), 0.0, diff)
    limit = atol + rtol * np.abs(ref.astype(np.float64))
    bad = ~(diff <= limit) | ~nan_ok
    worst = float(np.nanmax(diff)) if diff.size else 0.0
    scale = float(np.nanmax(np.abs(ref))) if ref.size else 0.0
    relative = worst / scale if scale > 0 else worst
    where = ""
    if bad.any():
        index = tuple(int(i) for i in np.unravel_index(int(np.argmax(bad)), bad.shape))
        where = (f"at {list(index)}: {float(out[index])!r} where the reference has "
                 f"{float(ref[index])!r} (|diff| {float(diff[index]):.3g} > "
                 f"{float(limit[index]):.3g}); {int(bad.sum())} of {bad.size} elements")
    return not bad.any(), worst, relative, where


def run_check(task):
    """Runs one (case, chip) check; returns a dict: suite, case, chip, ok, failure, cycles,
    worst_abs_error, worst_rel_error, bounds, seconds."""
    start = time.monotonic()
    result = {"suite": task["suite"], "case": task["case"], "chip": task["chip"], "ok": False,
              "failure": "", "cycles": None, "worst_abs_error": None, "worst_rel_error": None,
              "bounds": [], "outputs": []}
    try:
        _run(task, result)
    except _Failed as e:
        result["failure"] = str(e)
    result["seconds"] = time.monotonic() - start
    return result


class _Failed(Exception):
    pass


def _tool_or_fail(args, what, timeout):
    status, out, err = tools.run_tool(args, timeout=timeout)
    if status != 0:
        raise _Failed(f"{what}: {tools.first_error(err, out)}")
    return out


def _run(task, result):
    work = pathlib.Path(task["dir"])
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    bin_dir = pathlib.Path(task["bin"])
    kind = task["chip_kind"]
    program = work / "program"
    _tool_or_fail(tools.compile_command(bin_dir, kind, task["arch"], task["kind"],
                                        task["workload"], program, task["sets"], task["flags"]),
                  "compile", task["timeout"])

    plan_path = program / "job.plan"
    try:
        plan = plan_inputs.read_plan(plan_path)
        scalars = plan_inputs.scalar_values(plan, str(plan_path), task["scalars"])
    except plan_inputs.PlanError as e:
        raise _Failed(f"inputs: {e}") from None
    run_args = [bin_dir / tools.SIMULATORS[kind], "run", plan_path, "--timeout",
                str(task["timeout"])]
    for s in task["sets"]:
        run_args += ["--set", s]
    device_inputs = {}
    for arg in plan["arguments"]:
        if arg["role"] == "output":
            continue
        shape = plan_inputs.host_shape(arg, scalars)
        rng = plan_inputs.rng_for(f"{task['suite']}/{task['case']}/{task['seed']}/{arg['name']}")
        if arg["dtype"] in ("i32", "i8"):
            bound = task["index_bounds"].get(arg["name"], 8)
            values = plan_inputs.small_ints(rng, shape, arg["dtype"], bound)
        else:
            values = plan_inputs.normal(rng, shape, arg["dtype"],
                                        task["scales"].get(arg["name"], 0.5))
        path = work / f"in-{arg['name']}.npy"
        np.save(path, values)
        run_args += ["--input", f"{arg['name']}={path}"]
        held = values.astype(np.float32) if values.dtype.kind == "f" else values
        device_inputs[arg["name"]] = round_bf16(held) if arg["dtype"] == "bf16" else held
    for name, value in scalars.items():
        run_args += ["--scalar", f"{name}={value}"]
    outputs = [a["name"] for a in plan["arguments"] if a["role"] in ("output", "inout")]
    runs = []
    for n in (1, 2):
        directory = work / f"run{n}"
        args = list(run_args) + ["--stats", directory / "stats.json"]
        for name in outputs:
            args += ["--output", f"{name}={directory / (name + '.npy')}"]
        _tool_or_fail(args, f"run {n}", task["timeout"])
        runs.append(directory)

    stats = json.loads((runs[0] / "stats.json").read_text())
    arch = read_resolved_arch(runs[0] / "arch.resolved.yaml")
    bounds = check_bounds(stats, arch, kind == "tpu")
    result["cycles"] = bounds[0][2]
    result["bounds"] = [{"bound": b, "cycles_at_least": round(v, 3), "holds": h}
                        for b, v, _, h in bounds]
    failures = [f"beats the {b} bound: {c} cycles, but the work needs at least {v:.1f}"
                for b, v, c, h in bounds if not h]

    for name in outputs + ["stats.json"]:
        file = name if name == "stats.json" else name + ".npy"
        if (runs[0] / file).read_bytes() != (runs[1] / file).read_bytes():
            failures.append(f"not deterministic: {file} differs between two runs")

    if task["reference"]:
        from chipless.conformance.suite import load_reference
        function = load_reference(task["references"], task["reference"])
        try:
            expected = function(dict(device_inputs), dict(scalars))
        except Exception as e:  # the suite's own code: its failure is this check's failure
            raise _Failed(f"the reference {task['reference']} raised {type(e).__name__}: "
                          f"{e}") from None
        worst_abs = worst_rel = 0.0
        for name in outputs:
            if name not in expected:
                failures.append(f"the reference gives no {name}")
                continue
            out = np.load(runs[0] / f"{name}.npy").astype(np.float32)
            holds, a, r, where = _compare(out, expected[name], task["rtol"], task["atol"])
            worst_abs, worst_rel = max(worst_abs, a), max(worst_rel, r)
            result["outputs"].append({"name": name, "worst_abs_error": a, "worst_rel_error": r})
            if not holds:
                failures.append(f"{name} differs from the fp32 reference beyond rtol "
                                f"{task['rtol']} atol {task['atol']} {where}")
        result["worst_abs_error"], result["worst_rel_error"] = worst_abs, worst_rel
    result["ok"] = not failures
    result["failure"] = "; ".join(failures)
