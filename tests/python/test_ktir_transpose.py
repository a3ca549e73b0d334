"""linalg.transpose of tiles in KTIR (docs/ktir.md): a matrix whose transposed rows fit one
stick is transposed on the SFU (a lane broadcast and a select per input row), a taller one
through device memory; both move values exactly, infinities, NaN and -0 included.
"""
import numpy as np
import pytest

from frontend_util import BIN, run, simulate

NP = {"f16": np.float16, "f32": np.float32, "i32": np.int32}


def kernel(rows, cols, dtype):
    """Grid [2]: tile t transposes rows [R t, R t + R) of X [2R, C] into columns of Y [C, 2R]."""
    return f"""
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @t(%x_ptr: index, %y_ptr: index) attributes {{grid = [2]}} {{
  %c0 = arith.constant 0 : index
  %cr = arith.constant {rows} : index
  %t = ktdp.get_compute_tile_id : index
  %r = arith.muli %t, %cr : index
  %x = ktdp.construct_memory_view %x_ptr, sizes: [{2 * rows}, {cols}], strides: [{cols}, 1] {{memory_space = #ktdp.memory_space<global>}} : memref<{2 * rows}x{cols}x{dtype}>
  %y = ktdp.construct_memory_view %y_ptr, sizes: [{cols}, {2 * rows}], strides: [{2 * rows}, 1] {{memory_space = #ktdp.memory_space<global>}} : memref<{cols}x{2 * rows}x{dtype}>
  %xa = ktdp.construct_access_tile %x[%r, %c0] {{access_tile_order = #map, access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + {rows - 1} >= 0, d1 >= 0, -d1 + {cols - 1} >= 0)>}} : memref<{2 * rows}x{cols}x{dtype}> -> !ktdp.access_tile<{rows}x{cols}xindex>
  %ya = ktdp.construct_access_tile %y[%c0, %r] {{access_tile_order = #map, access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + {cols - 1} >= 0, d1 >= 0, -d1 + {rows - 1} >= 0)>}} : memref<{cols}x{2 * rows}x{dtype}> -> !ktdp.access_tile<{cols}x{rows}xindex>
  %v = ktdp.load %xa : !ktdp.access_tile<{rows}x{cols}xindex> -> tensor<{rows}x{cols}x{dtype}>
  %e = tensor.empty() : tensor<{cols}x{rows}x{dtype}>
  %w = linalg.transpose ins(%v : tensor<{rows}x{cols}x{dtype}>) outs(%e : tensor<{cols}x{rows}x{dtype}>) permutation = [1, 0]
  ktdp.store %w, %ya : tensor<{cols}x{rows}x{dtype}>, !ktdp.access_tile<{cols}x{rows}xindex>
  return
}}
"""


@pytest.mark.parametrize("rows,cols,dtype,on_chip", [
    (16, 128, "f16", True), (64, 70, "f16", True), (5, 3, "f16", True), (32, 40, "f32", True),
    (7, 33, "i32", True), (65, 16, "f16", False), (33, 8, "f32", False)])
def test_transposes_are_exact(tmp_path, rows, cols, dtype, on_chip):
    src = tmp_path / "t.mlir"
    src.write_text(kernel(rows, cols, dtype))
    out, dump = tmp_path / "out", tmp_path / "dump"
    run(BIN / "spyre-compile", src, "-o", out, "--dump-dir", dump)
    schedule = (dump / "03-schedule.txt").read_text()
    assert ("transpose row 0" in schedule) == on_chip
    assert ("dma.loadb transpose" in schedule) != on_chip
    rng = np.random.default_rng(rows * cols)
    if dtype == "i32":
        x = rng.integers(-2**31, 2**31 - 1, (2 * rows, cols), dtype=np.int64).astype(np.int32)
    else:
        x = rng.standard_normal((2 * rows, cols)).astype(NP[dtype])
        x.flat[:4] = [np.inf, -np.inf, np.nan, -0.0]
    got = simulate(tmp_path, out, {"x": x}, ["y"], raw=True)["y"]
    assert got.dtype == x.dtype
    np.testing.assert_array_equal(got.view(np.uint8), np.ascontiguousarray(x.T).view(np.uint8))
