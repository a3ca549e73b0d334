"""linalg.index in KTIR generics (docs/ktir.md): each element's position along a loop of
the generic, as i32 on the SFU (the compute unit builds it: no iota), converted to floats
with sitofp and compared with arith.cmpi, as ktir-cpu's paged_attention masks positions.
Compiled with spyre-compile, run with spyre-sim, compared with numpy.
"""
import numpy as np
import pytest

from frontend_util import BIN, run, simulate
from test_ktir_conversions import kernel


def body(rows, cols):
    """y = x + 1000 i + 1000000 r where (r, i) is the element's position in the tile, and 0
    where i > r + 40 (a mask from positions, by an i32 comparison)."""
    t = f"tensor<{rows}x{cols}xf32>"
    return f"""  %e = tensor.empty() : {t}
  %w = linalg.generic {{indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}}
      ins(%v : {t}) outs(%e : {t}) {{
    ^bb0(%a: f32, %o: f32):
      %lr = linalg.index 0 : index
      %i = linalg.index 1 : index
      %ri = arith.index_cast %lr : index to i32
      %ii = arith.index_cast %i : index to i32
      %rf = arith.sitofp %ri : i32 to f32
      %if = arith.sitofp %ii : i32 to f32
      %k3 = arith.constant 1000.0 : f32
      %k6 = arith.constant 1000000.0 : f32
      %s1 = arith.mulf %if, %k3 : f32
      %s2 = arith.mulf %rf, %k6 : f32
      %s3 = arith.addf %a, %s1 : f32
      %s4 = arith.addf %s3, %s2 : f32
      %c40 = arith.constant 40 : i32
      %lim = arith.addi %ri, %c40 : i32
      %keep = arith.cmpi sle, %ii, %lim : i32
      %z = arith.constant 0.0 : f32
      %sel = arith.select %keep, %s4, %z : f32
      linalg.yield %sel : f32
  }} -> {t}"""


@pytest.mark.parametrize("rows,cols", [(4, 100), (3, 32), (2, 7)])
def test_loop_indices_in_a_generic(tmp_path, rows, cols):
    x = np.random.default_rng(rows).uniform(-1, 1, (2 * rows, cols)).astype(np.float32)
    src = tmp_path / "k.mlir"
    src.write_text(kernel(rows, cols, "f32", "f32", body(rows, cols)))
    out = tmp_path / "out"
    run(BIN / "spyre-compile", src, "-o", out)
    got = simulate(tmp_path, out, {"x": x}, ["y"], raw=True)["y"]
    r = np.tile(np.arange(rows), 2)[:, None].astype(np.float32)  # each tile's own rows
    i = np.arange(cols)[None, :].astype(np.float32)
    want = (x + i * 1000 + r * 1e6) * (i <= r + 40)
    np.testing.assert_array_equal(got, want.astype(np.float32))


def test_an_index_of_a_loop_the_generic_lacks_is_refused(tmp_path):
    t = "tensor<4x64xf32>"
    bad = f"""  %e = tensor.empty() : {t}
  %w = linalg.generic {{indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}}
      ins(%v : {t}) outs(%e : {t}) {{
    ^bb0(%a: f32, %o: f32):
      %lr = linalg.index 2 : index
      %ri = arith.index_cast %lr : index to i32
      %rf = arith.sitofp %ri : i32 to f32
      linalg.yield %rf : f32
  }} -> {t}"""
    src = tmp_path / "k.mlir"
    src.write_text(kernel(4, 64, "f32", "f32", bad))
    r = run(BIN / "spyre-compile", src, "-o", tmp_path / "out", ok=False)
    assert r.returncode != 0 and "k.mlir:" in r.stderr, r.stderr
