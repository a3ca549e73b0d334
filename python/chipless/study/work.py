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

def _commit(tmp, final):
    """Moves the finished folder `tmp` to `final`; if another worker got there first, its
    equal result stays and this one is dropped."""
    try:
        os.rename(tmp, final)
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)


def _write_json(path, value):
    pathlib.Path(path).write_text(json.dumps(value, indent=1, sort_keys=True) + "\n")


def compile_program(task):
    """Compiles `task["source"]` for `task["arch"]` with the planned `--set`s into
    task["dir"]: the program, or error.txt when the compiler refused it. Returns
    {"key", "ok", "error", "seconds"}."""
    final = pathlib.Path(task["dir"])
    if (final / "result.json").exists():
        return {**json.loads((final / "result.json").read_text()), "key": task["key"],
                "seconds": 0.0, "cached": True}
    final.parent.mkdir(parents=True, exist_ok=True)
    tmp = pathlib.Path(tempfile.mkdtemp(prefix=".tmp-", dir=final.parent))
    program = tmp / "program"
    args = tools.compile_command(task["bin"], task["arch"], task["kind"], task["source"], program,
                                 task["planned"], task["flags"])
    start = time.monotonic()
    status, out, err = tools.run_tool(args, timeout=task["timeout"])
    seconds = time.monotonic() - start
    result = {"ok": status == 0, "error": "" if status == 0 else tools.first_error(err, out)}
    (tmp / "compile.log").write_text(" ".join(map(str, args)) + "\n" + out + err)
    if status != 0:
        shutil.rmtree(program, ignore_errors=True)
    if status == 124:               # a timeout says nothing about the program: not kept
        shutil.rmtree(tmp, ignore_errors=True)
    else:
        _write_json(tmp / "result.json", result)
        _commit(tmp, final)
    return {**result, "key": task["key"], "seconds": seconds, "cached": False}


def run_point(task):
    """Runs the program `task["plan"]` in timing-only mode with the timing `--set`s; keeps
    stats.json, arch.resolved.yaml and result.json in task["dir"]. Returns {"key", "ok",
    "error", "seconds", "cached"}."""
    final = pathlib.Path(task["dir"])
    if (final / "result.json").exists():
        return {**json.loads((final / "result.json").read_text()), "key": task["key"],
                "seconds": 0.0, "cached": True}
    final.parent.mkdir(parents=True, exist_ok=True)
    tmp = pathlib.Path(tempfile.mkdtemp(prefix=".tmp-", dir=final.parent))
    args = [pathlib.Path(task["bin"]) / tools.SIMULATORS[task["chip"]], "run", task["plan"],
            "--timing-only", "--stats", tmp / "stats.json", "--timeout", str(task["timeout"])]
    if task["max_cycles"]:
        args += ["--max-cycles", str(task["max_cycles"])]
    for s in task["timing"]:
        args += ["--set", s]
    start = time.monotonic()
    status, out, err = tools.run_tool(args, timeout=task["timeout"] + 60)
    seconds = time.monotonic() - start
    result = {"ok": status == 0, "error": "" if status == 0 else tools.first_error(err, out)}
    host_limit = status == 124 or "of host time" in result["error"]
    if host_limit:                  # over the host-time limit: not kept, a rerun tries again
        shutil.rmtree(tmp, ignore_errors=True)
    else:
        _write_json(tmp / "result.json", result)
        _commit(tmp, final)
    return {**result, "key": task["key"], "seconds": seconds, "cached": False}
