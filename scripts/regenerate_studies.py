#!/usr/bin/python3
"""Runs every bundled study (scenarios/*.yaml) and copies its report into docs/studies/NAME/
(report.md, report.html, results.csv, plots/). `make studies` runs it.

    /usr/bin/python3 scripts/regenerate_studies.py [--build-dir build] [--out out/studies]
        [NAME ...]

The studies' caches stay in --out, so a second regeneration only reruns what changed.
"""
import argparse
import os
import pathlib
import shutil
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--build-dir", default="build")
    p.add_argument("--out", default="out/studies")
    p.add_argument("names", nargs="*", help="studies to regenerate (default: all)")
    args = p.parse_args()
    studies = sorted((ROOT / "scenarios").glob("*.yaml"))
    if args.names:
        studies = [s for s in studies if s.stem in args.names]
    env = dict(os.environ, CHIPLESS_BIN=os.environ.get("CHIPLESS_BIN") or
               str((ROOT / args.build_dir / "bin").resolve()),
               PYTHONPATH=str(ROOT / "python"))
    for study in studies:
        out = ROOT / args.out / study.stem
        r = subprocess.run([sys.executable, "-m", "chipless.cli", "study", str(study), "-o",
                            str(out)], env=env)
        if r.returncode != 0:
            return r.returncode
        docs = ROOT / "docs" / "studies" / study.stem
        if docs.exists():
            shutil.rmtree(docs)
        (docs / "plots").mkdir(parents=True)
        for name in ("report.md", "report.html", "results.csv"):
            shutil.copy(out / name, docs / name)
        for plot in sorted((out / "plots").iterdir()):
            shutil.copy(plot, docs / "plots" / plot.name)
        print(f"regenerate_studies: {docs.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
