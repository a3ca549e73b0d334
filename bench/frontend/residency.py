#!/usr/bin/python3
"""What keeping intermediates in the scratchpad between kernels buys (docs/frontend.md,
"Intermediates in the scratchpad"): each graph compiled twice, as spyre-compile chooses
(tensors kept where the divisions allow, the reader re-divided where that pays) and with
--keep-in-scratchpad=false (every intermediate through device memory), and run timing-only.

    /usr/bin/python3 bench/frontend/residency.py [--bin build/bin]

Graphs: a softmax of R x C feeding a matmul by C x N (the reader divided for what stays,
or not), the causal attention of 4 heads x 128 x 64, and the bundled GPT-2 block and BERT
layer. Prints a Markdown table: modelled cycles and DRAM bytes of both, their ratio, and
what stayed.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tests", "python"))
from frontend_util import attention_graph, softmax_matmul_graph  # noqa: E402


def run(args):
    r = subprocess.run([str(a) for a in args], capture_output=True, text=True,
                       env=dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1"))
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(map(str, args))} failed:\n{r.stdout}{r.stderr}")
    return r.stdout


def measure(binary, source, tmp, name, flags):
    out, dump, stats = (os.path.join(tmp, name + s) for s in ("-out", "-dump", "-stats.json"))
    run([os.path.join(binary, "spyre-compile"), source, "-o", out, "--dump-dir", dump, *flags])
    run([os.path.join(binary, "spyre-sim"), "run", os.path.join(out, "job.plan"), "--timing-only",
         "--stats", stats])
    chip = json.load(open(stats))["chip"]
    divisions = open(os.path.join(dump, "divisions.txt")).read()
    kept = re.findall(r"^  (\S+) stays in the scratchpad for (\S+): each tile's (\S+ x \S+) block",
                      divisions, re.M)
    redivided = len(re.findall(r"for what it keeps in the scratchpad", divisions))
    return chip["cycles"]["value"], chip["dram"]["bytes"]["value"], kept, redivided


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    a = ap.parse_args()
    graphs = [(f"softmax {r} x {c} -> matmul by {c} x {n}", softmax_matmul_graph(r, c, n))
              for r, c, n in [(512, 128, 64), (1024, 256, 64), (2048, 512, 64), (4096, 256, 128),
                              (1024, 1024, 128)]]
    graphs.append(("causal attention 4 x 128 x 64", attention_graph(4, 128, 64)))
    for g in ("gpt2_block", "bert_layer"):
        graphs.append((f"{g}.mlir", open(os.path.join(ROOT, "models", "graphs", g + ".mlir")).read()))
    print("| graph | cycles, kept | cycles, through DRAM | ratio | DRAM MB, kept / through | what stays (reader re-divided) |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for i, (label, text) in enumerate(graphs):
            src = os.path.join(tmp, f"g{i}.mlir")
            open(src, "w").write(text)
            ck, bk, kept, redivided = measure(a.bin, src, tmp, f"g{i}k", [])
            cs, bs, _, _ = measure(a.bin, src, tmp, f"g{i}s", ["--keep-in-scratchpad=false"])
            what = ", ".join(f"{t} ({b}) for {k}" for t, k, b in kept) or "nothing"
            if redivided:
                what += f" ({redivided} re-divided)"
            print(f"| {label} | {ck:,.0f} | {cs:,.0f} | {cs / ck:.3f} | {bk / 1e6:.2f} / {bs / 1e6:.2f} | {what} |")


if __name__ == "__main__":
    main()
