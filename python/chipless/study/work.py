"""The two kinds of work a study does, as plain functions of plain dicts so that a local
process pool or a Dask worker can run them: compile one program, run one point.

Each writes its result into a fresh temporary folder next to its cache entry and renames it
into place when done, so a killed study never leaves a half-written entry: an entry that
exists is complete, and a rerun skips it.
"""
import json
import os
import pathlib
import shutil
import tempfile
import time

from chipless import tools


def cached_result(task):
    """The result kept in task["dir"] by an earlier compile or run, or None: {"ok", "error",
    "key", "cached": True}."""
    path = pathlib.Path(task["dir"]) / "result.json"
    if not path.exists():
        return None
    return {**json.loads(path.read_text()), "key": task["key"], "cached": True}


def _scratch(task):
    """A fresh folder beside task["dir"], renamed into place by _finish."""
    final = pathlib.Path(task["dir"])
    final.parent.mkdir(parents=True, exist_ok=True)
    return pathlib.Path(tempfile.mkdtemp(prefix=".tmp-", dir=final.parent))


def _finish(task, tmp, status, out, err, seconds, keep):
    """The result of a tool run in `tmp`. When `keep`, result.json is written and the folder
    renamed to task["dir"] (if another worker got there first, its equal result stays);
    otherwise the folder is dropped, and a rerun tries again."""
    result = {"ok": status == 0, "error": "" if status == 0 else tools.first_error(err, out)}
    if keep(status, result["error"]):
        (tmp / "result.json").write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
        try:
            os.rename(tmp, task["dir"])
        except OSError:
            shutil.rmtree(tmp, ignore_errors=True)
    else:
        shutil.rmtree(tmp, ignore_errors=True)
    return {**result, "key": task["key"], "seconds": seconds, "cached": False}


def _timed(args, timeout):
    start = time.monotonic()
    status, out, err = tools.run_tool(args, timeout=timeout)
    return status, out, err, time.monotonic() - start


def compile_program(task):
    """Compiles `task["source"]` for `task["arch"]` with the planned `--set`s into
    task["dir"]: program/ (when the compiler accepted it), compile.log and result.json.
    Returns {"key", "ok", "error", "seconds", "cached"}."""
    cached = cached_result(task)
    if cached:
        return {**cached, "seconds": 0.0}
    tmp = _scratch(task)
    program = tmp / "program"
    args = tools.compile_command(task["bin"], task["chip"], task["arch"], task["kind"],
                                 task["source"], program, task["planned"], task["flags"])
    status, out, err, seconds = _timed(args, task["timeout"])
    (tmp / "compile.log").write_text(" ".join(map(str, args)) + "\n" + out + err)
    if status != 0:
        shutil.rmtree(program, ignore_errors=True)
    # a compile stopped by the host-time limit says nothing about the program: not kept
    return _finish(task, tmp, status, out, err, seconds, lambda s, e: s != 124)


def run_point(task):
    """Runs the program `task["plan"]` in timing-only mode with the timing `--set`s; keeps
    stats.json, arch.resolved.yaml and result.json in task["dir"]. Returns {"key", "ok",
    "error", "seconds", "cached"}."""
    cached = cached_result(task)
    if cached:
        return {**cached, "seconds": 0.0}
    tmp = _scratch(task)
    args = [pathlib.Path(task["bin"]) / tools.SIMULATORS[task["chip"]], "run", task["plan"],
            "--timing-only", "--stats", tmp / "stats.json", "--timeout", str(task["timeout"])]
    if task["max_cycles"]:
        args += ["--max-cycles", str(task["max_cycles"])]
    for s in task["timing"]:
        args += ["--set", s]
    status, out, err, seconds = _timed(args, task["timeout"] + 60)
    # a run stopped by the host-time limit (the simulator's --timeout or ours) is not kept
    return _finish(task, tmp, status, out, err, seconds,
                   lambda s, e: s != 124 and "of host time" not in e)
