"""Operands broadcast along middle dimensions (docs/frontend.md, section 1): a tensor that
keeps the leading dimensions and the last of an element-wise op's domain and drops the ones
between (a per-batch row [B, D] read by [B, S, D], a mean kept along dimension 1). Each
step of rows reads one row of it; divisions keep a step within the rows that read one row.
Compiled with spyre-compile, run with spyre-sim, compared with numpy.
"""
import numpy as np
import pytest

from frontend_util import compile_graph, f16, r16, run, simulate, BIN


def loops_text(n):
    return ", ".join(f"d{i}" for i in range(n))


def spread_graph(shape, kept):
    """z = (x - y)^2 with y of the dimensions `kept` of x's `shape` (the last among them)."""
    n = len(shape)
    yshape = [shape[i] for i in kept]
    t = lambda s: "tensor<" + "x".join(map(str, s)) + "xf16>"  # noqa: E731
    return f"""
#all = affine_map<({loops_text(n)}) -> ({loops_text(n)})>
#kept = affine_map<({loops_text(n)}) -> ({", ".join(f"d{i}" for i in kept)})>
func.func @f(%x: {t(shape)} {{graph.name = "x"}}, %y: {t(yshape)} {{graph.name = "y"}}) -> ({t(shape)} {{graph.name = "z"}}) {{
  %e = tensor.empty() : {t(shape)}
  %z = linalg.generic {{indexing_maps = [#all, #kept, #all], iterator_types = [{", ".join(['"parallel"'] * n)}]}}
      ins(%x, %y : {t(shape)}, {t(yshape)}) outs(%e : {t(shape)}) {{
    ^bb0(%a: f16, %b: f16, %o: f16):
      %s = arith.subf %a, %b : f16
      %q = arith.mulf %s, %s : f16
      linalg.yield %q : f16
  }} -> {t(shape)}
  return %z : {t(shape)}
}}
"""


@pytest.mark.parametrize("shape,kept", [
    ((4, 32, 128), (0, 2)),       # a row per batch, 32 rows each
    ((3, 3, 70), (0, 2)),         # 3 rows each: steps of 1 or 3 rows; a partial stick
    ((2, 3, 5, 70), (0, 3)),      # two middle dimensions dropped: 15 rows each
    ((2, 3, 5, 70), (0, 1, 3)),   # the one before the last dropped: 5 rows each
    ((40, 7, 64), (0, 2)),        # 40 rows of y over 32 cores
])
def test_an_operand_broadcast_along_middle_dimensions(tmp_path, shape, kept):
    rng = np.random.default_rng(3)
    x = f16(rng, *shape)
    y = f16(rng, *[shape[i] for i in kept])
    out, dump = compile_graph(tmp_path, spread_graph(shape, kept))
    z = simulate(tmp_path, out, {"x": x, "y": y}, ["z"])["z"]
    yb = y.astype(np.float32).reshape([shape[i] if i in kept else 1 for i in range(len(shape))])
    ref = r16(r16(x.astype(np.float32) - yb) ** 2)
    np.testing.assert_allclose(z, ref, rtol=2e-3, atol=2e-3)
    # Every chosen step lies within the rows that read one row of y.
    period = int(np.prod(shape[:-1])) // int(np.prod([shape[i] for i in kept[:-1]]))
    chosen = [line for line in (dump / "divisions.txt").read_text().splitlines() if "*" in line]
    assert len(chosen) == 1
    step = int(chosen[0].split(", ")[1].split(" rows per step")[0])
    assert period % step == 0, (chosen, period)


def test_a_per_batch_bias_in_a_batch_matmul_epilogue(tmp_path):
    """[4, 32, 64] x [4, 64, 128] + b[4, 128] broadcast along the 32 rows of each matrix:
    the bias joins the matmul's kernel as its epilogue."""
    graph = """
#m3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#b = affine_map<(d0, d1, d2) -> (d0, d2)>
func.func @f(%a: tensor<4x32x64xf16> {graph.name = "a"}, %w: tensor<4x64x128xf16> {graph.name = "w"},
             %bias: tensor<4x128xf16> {graph.name = "bias"}) -> (tensor<4x32x128xf16> {graph.name = "y"}) {
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<4x32x128xf16>
  %z = linalg.fill ins(%zero : f16) outs(%e : tensor<4x32x128xf16>) -> tensor<4x32x128xf16>
  %m = linalg.batch_matmul ins(%a, %w : tensor<4x32x64xf16>, tensor<4x64x128xf16>) outs(%z : tensor<4x32x128xf16>) -> tensor<4x32x128xf16>
  %y = linalg.generic {indexing_maps = [#m3, #b, #m3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%m, %bias : tensor<4x32x128xf16>, tensor<4x128xf16>) outs(%e : tensor<4x32x128xf16>) {
    ^bb0(%p: f16, %q: f16, %o: f16):
      %s = arith.addf %p, %q : f16
      linalg.yield %s : f16
  } -> tensor<4x32x128xf16>
  return %y : tensor<4x32x128xf16>
}
"""
    rng = np.random.default_rng(5)
    a, w, bias = f16(rng, 4, 32, 64), f16(rng, 4, 64, 128), f16(rng, 4, 128)
    out, dump = compile_graph(tmp_path, graph)
    divisions = (dump / "divisions.txt").read_text()
    assert divisions.startswith("k1_matmul (2 ops, 128 x 128 x 64)"), divisions
    y = simulate(tmp_path, out, {"a": a, "w": w, "bias": bias}, ["y"])["y"]
    ref = r16(a.astype(np.float32) @ w.astype(np.float32)) + bias.astype(np.float32)[:, None, :]
    np.testing.assert_allclose(y, ref, rtol=2e-2, atol=2e-2)


def test_an_operand_that_drops_leading_and_middle_dimensions_is_refused_at_the_op(tmp_path):
    """(d1, d3) of a 4-D domain: row r reads row (r / 5) mod 3, neither a run of rows nor a
    repetition of a matrix. A located error at the generic."""
    src = tmp_path / "g.mlir"
    src.write_text(spread_graph((2, 3, 5, 70), (1, 3)))
    r = run(BIN / "spyre-compile", src, "-o", tmp_path / "o", ok=False)
    assert r.returncode != 0
    assert "g.mlir:6:" in r.stderr and "operand 1 has indexing map" in r.stderr, r.stderr
    assert "broadcast along the dimensions before the last" in r.stderr
