"""Element type conversions of tensors in KTIR (arith.extf, truncf, sitofp, fptosi), on the
SFU's sfu.cvt (docs/ktir.md): widening and narrowing between 16- and 32-bit sticks, within
one size, alone and inside a linalg.generic, on rows that are not whole sticks and on
reduction results (one element per stick). Compiled with spyre-compile, run with spyre-sim,
compared with numpy's conversions.
"""
import numpy as np
import pytest

from frontend_util import BIN, run, simulate


def kernel(rows, cols, src, dst, body):
    """A kernel over a [rows, cols] tile per core (grid [2]): x (src) -> y (dst)."""
    return f"""
#set = affine_set<(d0, d1) : (d0 >= 0, -d0 + {rows - 1} >= 0, d1 >= 0, -d1 + {cols - 1} >= 0)>
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @cvt(%x_ptr: index, %y_ptr: index) attributes {{grid = [2]}} {{
  %c0 = arith.constant 0 : index
  %cr = arith.constant {rows} : index
  %t = ktdp.get_compute_tile_id : index
  %r = arith.muli %t, %cr : index
  %x = ktdp.construct_memory_view %x_ptr, sizes: [{2 * rows}, {cols}], strides: [{cols}, 1] {{memory_space = #ktdp.memory_space<global>}} : memref<{2 * rows}x{cols}x{src}>
  %y = ktdp.construct_memory_view %y_ptr, sizes: [{2 * rows}, {cols}], strides: [{cols}, 1] {{memory_space = #ktdp.memory_space<global>}} : memref<{2 * rows}x{cols}x{dst}>
  %xa = ktdp.construct_access_tile %x[%r, %c0] {{access_tile_order = #map, access_tile_set = #set}} : memref<{2 * rows}x{cols}x{src}> -> !ktdp.access_tile<{rows}x{cols}xindex>
  %ya = ktdp.construct_access_tile %y[%r, %c0] {{access_tile_order = #map, access_tile_set = #set}} : memref<{2 * rows}x{cols}x{dst}> -> !ktdp.access_tile<{rows}x{cols}xindex>
  %v = ktdp.load %xa : !ktdp.access_tile<{rows}x{cols}xindex> -> tensor<{rows}x{cols}x{src}>
{body}
  ktdp.store %w, %ya : tensor<{rows}x{cols}x{dst}>, !ktdp.access_tile<{rows}x{cols}xindex>
  return
}}
"""


NP = {"f16": np.float16, "f32": np.float32, "i32": np.int32}
OPS = {("f16", "f32"): "arith.extf", ("f32", "f16"): "arith.truncf",
       ("i32", "f32"): "arith.sitofp", ("f32", "i32"): "arith.fptosi",
       ("i32", "f16"): "arith.sitofp", ("f16", "i32"): "arith.fptosi"}


def inputs(src, shape, rng):
    if src == "i32":
        return rng.integers(-3000, 3000, shape).astype(np.int32)
    x = rng.uniform(-200, 200, shape).astype(NP[src])
    if src == "f32":
        x.flat[:4] = [np.nan, np.inf, -3e9, 70000.0]  # NaN, +inf, past i32, past f16
    return x


def reference(x, dst):
    if dst == "i32":
        f = x.astype(np.float64)
        out = np.trunc(np.nan_to_num(f, nan=0.0, posinf=2**31 - 1, neginf=-2**31))
        return np.clip(out, -2**31, 2**31 - 1).astype(np.int32)
    with np.errstate(over="ignore"):  # f32 past the f16 range: inf, as the SFU rounds it
        return x.astype(NP[dst])


def compile_and_run(tmp_path, text, x):
    src = tmp_path / "k.mlir"
    src.write_text(text)
    out = tmp_path / "out"
    run(BIN / "spyre-compile", src, "-o", out, "--dump-dir", tmp_path / "dump")
    return simulate(tmp_path, out, {"x": x}, ["y"], raw=True)["y"]


@pytest.mark.parametrize("src,dst", sorted(OPS))
@pytest.mark.parametrize("cols", [128, 70, 20])
def test_a_tensor_converted_alone(tmp_path, src, dst, cols):
    """Rows of 128 (whole sticks of both types), 70 (odd sticks of 32-bit values) and 20."""
    rows = 4
    body = f"  %w = {OPS[(src, dst)]} %v : tensor<{rows}x{cols}x{src}> to tensor<{rows}x{cols}x{dst}>"
    x = inputs(src, (2 * rows, cols), np.random.default_rng(cols))
    got = compile_and_run(tmp_path, kernel(rows, cols, src, dst, body), x)
    assert got.dtype == NP[dst]
    np.testing.assert_array_equal(got, reference(x, dst))


def test_conversions_inside_a_generic(tmp_path):
    """y = f16(f32(x) * f32(x) + 1): the square in f32 (no f16 overflow above 256)."""
    rows, cols = 4, 96
    body = f"""  %e = tensor.empty() : tensor<{rows}x{cols}xf16>
  %w = linalg.generic {{indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}}
      ins(%v : tensor<{rows}x{cols}xf16>) outs(%e : tensor<{rows}x{cols}xf16>) {{
    ^bb0(%a: f16, %o: f16):
      %w32 = arith.extf %a : f16 to f32
      %sq = arith.mulf %w32, %w32 : f32
      %one = arith.constant 1.0 : f32
      %s = arith.addf %sq, %one : f32
      %h = arith.truncf %s : f32 to f16
      linalg.yield %h : f16
  }} -> tensor<{rows}x{cols}xf16>"""
    x = inputs("f16", (2 * rows, cols), np.random.default_rng(5)) / np.float16(2)
    got = compile_and_run(tmp_path, kernel(rows, cols, "f16", "f16", body), x)
    want = (x.astype(np.float32) ** 2 + 1).astype(np.float16)
    np.testing.assert_array_equal(got, want)
    schedule = (tmp_path / "dump" / "03-schedule.txt").read_text()
    assert "cvt arith.extf" in schedule and "cvt arith.truncf" in schedule


def test_a_reduction_result_converted(tmp_path):
    """A row's sum (one element per stick) in f32, back to f16 and broadcast: every lane of
    each stick stays equal."""
    rows, cols = 4, 64
    body = f"""  %z = arith.constant dense<0.0> : tensor<{rows}xf32>
  %v32 = arith.extf %v : tensor<{rows}x{cols}xf16> to tensor<{rows}x{cols}xf32>
  %s = linalg.reduce {{ arith.addf }} ins(%v32 : tensor<{rows}x{cols}xf32>) outs(%z : tensor<{rows}xf32>) dimensions = [1]
  %s16 = arith.truncf %s : tensor<{rows}xf32> to tensor<{rows}xf16>
  %e = tensor.empty() : tensor<{rows}x{cols}xf16>
  %w = linalg.generic {{indexing_maps = [#map, affine_map<(d0, d1) -> (d0)>, #map], iterator_types = ["parallel", "parallel"]}}
      ins(%v, %s16 : tensor<{rows}x{cols}xf16>, tensor<{rows}xf16>) outs(%e : tensor<{rows}x{cols}xf16>) {{
    ^bb0(%a: f16, %b: f16, %o: f16):
      %d = arith.subf %a, %b : f16
      linalg.yield %d : f16
  }} -> tensor<{rows}x{cols}xf16>"""
    x = inputs("f16", (2 * rows, cols), np.random.default_rng(9)) / np.float16(50)
    got = compile_and_run(tmp_path, kernel(rows, cols, "f16", "f16", body), x)
    sums = x.astype(np.float32).sum(1, keepdims=True).astype(np.float16).astype(np.float32)
    want = (x.astype(np.float32) - sums).astype(np.float16)
    np.testing.assert_allclose(got.astype(np.float32), want.astype(np.float32), rtol=0, atol=2e-3)


def test_a_conversion_of_another_type_is_a_located_error(tmp_path):
    rows, cols = 4, 64
    body = f"  %w = arith.extf %v : tensor<{rows}x{cols}xf16> to tensor<{rows}x{cols}xf64>"
    src = tmp_path / "k.mlir"
    src.write_text(kernel(rows, cols, "f16", "f64", body))
    r = run(BIN / "spyre-compile", src, "-o", tmp_path / "out", ok=False)
    assert r.returncode != 0
    assert "k.mlir:" in r.stderr and ("f64" in r.stderr), r.stderr


def test_an_f32_matmul_runs_on_the_pt_array_in_f16(tmp_path):
    """linalg.matmul of f32 [16, 48] x [48, 40] (K and N not whole sticks): the PT array takes
    f16, so both operands are rounded to f16 first (sfu.cvt) and the products accumulate in
    fp32, as ktir-cpu's f32 kernels (paged_attention's scores) need. Against numpy on the
    f16-rounded operands."""
    m, k, n = 16, 48, 40
    text = f"""
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @mm(%a_ptr: index, %b_ptr: index, %c_ptr: index) {{
  %c0 = arith.constant 0 : index
  %va = ktdp.construct_memory_view %a_ptr, sizes: [{m}, {k}], strides: [{k}, 1] {{memory_space = #ktdp.memory_space<global>}} : memref<{m}x{k}xf32>
  %vb = ktdp.construct_memory_view %b_ptr, sizes: [{k}, {n}], strides: [{n}, 1] {{memory_space = #ktdp.memory_space<global>}} : memref<{k}x{n}xf32>
  %vc = ktdp.construct_memory_view %c_ptr, sizes: [{m}, {n}], strides: [{n}, 1] {{memory_space = #ktdp.memory_space<global>}} : memref<{m}x{n}xf32>
  %ta = ktdp.construct_access_tile %va[%c0, %c0] {{access_tile_order = #map, access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + {m - 1} >= 0, d1 >= 0, -d1 + {k - 1} >= 0)>}} : memref<{m}x{k}xf32> -> !ktdp.access_tile<{m}x{k}xindex>
  %tb = ktdp.construct_access_tile %vb[%c0, %c0] {{access_tile_order = #map, access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + {k - 1} >= 0, d1 >= 0, -d1 + {n - 1} >= 0)>}} : memref<{k}x{n}xf32> -> !ktdp.access_tile<{k}x{n}xindex>
  %tc = ktdp.construct_access_tile %vc[%c0, %c0] {{access_tile_order = #map, access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + {m - 1} >= 0, d1 >= 0, -d1 + {n - 1} >= 0)>}} : memref<{m}x{n}xf32> -> !ktdp.access_tile<{m}x{n}xindex>
  %a = ktdp.load %ta : !ktdp.access_tile<{m}x{k}xindex> -> tensor<{m}x{k}xf32>
  %b = ktdp.load %tb : !ktdp.access_tile<{k}x{n}xindex> -> tensor<{k}x{n}xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<{m}x{n}xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32>
  %c = linalg.matmul ins(%a, %b : tensor<{m}x{k}xf32>, tensor<{k}x{n}xf32>) outs(%z : tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32>
  ktdp.store %c, %tc : tensor<{m}x{n}xf32>, !ktdp.access_tile<{m}x{n}xindex>
  return
}}
"""
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((m, k)).astype(np.float32), rng.standard_normal((k, n)).astype(np.float32)
    src = tmp_path / "mm.mlir"
    src.write_text(text)
    out = tmp_path / "out"
    run(BIN / "spyre-compile", src, "-o", out)
    got = simulate(tmp_path, out, {"a": a, "b": b}, ["c"], raw=True)["c"]
    want = a.astype(np.float16).astype(np.float32) @ b.astype(np.float16).astype(np.float32)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    assert np.abs(got - a @ b).max() > 0  # the f16 rounding of the operands shows
