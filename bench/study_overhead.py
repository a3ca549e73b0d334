#!/usr/bin/python3
"""Host time of a bundled study with 1 and 2 local worker processes, and what the study
tool adds per point over running the simulator by hand. Prints a Markdown table for
docs/performance.md.

    /usr/bin/python3 bench/study_overhead.py [--study scenarios/spyre-memory.yaml]
        [--build-dir build] [--work /tmp/chipless-study-bench]

1. the whole study, cold (compiles and runs), with -j 1 and with -j 2;
2. the runs alone: the compiled programs kept, points/ removed, -j 1 (with and without
   --no-plots);
3. the same runs by hand: `spyre-sim run ... --timing-only --stats ... --set ...` for every
   point, one after the other, timed by this script.
The overhead per point is (2 - 3) / points: planning, cache keys, the process pool, reading
each point's stats.json and arch, the table (and, once per study, the plots and report:
measured alone by a rerun with everything cached).
"""
import argparse
import json
import os
import pathlib
import shutil
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]


def timed(args, env):
    start = time.monotonic()
    subprocess.run(args, env=env, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return time.monotonic() - start


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--study", default=str(ROOT / "scenarios" / "spyre-memory.yaml"))
    p.add_argument("--build-dir", default=str(ROOT / "build"))
    p.add_argument("--work", default="/tmp/chipless-study-bench")
    args = p.parse_args()
    bin_dir = pathlib.Path(args.build_dir).resolve() / "bin"
    env = dict(os.environ, CHIPLESS_BIN=str(bin_dir), PYTHONPATH=str(ROOT / "python"),
               SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
    work = pathlib.Path(args.work)
    study = [sys.executable, "-m", "chipless.cli", "study", args.study, "-q"]
    rows = []
    for jobs in (1, 2):
        out = work / f"j{jobs}"
        shutil.rmtree(out, ignore_errors=True)
        rows.append((f"whole study, cold, -j {jobs}", timed(study + ["-o", str(out), "-j",
                                                                      str(jobs)], env)))
    out = work / "j1"
    counts = json.loads((out / "study.json").read_text())["counts"]
    shutil.rmtree(out / "points")
    runs_only = timed(study + ["-o", str(out), "-j", "1"], env)
    rows.append(("runs only (programs cached), -j 1", runs_only))
    shutil.rmtree(out / "points")
    runs_no_plots = timed(study + ["-o", str(out), "-j", "1", "--no-plots"], env)
    rows.append(("runs only, -j 1, --no-plots (table and study.json only)", runs_no_plots))
    report = timed(study + ["-o", str(out), "-j", "1"], env)
    rows.append(("everything cached: table, plots and report only", report))

    sys.path.insert(0, str(ROOT / "python"))
    os.environ["CHIPLESS_BIN"] = str(bin_dir)
    from chipless.study import runner, spec
    loaded = spec.load_study(args.study)
    _, runs = runner.plan_work(loaded, out.resolve(), bin_dir, 3600)
    bare = 0.0
    scratch = work / "bare"
    scratch.mkdir(parents=True, exist_ok=True)
    for _, _, task in runs:
        cmd = [str(bin_dir / ("tpu-sim" if task["chip"] == "tpu" else "spyre-sim")), "run",
               task["plan"], "--timing-only", "--stats", str(scratch / "stats.json")]
        for s in task["timing"]:
            cmd += ["--set", s]
        bare += timed(cmd, env)
    rows.append(("the same runs by hand, one after the other", bare))

    points = counts["points"]
    print(f"{pathlib.Path(args.study).name}: {points} points, {counts['programs']} programs\n")
    print("| what | host seconds |\n|---|---|")
    for what, seconds in rows:
        print(f"| {what} | {seconds:.1f} |")
    print(f"\noverhead per point over the bare simulator run: "
          f"{(runs_no_plots - bare) / points * 1000:.1f} ms without the plots and report "
          f"({runs_no_plots / bare:.2f}x the bare runs), {(runs_only - bare) / points * 1000:.1f}"
          f" ms with them ({runs_only / bare:.2f}x)")
    print(f"speed-up of -j 2 over -j 1: {rows[0][1] / rows[1][1]:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
