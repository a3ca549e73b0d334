"""`chipless study FILE -o OUT`: the command line of a study run."""
import argparse
import json
import os
import pathlib
import shutil
import sys
import tempfile

from chipless import tools
from chipless.errors import ChiplessError
from chipless.study import executors, plots, report, runner, spec, table


def write_atomically(path, text):
    """Writes `text` to `path` through a temporary file and a rename: a reader never sees
    half a file, and a failed write leaves the old one."""
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        pathlib.Path(tmp).unlink(missing_ok=True)
        raise


def parser():
    p = argparse.ArgumentParser(
        prog="chipless study",
        description="Run an architecture what-if study: every workload at every point of the "
                    "sweep, compiled when a planned parameter changes, rerun only when "
                    "results are not already in OUT; then the table, plots and report.")
    p.add_argument("study", help="the study file (scenarios/NAME.yaml; docs/studies.md)")
    p.add_argument("-o", "--output", required=True, help="the study's folder (results, cache)")
    p.add_argument("-j", "--jobs", type=int, default=None,
                   help="local worker processes (default: one per core)")
    p.add_argument("--cluster", default=os.environ.get("DASK_SCHEDULER_ADDRESS"),
                   help="run the points on this Dask scheduler (tcp://HOST:PORT; default "
                        "$DASK_SCHEDULER_ADDRESS); OUT must be visible to its workers")
    p.add_argument("--retry-failed", action="store_true",
                   help="run again the points (and compiles) that failed before")
    p.add_argument("--list", action="store_true",
                   help="print the points the study has and stop")
    p.add_argument("--no-plots", action="store_true", help="only the table and study.json")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress lines")
    return p


def write_outputs(outcome, out, draw=True):
    """results.csv, study.json, plots/ and the report in `out`."""
    out = pathlib.Path(out)
    write_atomically(out / "results.csv", table.csv_text(outcome))
    metric = outcome.study.best_metric
    summary = {"study": outcome.study.name, "file": str(outcome.study.file),
               "counts": outcome.counts,
               "best": {name: {"point": r.point.index, "params": r.point.params,
                               metric: r.metrics[metric]}
                        for name, r in runner.best_results(outcome).items()}}
    write_atomically(out / "study.json", json.dumps(summary, indent=1) + "\n")
    drawn = []
    if draw:
        if (out / "plots").exists():
            shutil.rmtree(out / "plots")
        drawn = plots.draw_plots(outcome, out / "plots")
        write_atomically(out / "report.md", report.markdown(outcome, drawn))
        write_atomically(out / "report.html", report.html_page(outcome, drawn, out))
    return drawn


def main(argv=None):
    args = parser().parse_args(argv)
    try:
        study = spec.load_study(args.study)
        if args.list:
            for p in study.points:
                print(f"{p.index}\t{p.workload.name}\t{table.chip_label(p.arch)}\t"
                      + " ".join(list(p.planned) + list(p.timing)))
            return 0
        executor = executors.DaskExecutor(args.cluster) if args.cluster \
            else executors.LocalExecutor(args.jobs)
        try:
            if not args.quiet:
                print(f"study {study.name}: {len(study.points)} points on "
                      f"{executor.describe()}", file=sys.stderr)
            outcome = runner.run_study(study, args.output, executor, quiet=args.quiet,
                                       retry_failed=args.retry_failed)
        finally:
            executor.close()
        write_outputs(outcome, args.output, draw=not args.no_plots)
        c = outcome.counts
        print(f"study {study.name}: {c['points']} points, {c['failed']} failed; compiled "
              f"{c['compiled']} of {c['programs']} programs ({c['compiles_cached']} cached), "
              f"ran {c['ran']} points ({c['runs_cached']} cached) in {outcome.seconds:.1f} s; "
              f"{pathlib.Path(args.output) / 'report.html'}")
        return 0
    except ChiplessError as e:
        print(f"chipless study: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("chipless study: interrupted; finished points are kept, run again to resume",
              file=sys.stderr)
        return 130
