"""Re-layouts that swap a tensor's last two dimensions (a transposed weight, attention's
K^T): the front end loads the source's rows as they lie and transposes them on the SFU, a
stick of result columns at a time with a last partial stick, instead of reading the
transposed view one element per DMA run (docs/frontend.md). The cost model chooses between
the two (test_frontend_division.py checks its choices against the simulator)."""
import re

import numpy as np
import pytest

from frontend_util import compile_graph, simulate, f16, bf16, close


def chosen(dump, kernel):
    """The chosen division line of `kernel` in divisions.txt."""
    text = (dump / "divisions.txt").read_text()
    block = text.split(kernel + " (", 1)[1].split("\nk", 1)[0]
    return next(line for line in block.splitlines() if line.startswith("  *"))


def transpose_graph(shape, dtype, perm):
    out = [shape[p] for p in perm]
    t = lambda s: "tensor<" + "x".join(map(str, s)) + "x" + dtype + ">"  # noqa: E731
    return f"""
func.func @t(%x: {t(shape)} {{graph.name = "x"}}) -> ({t(out)} {{graph.name = "y"}}) {{
  %e = tensor.empty() : {t(out)}
  %y = linalg.transpose ins(%x : {t(shape)}) outs(%e : {t(out)}) permutation = {list(perm)}
  %z = linalg.add ins(%y, %y : {t(out)}, {t(out)}) outs(%e : {t(out)}) -> {t(out)}
  return %z : {t(out)}
}}
"""


@pytest.mark.parametrize("shape,dtype,on_sfu", [
    ((64, 64), "f16", True),          # one stick of result columns
    ((70, 200), "f16", True),         # a whole stick of result columns and 6 more
    ((300, 200), "f32", True),        # f32: 32 lanes a stick; 9 sticks and 12 columns
    ((7, 33), "f32", True),           # fewer rows and columns than a stick
    ((3, 40, 96), "f16", True),       # a batch of matrices
    ((3, 96, 40), "f16", True),       # DMA runs: nine 4 KB blocks, one channel holds two
    ((2, 5, 128, 72), "bf16", True),  # two batch dimensions; tiles of a stick of columns
    ((4, 128, 100), "f16", True),
    ((48, 128, 64), "f16", True),     # more matrices than cores: two per tile, in a loop
    ((2, 40, 64, 70), "f16", True),   # 80 matrices: runs of 4 along the inner batch dimension
    ((33, 64, 64), "bf16", True),     # 33 matrices: runs of 3
    ((100, 96), "f16", True),         # the first stick column's channels take twice the runs
    ((1000, 4), "f16", False),        # four result rows: DMA runs (not 1000 rows of 4 lanes)
    ((16, 8), "f16", False),          # a few runs: cheaper than the identity and the selects
])
def test_swapped_dimensions_are_transposed_on_the_sfu(tmp_path, shape, dtype, on_sfu):
    perm = list(range(len(shape)))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    out, dump = compile_graph(tmp_path, transpose_graph(shape, dtype, perm), "t")
    line = chosen(dump, "k1_restickify")
    assert ("transposed on the SFU" in line) == on_sfu, line
    assert ("linalg.transpose" in (dump / "k1_restickify.mlir").read_text()) == on_sfu
    rng = np.random.default_rng(7)
    x = rng.standard_normal(shape).astype(np.float32)
    if dtype == "f16":
        x = x.astype(np.float16)
    y = simulate(tmp_path, out, {"x": x}, ["y"])["y"]
    held = bf16(x) if dtype == "bf16" else x.astype(np.float32)  # what the device holds
    close(y, 2 * np.transpose(held, perm), rtol=0, atol=0)


def test_a_transposed_weight_is_restickified_on_the_sfu(tmp_path):
    """x @ W^T with 16 rows (a linear layer's decode step): W^T is restickified on the SFU
    (15,482 cycles for the whole layer; reading W^T in place in the matmul, a DMA run per
    element, took 83,950), its columns not a whole number of sticks (520) included."""
    for n in (512, 520):
        graph = f"""
func.func @lin(%x: tensor<16x256xf16> {{graph.name = "x"}}, %w: tensor<{n}x256xf16> {{graph.name = "w"}})
    -> (tensor<16x{n}xf16> {{graph.name = "y"}}) {{
  %zero = arith.constant 0.0 : f16
  %et = tensor.empty() : tensor<256x{n}xf16>
  %wt = linalg.transpose ins(%w : tensor<{n}x256xf16>) outs(%et : tensor<256x{n}xf16>) permutation = [1, 0]
  %e = tensor.empty() : tensor<16x{n}xf16>
  %z = linalg.fill ins(%zero : f16) outs(%e : tensor<16x{n}xf16>) -> tensor<16x{n}xf16>
  %y = linalg.matmul ins(%x, %wt : tensor<16x256xf16>, tensor<256x{n}xf16>) outs(%z : tensor<16x{n}xf16>) -> tensor<16x{n}xf16>
  return %y : tensor<16x{n}xf16>
}}
"""
        out, dump = compile_graph(tmp_path, graph, f"lin{n}")
        assert sorted(p.name for p in dump.glob("*.mlir")) == ["k1_restickify.mlir", "k2_matmul.mlir"]
        assert "transposed on the SFU" in chosen(dump, "k1_restickify")
        rng = np.random.default_rng(30)
        x, w = f16(rng, 16, 256, scale=0.5), f16(rng, n, 256, scale=0.5)
        y = simulate(tmp_path, out, {"x": x, "w": w}, ["y"])["y"]
        close(y, x.astype(np.float32) @ w.astype(np.float32).T, rtol=2e-2, atol=2e-2)
        stats = (tmp_path / "stats.json").read_text()
        assert re.search(r'"sfu_sticks"', stats)


def test_a_swap_read_merged_with_its_batch_stays_on_dma_runs(tmp_path):
    """[64, 16, 32] swapped to [64, 32, 16] and read as 2048 rows of a matmul: the re-layout's
    result rows fold two dimensions whose inner one (32) is not a whole stick, so a block of
    them is no matrix in the scratchpad; the re-layout reads DMA runs (a convolution's input
    gradient on the Spyre device, strided, does this)."""
    graph = """
func.func @m(%x: tensor<64x16x32xf16> {graph.name = "x"}, %w: tensor<16x32xf16> {graph.name = "w"})
    -> (tensor<2048x32xf16> {graph.name = "y"}) {
  %e = tensor.empty() : tensor<64x32x16xf16>
  %t = linalg.transpose ins(%x : tensor<64x16x32xf16>) outs(%e : tensor<64x32x16xf16>) permutation = [0, 2, 1]
  %r = tensor.collapse_shape %t [[0, 1], [2]] : tensor<64x32x16xf16> into tensor<2048x16xf16>
  %zero = arith.constant 0.0 : f16
  %o = tensor.empty() : tensor<2048x32xf16>
  %z = linalg.fill ins(%zero : f16) outs(%o : tensor<2048x32xf16>) -> tensor<2048x32xf16>
  %y = linalg.matmul ins(%r, %w : tensor<2048x16xf16>, tensor<16x32xf16>) outs(%z : tensor<2048x32xf16>) -> tensor<2048x32xf16>
  return %y : tensor<2048x32xf16>
}
"""
    out, dump = compile_graph(tmp_path, graph, "m")
    assert "transposed on the SFU" not in (dump / "divisions.txt").read_text()
    rng = np.random.default_rng(3)
    x, w = f16(rng, 64, 16, 32, scale=0.5), f16(rng, 16, 32, scale=0.5)
    y = simulate(tmp_path, out, {"x": x, "w": w}, ["y"])["y"]
    ref = np.transpose(x.astype(np.float32), (0, 2, 1)).reshape(2048, 16) @ w.astype(np.float32)
    close(y, ref, rtol=2e-2, atol=2e-2)
