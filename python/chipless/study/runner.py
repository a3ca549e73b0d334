"""Runs a study: compiles each distinct program once, runs each point not already in the
cache, then writes the table, the plots and the report.

    OUT/programs/KEY/   one compiled program per (workload, chip, planned parameters, compiler)
    OUT/points/KEY/     one run per (program, timing parameters, simulator): stats.json,
                        arch.resolved.yaml (the architecture the point ran on), result.json
    OUT/results.csv     a row per point, a column per parameter and metric
    OUT/study.json      what ran, what came from the cache, the best point
    OUT/plots/, OUT/report.md, OUT/report.html

Keys are hashes of everything that decides the result (file contents, parameter values,
the tools' own bytes), so adding points to a study runs only the new ones, an interrupted
study resumes where it stopped, and a rebuilt simulator reruns everything.
"""
import dataclasses
import hashlib
import json
import pathlib
import time

import yaml

from chipless import tools
from chipless.errors import ChiplessError
from chipless.resolved_arch import read_resolved_arch
from chipless.study import metrics as metrics_mod
from chipless.study import work
from chipless.study.progress import Progress


def _key(*parts):
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:20]


def _program_digest(directory):
    h = hashlib.sha256()
    for f in sorted(pathlib.Path(directory).iterdir()):
        if f.is_file():
            h.update(f.name.encode() + b"\0" + tools.file_digest(f).encode())
    return h.hexdigest()


def _arch_identity(arch):
    return tools.file_digest(arch) if pathlib.Path(arch).is_file() else arch


@dataclasses.dataclass
class PointResult:
    """What one point gave: its metrics, or the error that stopped it."""
    point: object
    run_key: str
    ok: bool
    error: str
    metrics: dict
    arch_file: str            # OUT-relative path of the resolved architecture, when it ran


@dataclasses.dataclass
class Outcome:
    """A finished study: every point's result and the counts of what ran."""
    study: object
    results: list
    counts: dict
    seconds: float


def plan_work(study, out, bin_dir, timeout):
    """The compile tasks (distinct, in point order) and each point's run task, or the
    compile key whose failure the point inherits."""
    chip_of = {p.arch: tools.chip_of(p.arch) for p in study.points}
    digests = {}

    def digest(name):
        if name not in digests:
            digests[name] = tools.file_digest(tools.tool(name, bin_dir))
        return digests[name]

    compiles, runs = {}, []
    for p in study.points:
        chip = chip_of[p.arch]
        if p.workload.kind == "program":
            program_id, plan, compile_key = _program_digest(p.workload.file.parent), \
                str(p.workload.file), None
        else:
            compiler = tools.COMPILERS[(chip, p.workload.kind)]
            compile_key = _key("compile", tools.file_digest(p.workload.file), p.workload.kind,
                               p.workload.compile_flags, _arch_identity(p.arch), p.planned,
                               digest(compiler))
            directory = out / "programs" / compile_key
            compiles.setdefault(compile_key, {
                "key": compile_key, "dir": str(directory), "bin": str(bin_dir), "chip": chip,
                "kind": p.workload.kind, "source": str(p.workload.file), "arch": p.arch,
                "planned": list(p.planned), "flags": list(p.workload.compile_flags),
                "timeout": timeout})
            program_id, plan = compile_key, str(directory / "program" / "job.plan")
        run_key = _key("run", program_id, p.timing, study.max_cycles,
                       digest(tools.SIMULATORS[chip]))
        runs.append((p, compile_key, {
            "key": run_key, "dir": str(out / "points" / run_key), "bin": str(bin_dir),
            "chip": chip, "plan": plan, "timing": list(p.timing), "timeout": timeout,
            "max_cycles": study.max_cycles}))
    return list(compiles.values()), runs


def run_study(study, out, executor, bin_dir=None, quiet=False, retry_failed=False):
    """Compiles and runs every point of `study` not already in OUT's cache with `executor`;
    returns the Outcome (the table and report are written by the caller)."""
    out = pathlib.Path(out).resolve()
    bin_dir = pathlib.Path(bin_dir or tools.bin_dir()).resolve()
    start = time.monotonic()
    compiles, runs = plan_work(study, out, bin_dir, study.timeout)
    _drop_scratch(out)
    if retry_failed:
        _forget_failures([c["dir"] for c in compiles] + [r[2]["dir"] for r in runs])

    counts = {"points": len(study.points), "programs": len(compiles)}
    compiled, counts["compiled"], counts["compiles_cached"] = _phase(
        executor, work.compile_program, compiles, "compile", quiet)
    counts["compile_failures"] = sum(1 for r in compiled.values() if not r["ok"])
    todo = [task for p, ck, task in runs if ck is None or compiled[ck]["ok"]]
    ran, counts["ran"], counts["runs_cached"] = _phase(
        executor, work.run_point, list({t["key"]: t for t in todo}.values()), "run", quiet)

    results = []
    for p, ck, task in runs:
        if ck is not None and not compiled[ck]["ok"]:
            results.append(PointResult(p, task["key"], False,
                                       "compile: " + compiled[ck]["error"], {}, ""))
            continue
        r = ran[task["key"]]
        if not r["ok"]:
            results.append(PointResult(p, task["key"], False, r["error"], {}, ""))
            continue
        results.append(_measure(study, out, p, task))
    counts["failed"] = sum(1 for r in results if not r.ok)
    return Outcome(study, results, counts, time.monotonic() - start)


def _measure(study, out, point, task):
    directory = pathlib.Path(task["dir"])
    arch_file = directory / "arch.resolved.yaml"
    try:
        stats = json.loads((directory / "stats.json").read_text())
        arch_values = read_resolved_arch(arch_file)
        values = metrics_mod.evaluate(study.metrics, stats, arch_values, point.params)
    except (OSError, ValueError, yaml.YAMLError) as e:
        return PointResult(point, task["key"], False, f"results of {directory}: {e}", {}, "")
    except ChiplessError as e:
        return PointResult(point, task["key"], False, str(e), {}, "")
    return PointResult(point, task["key"], True, "", values,
                       str(arch_file.relative_to(out)))


def _phase(executor, function, tasks, name, quiet):
    """Runs `function` on every task not already in the cache (read here, so that a rerun
    sends nothing to the workers); returns ({key: result}, how many ran, how many were
    cached)."""
    results = {t["key"]: r for t in tasks if (r := work.cached_result(t))}
    pending = [t for t in tasks if t["key"] not in results]
    ran = 0
    progress = Progress(name, len(pending), quiet=quiet)
    for r in executor.run(function, pending):
        results[r["key"]] = r
        ran += 0 if r["cached"] else 1
        progress.update(r["ok"])
    progress.finish()
    return results, ran, len(results) - ran


def _drop_scratch(out):
    """Removes the scratch folders (work.py's .tmp-*) that a killed study left behind: they
    hold no finished result, and a rerun starts those tasks afresh."""
    import shutil
    for phase in ("programs", "points"):
        for d in (out / phase).glob(".tmp-*") if (out / phase).is_dir() else ():
            shutil.rmtree(d, ignore_errors=True)


def _forget_failures(directories):
    import shutil
    for d in directories:
        result = pathlib.Path(d) / "result.json"
        if result.exists() and not json.loads(result.read_text())["ok"]:
            shutil.rmtree(d)


def best_results(outcome):
    """{workload name: its successful point with the best value of the study's best metric},
    in workload order; workloads with no successful point are left out."""
    study = outcome.study
    best = {}
    for r in outcome.results:
        value = r.metrics.get(study.best_metric)
        if not r.ok or isinstance(value, bool) or not isinstance(value, (int, float)):
            continue
        name = r.point.workload.name
        held = best.get(name)
        if held is None or (value < held.metrics[study.best_metric] if study.best_goal == "min"
                            else value > held.metrics[study.best_metric]):
            best[name] = r
    return best
