#!/usr/bin/python3
"""The front end's cost model against the simulator: every candidate division of every kernel
of a tensor graph, compiled alone and run timing-only on the emulated Spyre.

    /usr/bin/python3 bench/frontend/divisions.py GRAPH.mlir [--bin build/bin] [--set k=v ...]
                                                 [--json OUT.json]

The graph is compiled once with --dump-candidates (divisions.txt lists each kernel's
candidates; candidates/KERNEL/INDEX.mlir is each one's KTIR), and every candidate's KTIR is
compiled on its own with spyre-compile and run with spyre-sim --timing-only. Prints, per
kernel, every candidate's estimated and simulated cycles, and the ratio of the cost model's
choice to the best candidate simulated (1.00: the model picked the fastest).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

LINE = re.compile(r"^  ([* ]) \[(\d+)\] (.*): (\d+) B resident, (\d+) cycles \((\w+)\)$")
HEAD = re.compile(r"^(k\d+_\w+) \(")


def run(args):
    r = subprocess.run(args, capture_output=True, text=True,
                       env=dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1"))
    if r.returncode != 0:
        sys.exit(f"{' '.join(args)} failed:\n{r.stdout}{r.stderr}")
    return r.stdout


def divisions(text):
    kernels, cur = {}, None
    for line in text.splitlines():
        h = HEAD.match(line)
        if h:
            cur = h.group(1)
            kernels[cur] = []
            continue
        m = LINE.match(line)
        if m and cur:
            kernels[cur].append({"index": int(m.group(2)), "chosen": m.group(1) == "*",
                                 "division": m.group(3), "estimate": int(m.group(5))})
    return kernels


def simulate_kernel(bin_dir, ktir, work, sets):
    out = os.path.join(work, "alone")
    run([os.path.join(bin_dir, "spyre-compile"), ktir, "-o", out] + sets)
    text = run([os.path.join(bin_dir, "spyre-sim"), "run", os.path.join(out, "job.plan"),
                "--timing-only"])
    return int(re.search(r"simulated cycles\s+(\d+)", text).group(1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("graph")
    ap.add_argument("--bin", default=os.path.join(os.path.dirname(__file__), "..", "..", "build", "bin"))
    ap.add_argument("--set", action="append", default=[])
    ap.add_argument("--json")
    a = ap.parse_args()
    sets = sum((["--set", s] for s in a.set), [])
    compile_ = os.path.join(a.bin, "spyre-compile")
    report = {}
    with tempfile.TemporaryDirectory() as work:
        dump = os.path.join(work, "dump")
        run([compile_, a.graph, "-o", os.path.join(work, "g"), "--dump-dir", dump,
             "--dump-candidates"] + sets)
        kernels = divisions(open(os.path.join(dump, "divisions.txt")).read())
        for name, cands in kernels.items():
            for c in cands:
                ktir = os.path.join(dump, "candidates", name, f"{c['index']}.mlir")
                c["simulated"] = simulate_kernel(a.bin, ktir, work, sets)
            best = min(c["simulated"] for c in cands)
            chosen = next(c for c in cands if c["chosen"])
            report[name] = {"candidates": cands, "best": best, "chosen": chosen["simulated"],
                            "ratio": chosen["simulated"] / best}
            print(f"{name}: chosen {chosen['simulated']} cycles, best {best}, "
                  f"ratio {chosen['simulated'] / best:.2f}")
            for c in cands:
                print(f"  {'*' if c['chosen'] else ' '} [{c['index']}] {c['division']}: "
                      f"estimate {c['estimate']}, simulated {c['simulated']}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(report, f, indent=1)


if __name__ == "__main__":
    main()
