#!/usr/bin/python3
"""tpu-compile's embedding lookups (tensor.gather of rows: a DMA per row, the indices in SMEM)
against the HBM bound: the rows read plus the rows written at hbm.bandwidth_gb_s. Compiled by
tpu-compile and run by tpu-sim (timing only). Prints a Markdown table for
docs/performance.md.

    /usr/bin/python3 bench/tpu_gather.py [--arch v5e]
"""
import argparse
import json
import os
import pathlib
import subprocess
import tempfile

import chipless

ROOT = pathlib.Path(__file__).resolve().parents[1]
BIN = pathlib.Path(os.environ.get("CHIPLESS_BIN", ROOT / "build" / "bin"))

# (name, vocabulary, width, tokens, element type)
LOOKUPS = [
    ("GPT-2 tokens", 50257, 768, 1024, "f32"),
    ("GPT-2 tokens, bf16", 50257, 768, 1024, "bf16"),
    ("LLaMA-style, bf16", 32000, 4096, 512, "bf16"),
    ("short rows", 100000, 64, 4096, "f32"),
]


def graph(v, d, k, dt):
    table, out = f"tensor<{v}x{d}x{dt}>", f"tensor<{k}x{d}x{dt}>"
    return (f'func.func @emb(%t: {table} {{graph.name = "table"}}, %i: tensor<{k}xi32> '
            f'{{graph.name = "ids"}}) -> ({out} {{graph.name = "y"}}) {{\n'
            f"  %c = tensor.expand_shape %i [[0, 1]] output_shape [{k}, 1] : tensor<{k}xi32> "
            f"into tensor<{k}x1xi32>\n"
            f"  %g = tensor.gather %t[%c] gather_dims([0]) : ({table}, tensor<{k}x1xi32>) -> "
            f"tensor<{k}x1x{d}x{dt}>\n"
            f"  %y = tensor.collapse_shape %g [[0, 1], [2]] : tensor<{k}x1x{d}x{dt}> into {out}\n"
            f"  return %y : {out}\n}}\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arch", default="v5e")
    args = parser.parse_args()
    params = chipless.arch(args.arch)["params"]
    bandwidth = float(params["hbm.bandwidth_gb_s"]["value"])
    clock = float(params["chip.clock_ghz"]["value"])
    print("| lookup | table | tokens | cycles | HBM bound | ratio | cycles per row |")
    print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="tpu-gather-") as tmp:
        work = pathlib.Path(tmp)
        for i, (name, v, d, k, dt) in enumerate(LOOKUPS):
            src = work / f"g{i}.mlir"
            src.write_text(graph(v, d, k, dt))
            out = work / f"g{i}"
            subprocess.run([str(BIN / "tpu-compile"), str(src), "-o", str(out), "--arch",
                            args.arch], check=True, capture_output=True, text=True)
            stats = work / f"g{i}.json"
            subprocess.run([str(BIN / "tpu-sim"), "run", str(out / "job.plan"), "--timing-only",
                            "--stats", str(stats)], check=True, capture_output=True, text=True)
            cycles = json.loads(stats.read_text())["cycles"]["value"]
            row_bytes = d * (4 if dt == "f32" else 2)
            bound = 2 * k * row_bytes / (bandwidth / clock)
            print(f"| {name} | {v}x{d} {dt} | {k} | {cycles:,.0f} | {bound:,.0f} | "
                  f"{cycles / bound:.2f} | {cycles / k:.1f} |")


if __name__ == "__main__":
    main()
