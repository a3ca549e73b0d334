#!/usr/bin/python3
"""Modelled time of the bundled graph blocks on the emulated Spyre against their roofline
bounds, and how it changes with the core count and the scratchpad size (each recompiled).

    /usr/bin/python3 bench/frontend/blocks.py [--bin build/bin] [GRAPH.mlir ...]

For each graph (default: models/graphs/spyre_mlp, gpt2_block, llama_block, bert_layer,
spyre_cnn) and
each of 32 / 16 cores and 2 MB / 1 MB scratchpad: compile time (spyre-compile), kernels,
modelled cycles (spyre-sim --timing-only), and on 32 cores with 2 MB the bounds: PT peak
(the graph's MACs at the chip's fp16 peak) and DRAM (the bytes the run moved at full DRAM
bandwidth). Prints a Markdown table.
"""
import argparse
import glob
import json
import os
import re
import subprocess
import tempfile
import time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
CONFIGS = [(32, 2097152), (32, 1048576), (16, 2097152), (16, 1048576)]


def run(args):
    r = subprocess.run(args, capture_output=True, text=True,
                       env=dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1"))
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed:\n{r.stdout}{r.stderr}")
    return r.stdout


def leaves(tree, prefix=""):
    if isinstance(tree, dict) and "value" in tree:
        yield prefix, tree["value"]
    elif isinstance(tree, dict):
        for k, v in tree.items():
            yield from leaves(v, f"{prefix}.{k}" if prefix else k)
    elif isinstance(tree, list):
        for i, v in enumerate(tree):
            yield from leaves(v, f"{prefix}[{i}]")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("graphs", nargs="*")
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    a = ap.parse_args()
    graphs = a.graphs or [os.path.join(ROOT, "models", "graphs", g + ".mlir")
                          for g in ("spyre_mlp", "gpt2_block", "llama_block", "bert_layer",
                                    "spyre_cnn")]
    print("| graph | kernels | compile (s) | 32 cores, 2 MB | 32 cores, 1 MB | 16 cores, 2 MB | "
          "16 cores, 1 MB | PT bound | DRAM bound | 32 / 2 MB over the larger bound |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as work:
        for g in graphs:
            cycles, compile_s, kernels, bounds = [], None, 0, None
            for cores, sp in CONFIGS:
                sets = ["--set", f"chip.cores={cores}", "--set", f"scratchpad.bytes={sp}"]
                out = os.path.join(work, os.path.basename(g), f"{cores}-{sp}")
                t0 = time.monotonic()
                run([os.path.join(a.bin, "spyre-compile"), g, "-o", out] + sets)
                if compile_s is None:
                    compile_s = time.monotonic() - t0
                    kernels = len(glob.glob(os.path.join(out, "k*.bin")))
                stats = os.path.join(work, "stats.json")
                run([os.path.join(a.bin, "spyre-sim"), "run", os.path.join(out, "job.plan"),
                     "--timing-only", "--stats", stats])
                chip = json.load(open(stats))["chip"]
                cycles.append(chip["cycles"]["value"])
                if bounds is None:
                    arch = open(os.path.join(out, "arch.yaml")).read()
                    num = lambda key: float(re.search(rf"^\s*{key}:\s*([0-9.e+]+)", arch, re.M).group(1))
                    peak = cores * num("corelets_per_core") * num("rows") * num("cols") * num("macs_per_pe_fp16")
                    macs = sum(v for p, v in leaves(chip) if p.endswith("pt_macs"))
                    dram = chip["dram"]["bytes"]["value"] / (num("bandwidth_gb_s") / num("clock_ghz"))
                    bounds = (macs / peak, dram)
            name = os.path.basename(g)
            worst = max(bounds)
            print(f"| {name} | {kernels} | {compile_s:.2f} | " +
                  " | ".join(f"{c:,.0f}" for c in cycles) +
                  f" | {bounds[0]:,.0f} | {bounds[1]:,.0f} | {cycles[0] / worst:.2f} |")


if __name__ == "__main__":
    main()
