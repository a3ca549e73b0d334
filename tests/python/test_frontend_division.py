"""The front end's division of work over the cores: its cost model against the simulator
(bench/frontend/divisions.py), splitting a matmul's reduction dimension, row steps of
matmul tiles, re-planning for another architecture.
"""
import json
import re

import numpy as np
import pytest

from frontend_util import (ROOT, BIN, run, compile_graph, simulate, f16, close, MAP2,
                           layernorm_graph, attention_graph, matmul_graph)


@pytest.mark.parametrize("block", ["mlp", "attention", "layernorm"])
def test_cost_model_choice_is_within_ten_percent_of_the_best_simulated(tmp_path, block):
    """Every candidate division of every kernel compiled alone and simulated (timing only):
    the cost model's choice is within 10% of the fastest (bench/frontend/divisions.py)."""
    if block == "mlp":
        graph = ROOT / "models" / "graphs" / "spyre_mlp.mlir"
    else:
        graph = tmp_path / f"{block}.mlir"
        graph.write_text(attention_graph(4, 128, 64) if block == "attention" else layernorm_graph(1000, 200))
    report = tmp_path / "report.json"
    run("/usr/bin/python3", ROOT / "bench" / "frontend" / "divisions.py", graph, "--bin", BIN,
        "--json", report)
    result = json.loads(report.read_text())
    assert result, "no kernels"
    for kernel, r in result.items():
        assert len(r["candidates"]) >= 1
        assert r["ratio"] <= 1.10, (kernel, r["chosen"], r["best"])


@pytest.mark.parametrize("block", ["gpt2_block", "llama_block", "bert_layer", "spyre_cnn"])
def test_cost_model_on_every_bundled_block(tmp_path, block):
    """Every candidate of every kernel of a bundled block simulated: the block's chosen
    divisions, summed, within 5% of the fastest candidates summed (1.011 at most today), and
    every kernel within 10% of its fastest but one: the CNN's bias + ReLU over 196 x 32
    (608 cycles against 527, docs/performance.md), within 20%."""
    report = tmp_path / "report.json"
    run("/usr/bin/python3", ROOT / "bench" / "frontend" / "divisions.py",
        ROOT / "models" / "graphs" / f"{block}.mlir", "--bin", BIN, "--json", report)
    result = json.loads(report.read_text())
    chosen = sum(r["chosen"] for r in result.values())
    best = sum(r["best"] for r in result.values())
    assert chosen <= 1.05 * best, (chosen, best)
    over = {k: r["ratio"] for k, r in result.items() if r["ratio"] > 1.10}
    assert len(over) <= (1 if block == "spyre_cnn" else 0), over
    worst = max(result.items(), key=lambda kv: kv[1]["ratio"])
    assert worst[1]["ratio"] <= 1.20, worst


def test_matmul_splits_the_reduction_dimension_when_that_is_faster(tmp_path):
    """64 x 64 x 65536: one output block, so the cores share K and a ring reduce-scatter sums
    their partials. The cost model picks that, and the simulator agrees it is the fastest."""
    graph = tmp_path / "deep.mlir"
    graph.write_text(matmul_graph(64, 65536, 64))
    report = tmp_path / "report.json"
    run("/usr/bin/python3", ROOT / "bench" / "frontend" / "divisions.py", graph, "--bin", BIN,
        "--json", report)
    r = json.loads(report.read_text())["k1_matmul"]
    chosen = next(c for c in r["candidates"] if c["chosen"])
    assert "split over 32 tiles" in chosen["division"], chosen
    unsplit = min(c["simulated"] for c in r["candidates"] if "split" not in c["division"])
    assert r["chosen"] == r["best"] and r["chosen"] * 3 < unsplit, (r["chosen"], unsplit)
    # And it is right: the partials of 32 cores summed over the ring.
    out, _ = compile_graph(tmp_path, graph, "deep-run")
    rng = np.random.default_rng(8)
    a, b = f16(rng, 64, 65536), f16(rng, 65536, 64)
    c = simulate(tmp_path, out, {"A": a, "B": b}, ["C"])["C"]
    close(c, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-3, atol=1e-2)


def test_matmul_does_not_split_the_reduction_dimension_of_a_wide_product(tmp_path):
    """4096 x 4096 x 256: 32 output blocks keep every core busy; the blocks are computed a few
    rows at a time (a whole block does not fit the scratchpad)."""
    out, dump = compile_graph(tmp_path, matmul_graph(4096, 256, 4096, "f16"), "wide")
    chosen = [l for l in (dump / "divisions.txt").read_text().splitlines() if l.startswith("  * ")]
    assert len(chosen) == 1 and "split" not in chosen[0] and " rows, " in chosen[0], chosen


@pytest.mark.parametrize("scratchpad", [262144, 524288])
def test_matmul_blocks_computed_a_few_rows_at_a_time(tmp_path, scratchpad):
    """A small scratchpad: each tile's block in steps of rows (and of K), bias fused."""
    graph = MAP2 + """
func.func @sub(%a: tensor<256x512xf16> {graph.name = "A"}, %b: tensor<512x512xf16> {graph.name = "B"},
               %bias: tensor<512xf16> {graph.name = "bias"}) -> (tensor<256x512xf16> {graph.name = "C"}) {
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<256x512xf16>
  %z = linalg.fill ins(%zero : f16) outs(%e : tensor<256x512xf16>) -> tensor<256x512xf16>
  %c = linalg.matmul ins(%a, %b : tensor<256x512xf16>, tensor<512x512xf16>) outs(%z : tensor<256x512xf16>) -> tensor<256x512xf16>
  %y = linalg.generic {indexing_maps = [#mat, #col, #mat], iterator_types = ["parallel", "parallel"]}
      ins(%c, %bias : tensor<256x512xf16>, tensor<512xf16>) outs(%e : tensor<256x512xf16>) {
    ^bb0(%x: f16, %bb: f16, %o: f16):
      %s = arith.addf %x, %bb : f16
      linalg.yield %s : f16
  } -> tensor<256x512xf16>
  return %y : tensor<256x512xf16>
}
"""
    out, dump = compile_graph(tmp_path, graph, "sub", ["--set", "chip.cores=2", "--set",
                                                       f"scratchpad.bytes={scratchpad}"])
    chosen = [l for l in (dump / "divisions.txt").read_text().splitlines() if l.startswith("  * ")]
    assert " rows, " in chosen[0], chosen
    rng = np.random.default_rng(12)
    a, b, bias = f16(rng, 256, 512), f16(rng, 512, 512, scale=1 / 16), f16(rng, 512)
    c = simulate(tmp_path, out, {"A": a, "B": b, "bias": bias}, ["C"])["C"]
    # f16 accumulation between the steps of K: a few f16 ulps.
    close(c, a.astype(np.float32) @ b.astype(np.float32) + bias.astype(np.float32), rtol=1e-2, atol=5e-3)


def test_architecture_changes_replan(tmp_path):
    g = ROOT / "models" / "graphs" / "spyre_mlp.mlir"
    out32, d32 = compile_graph(tmp_path, g, "c32")
    out16, d16 = compile_graph(tmp_path, g, "c16", ["--set", "chip.cores=16"])
    grid = lambda d: [g for k in sorted(d.glob("k*.mlir"))  # noqa: E731
                      for g in re.findall(r"grid = \[([0-9, ]+)\]", k.read_text())]
    assert grid(d32) != grid(d16)
    tiles = [eval("*".join(g.split(","))) for g in grid(d16)]
    assert all(t <= 16 for t in tiles)
    rng = np.random.default_rng(9)
    ins = {"x": f16(rng, 128, 256), "W1": f16(rng, 256, 512, scale=1 / 16), "b1": f16(rng, 512),
           "W2": f16(rng, 512, 256, scale=1 / 16), "b2": f16(rng, 256)}
    y32 = simulate(tmp_path, out32, ins, ["y"])["y"]
    y16 = simulate(tmp_path, out16, ins, ["y"], ["--set", "chip.cores=16"])["y"]
    close(y16, y32, rtol=1e-2, atol=1e-4)


def test_core_span_limits_the_divisions(tmp_path):
    """A core addresses at most dram.core_span_bytes: with 512 KB, a 1024 x 1024 weight (2 MB,
    its stick columns 128 KB apart) can only be read in blocks of few columns, so the
    divisions that take wide column blocks are dropped; with 4 KB no division is left and
    the error names the kernel's op and the limit."""
    graph = tmp_path / "mm.mlir"
    graph.write_text(matmul_graph(64, 1024, 1024, "f16"))
    out, dump = compile_graph(tmp_path, graph, "span", flags=("--set", "dram.core_span_bytes=524288"))
    _, wide = compile_graph(tmp_path, graph, "wide")
    def columns(d):
        chosen = [l for l in (d / "divisions.txt").read_text().splitlines() if l.startswith("  ")]
        return [int(re.search(r"tiles of \d+ x (\d+)", l).group(1)) for l in chosen]
    assert max(columns(dump)) <= 256 < max(columns(wide)), (columns(dump), columns(wide))
    rng = np.random.default_rng(4)
    a, b = f16(rng, 64, 1024, scale=0.25), f16(rng, 1024, 1024, scale=0.25)
    c = simulate(tmp_path, out, {"A": a, "B": b}, ["C"], flags=("--set", "dram.core_span_bytes=524288"))["C"]
    close(c, a.astype(np.float32) @ b.astype(np.float32), rtol=2e-2, atol=2e-2)
    r = run(BIN / "spyre-compile", graph, "-o", tmp_path / "none", "--set", "dram.core_span_bytes=4096", ok=False)
    assert r.returncode == 1 and "error: every division of the kernel has a tile that addresses" in r.stderr \
        and "(dram.core_span_bytes = 4096)" in r.stderr and "mm.mlir:" in r.stderr, r.stderr
