"""Index values in KTIR linalg.generic bodies (docs/ktir.md, "linalg.index"): values
computed outside the body (the loop variable, the tile's position, an integer launch value,
arithmetic on them) read by the SFU as a lane-uniform i32 (sfu.splat.int), unsigned
comparisons, and signed division and remainder of i32 lanes. Compiled with spyre-compile,
run with spyre-sim, compared with numpy exactly.
"""
import numpy as np
import pytest

from frontend_util import BIN, run, simulate

ROWS, COLS = 8, 16


def kernel(src, dst, body, loop=False):
    """Grid [2]: tile t reads rows [8t, 8t + 8) of x [16, 16] and writes y; launch values
    %k and %n. With `loop`, the body runs in `scf.for %j = 0 to %n` carrying the tile."""
    t = f"tensor<{ROWS}x{COLS}x{dst}>"
    generic = lambda source: f"""linalg.generic {{indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}}
        ins({source} : tensor<{ROWS}x{COLS}x{src}>) outs(%e : {t}) {{
      ^bb0(%a: {src}, %o: {dst}):
{body}
    }} -> {t}"""  # noqa: E731
    if loop:
        compute = f"""  %w = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %v) -> ({t}) {{
    %e = tensor.empty() : {t}
    %m = {generic("%acc")}
    scf.yield %m : {t}
  }}"""
    else:
        compute = f"""  %e = tensor.empty() : {t}
  %w = {generic("%v")}"""
    return f"""
#set = affine_set<(d0, d1) : (d0 >= 0, -d0 + {ROWS - 1} >= 0, d1 >= 0, -d1 + {COLS - 1} >= 0)>
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @k(%x_ptr: index, %y_ptr: index, %k: index, %n: index) attributes {{grid = [2]}} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %t = ktdp.get_compute_tile_id : index
  %r = arith.muli %t, %c8 : index
  %t2 = arith.muli %t, %c2 : index
  %x = ktdp.construct_memory_view %x_ptr, sizes: [16, {COLS}], strides: [{COLS}, 1] {{memory_space = #ktdp.memory_space<global>}} : memref<16x{COLS}x{src}>
  %y = ktdp.construct_memory_view %y_ptr, sizes: [16, {COLS}], strides: [{COLS}, 1] {{memory_space = #ktdp.memory_space<global>}} : memref<16x{COLS}x{dst}>
  %xa = ktdp.construct_access_tile %x[%r, %c0] {{access_tile_order = #map, access_tile_set = #set}} : memref<16x{COLS}x{src}> -> !ktdp.access_tile<{ROWS}x{COLS}xindex>
  %ya = ktdp.construct_access_tile %y[%r, %c0] {{access_tile_order = #map, access_tile_set = #set}} : memref<16x{COLS}x{dst}> -> !ktdp.access_tile<{ROWS}x{COLS}xindex>
  %v = ktdp.load %xa : !ktdp.access_tile<{ROWS}x{COLS}xindex> -> tensor<{ROWS}x{COLS}x{src}>
  %one = arith.constant 1.0 : f32
  %ninf_bits = arith.constant 0xFF800000 : i32
  %ninf = arith.bitcast %ninf_bits : i32 to f32
{compute}
  ktdp.store %w, %ya : tensor<{ROWS}x{COLS}x{dst}>, !ktdp.access_tile<{ROWS}x{COLS}xindex>
  return
}}
"""


def compile_kernel(tmp_path, text):
    src = tmp_path / "k.mlir"
    src.write_text(text)
    out = tmp_path / "out"
    run(BIN / "spyre-compile", src, "-o", out)
    return out


def launch(tmp_path, out, x, k, n, dtype):
    """Launch values the program takes: k, and n when the body runs in the loop."""
    flags = ["--scalar", f"k={k}"] + (["--scalar", f"n={n}"] if n is not None else [])
    return simulate(tmp_path, out, {"x": x}, ["y"], flags=flags, raw=True)["y"].astype(dtype)


ROW = np.tile(np.arange(ROWS), 2)[:, None]  # each tile's own row
TILE = (np.arange(2 * ROWS) // ROWS)[:, None]
COL = np.arange(COLS)[None, :]

CAUSAL = """        %row = linalg.index 0 : index
        %col = linalg.index 1 : index
        %q = arith.divui %row, %c4 : index
        %pos = arith.addi %t2, %q : index
        %abs = arith.addi %k, %pos : index
        %base = arith.muli %j, %c16 : index
        %key = arith.addi %base, %col : index
        %seen = arith.cmpi ule, %key, %abs : index
        %b = arith.addf %a, %one : f32
        %s = arith.select %seen, %b, %a : f32
        linalg.yield %s : f32"""


@pytest.mark.parametrize("k,n", [(5, 3), (0, 1), (30, 2), (0, 0)])
def test_a_mask_from_the_loop_variable_the_tile_and_a_launch_value(tmp_path, k, n):
    """Iteration j adds 1 where key position 16 j + col is at most k + 2 t + row / 4 (a
    causal mask of paged attention): one program for every k and n."""
    out = compile_kernel(tmp_path, kernel("f32", "f32", CAUSAL, loop=True))
    x = np.random.default_rng(k).integers(-40, 40, (16, COLS)).astype(np.float32)
    got = launch(tmp_path, out, x, k, n, np.float32)
    seen = sum((j * 16 + COL <= k + 2 * TILE + ROW // 4).astype(np.float32) for j in range(n))
    np.testing.assert_array_equal(got, x + seen)


def test_a_float_constant_selected_by_an_integer_comparison_keeps_its_value(tmp_path):
    """select(cmpi, x, -inf): the constant's bits among the i32 lanes, not -inf as an i32."""
    body = """        %col = linalg.index 1 : index
        %keep = arith.cmpi slt, %col, %k : index
        %s = arith.select %keep, %a, %ninf : f32
        linalg.yield %s : f32"""
    out = compile_kernel(tmp_path, kernel("f32", "f32", body))
    x = np.arange(16 * COLS, dtype=np.float32).reshape(16, COLS)
    got = launch(tmp_path, out, x, 5, None, np.float32)
    np.testing.assert_array_equal(got, np.where(COL < 5, x, -np.inf).astype(np.float32))


UNSIGNED = """        %col = linalg.index 1 : index
        %ci = arith.index_cast %col : index to i32
        %ki = arith.index_cast %k : index to i32
        %lt = arith.cmpi ult, %a, %ci : i32
        %le = arith.cmpi ule, %a, %ki : i32
        %gt = arith.cmpi ugt, %a, %ki : i32
        %ge = arith.cmpi uge, %a, %ci : i32
        %c0i = arith.constant 0 : i32
        %c1i = arith.constant 1 : i32
        %c2i = arith.constant 2 : i32
        %c4i = arith.constant 4 : i32
        %c8i = arith.constant 8 : i32
        %b0 = arith.select %lt, %c1i, %c0i : i32
        %b1 = arith.select %le, %c2i, %c0i : i32
        %b2 = arith.select %gt, %c4i, %c0i : i32
        %b3 = arith.select %ge, %c8i, %c0i : i32
        %s1 = arith.addi %b0, %b1 : i32
        %s2 = arith.addi %s1, %b2 : i32
        %s3 = arith.addi %s2, %b3 : i32
        linalg.yield %s3 : i32"""


def test_unsigned_comparisons_of_negative_lanes(tmp_path):
    """ult, ule, ugt, uge of i32 lanes holding negative numbers: as unsigned numbers (-1 is
    the largest), not as the signed comparison the SFU has."""
    out = compile_kernel(tmp_path, kernel("i32", "i32", UNSIGNED))
    rng = np.random.default_rng(11)
    x = rng.integers(-20, 20, (16, COLS)).astype(np.int32)
    x.flat[:4] = [-1, -2**31, 2**31 - 1, 0]
    k = 6
    got = launch(tmp_path, out, x, k, None, np.int32)
    u = x.view(np.uint32).astype(np.int64)
    want = ((u < COL) * 1 + (u <= k) * 2 + (u > k) * 4 + (u >= COL) * 8).astype(np.int32)
    np.testing.assert_array_equal(got, want)


DIVISION = """        %ki = arith.index_cast %k : index to i32
        %c7i = arith.constant 7 : i32
        %c1000 = arith.constant 1000 : i32
        %q = arith.divsi %a, %ki : i32
        %m = arith.remsi %a, %c7i : i32
        %qs = arith.muli %q, %c1000 : i32
        %s = arith.addi %qs, %m : i32
        linalg.yield %s : i32"""


@pytest.mark.parametrize("k", [3, -4])
def test_signed_division_and_remainder_truncate_toward_zero(tmp_path, k):
    out = compile_kernel(tmp_path, kernel("i32", "i32", DIVISION))
    x = np.random.default_rng(5).integers(-500, 500, (16, COLS)).astype(np.int32)
    got = launch(tmp_path, out, x, k, None, np.int32)
    quotient = np.sign(x) * np.sign(k) * (np.abs(x) // abs(k))
    remainder = x - np.sign(x) * (np.abs(x) // 7) * 7
    np.testing.assert_array_equal(got, (quotient * 1000 + remainder).astype(np.int32))


def test_unsigned_division_of_values_that_may_be_negative_is_refused(tmp_path):
    body = """        %c3i = arith.constant 3 : i32
        %q = arith.divui %a, %c3i : i32
        linalg.yield %q : i32"""
    src = tmp_path / "k.mlir"
    src.write_text(kernel("i32", "i32", body))
    r = run(BIN / "spyre-compile", src, "-o", tmp_path / "out", ok=False)
    assert r.returncode != 0
    assert "k.mlir:" in r.stderr and "may be negative as unsigned numbers" in r.stderr, r.stderr


def reduction_and_vector_kernel(rows, cols, dtype, order):
    """y[r] = sum(x[r, :]) + v[r] for one tile: the row sums (one element per stick) meet v
    (a dense vector): `order` "reduced-first" adds them as tensors, "dense-first" in a
    generic whose first operand is v."""
    t2, t1 = f"tensor<{rows}x{cols}x{dtype}>", f"tensor<{rows}x{dtype}>"
    if order == "reduced-first":
        add = f"  %y = arith.addf %sum, %v : {t1}"
    else:
        add = f"""  %e = tensor.empty() : {t1}
  %y = linalg.generic {{indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}}
      ins(%v, %sum : {t1}, {t1}) outs(%e : {t1}) {{
    ^bb0(%a: {dtype}, %b: {dtype}, %o: {dtype}):
      %s = arith.addf %a, %b : {dtype}
      linalg.yield %s : {dtype}
  }} -> {t1}"""
    return f"""
#id = affine_map<(d0) -> (d0)>
func.func @k(%x_ptr: index, %v_ptr: index, %y_ptr: index) attributes {{grid = [1]}} {{
  %c0 = arith.constant 0 : index
  %x = ktdp.construct_memory_view %x_ptr, sizes: [{rows}, {cols}], strides: [{cols}, 1] {{memory_space = #ktdp.memory_space<global>}} : memref<{rows}x{cols}x{dtype}>
  %vv = ktdp.construct_memory_view %v_ptr, sizes: [{rows}], strides: [1] {{memory_space = #ktdp.memory_space<global>}} : memref<{rows}x{dtype}>
  %yv = ktdp.construct_memory_view %y_ptr, sizes: [{rows}], strides: [1] {{memory_space = #ktdp.memory_space<global>}} : memref<{rows}x{dtype}>
  %xa = ktdp.construct_access_tile %x[%c0, %c0] {{access_tile_order = affine_map<(d0, d1) -> (d0, d1)>, access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + {rows - 1} >= 0, d1 >= 0, -d1 + {cols - 1} >= 0)>}} : memref<{rows}x{cols}x{dtype}> -> !ktdp.access_tile<{rows}x{cols}xindex>
  %va = ktdp.construct_access_tile %vv[%c0] {{access_tile_order = #id, access_tile_set = affine_set<(d0) : (d0 >= 0, -d0 + {rows - 1} >= 0)>}} : memref<{rows}x{dtype}> -> !ktdp.access_tile<{rows}xindex>
  %ya = ktdp.construct_access_tile %yv[%c0] {{access_tile_order = #id, access_tile_set = affine_set<(d0) : (d0 >= 0, -d0 + {rows - 1} >= 0)>}} : memref<{rows}x{dtype}> -> !ktdp.access_tile<{rows}xindex>
  %xt = ktdp.load %xa : !ktdp.access_tile<{rows}x{cols}xindex> -> {t2}
  %v = ktdp.load %va : !ktdp.access_tile<{rows}xindex> -> {t1}
  %zero = arith.constant 0.0 : {dtype}
  %zeros = tensor.splat %zero : {t1}
  %sum = linalg.reduce {{ arith.addf }} ins(%xt : {t2}) outs(%zeros : {t1}) dimensions = [1]
{add}
  ktdp.store %y, %ya : {t1}, !ktdp.access_tile<{rows}xindex>
  return
}}
"""


@pytest.mark.parametrize("rows,cols,dtype", [(8, 64, "f16"), (40, 32, "f32"), (70, 20, "f16")])
@pytest.mark.parametrize("order", ["reduced-first", "dense-first"])
def test_reduction_results_meet_a_dense_vector(tmp_path, rows, cols, dtype, order):
    """Row sums (one element per lane-uniform stick) added to a vector loaded densely: the
    vector spread a stick per element, or the sums packed into dense sticks, as the result
    wants; over more than one stick of the vector and a partial last stick."""
    out = compile_kernel(tmp_path, reduction_and_vector_kernel(rows, cols, dtype, order))
    rng = np.random.default_rng(rows)
    np_type = {"f16": np.float16, "f32": np.float32}[dtype]
    x = rng.integers(-8, 8, (rows, cols)).astype(np_type)
    v = rng.integers(-100, 100, rows).astype(np_type)
    got = simulate(tmp_path, out, {"x": x, "v": v}, ["y"], raw=True)["y"]
    want = x.astype(np.float32).sum(axis=1) + v.astype(np.float32)
    np.testing.assert_array_equal(got.astype(np.float32), want)


def test_a_loop_carried_reduction_result_takes_dense_values(tmp_path):
    """The row maxima carried by a loop (one element per stick) take max(carried, v), a
    dense vector: packed to meet v, spread again into the carried sticks at the yield."""
    rows, cols = 40, 32
    text = reduction_and_vector_kernel(rows, cols, "f32", "reduced-first")
    text = text.replace("{ arith.addf }", "{ arith.maximumf }").replace(
        "func.func @k(%x_ptr: index, %v_ptr: index, %y_ptr: index)",
        "func.func @k(%x_ptr: index, %v_ptr: index, %y_ptr: index, %n: index)").replace(
        "  %y = arith.addf %sum, %v : tensor<40xf32>",
        """  %c1 = arith.constant 1 : index
  %y = scf.for %j = %c0 to %n step %c1 iter_args(%m = %sum) -> (tensor<40xf32>) {
    %b = arith.maximumf %m, %v : tensor<40xf32>
    scf.yield %b : tensor<40xf32>
  }""")
    assert "scf.for" in text and "maximumf }" in text
    out = compile_kernel(tmp_path, text)
    rng = np.random.default_rng(3)
    x = rng.integers(-50, 50, (rows, cols)).astype(np.float32)
    v = rng.integers(-60, 60, rows).astype(np.float32)
    for n in (1, 3):
        got = simulate(tmp_path, out, {"x": x, "v": v}, ["y"], flags=["--scalar", f"n={n}"])["y"]
        np.testing.assert_array_equal(got, np.maximum(x.max(axis=1), v))


SITOFP = """
#set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 15 >= 0)>
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @k(%x_ptr: index, %y_ptr: index, %k: index, %n: index) attributes {grid = [1]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %x = ktdp.construct_memory_view %x_ptr, sizes: [8, 16], strides: [16, 1] {memory_space = #ktdp.memory_space<global>} : memref<8x16xf32>
  %y = ktdp.construct_memory_view %y_ptr, sizes: [8, 16], strides: [16, 1] {memory_space = #ktdp.memory_space<global>} : memref<8x16xf32>
  %xa = ktdp.construct_access_tile %x[%c0, %c0] {access_tile_order = #map, access_tile_set = #set} : memref<8x16xf32> -> !ktdp.access_tile<8x16xindex>
  %ya = ktdp.construct_access_tile %y[%c0, %c0] {access_tile_order = #map, access_tile_set = #set} : memref<8x16xf32> -> !ktdp.access_tile<8x16xindex>
  %v = ktdp.load %xa : !ktdp.access_tile<8x16xindex> -> tensor<8x16xf32>
  %w = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %v) -> (tensor<8x16xf32>) {
    %k3 = arith.muli %k, %c3 : index
    %e = arith.subi %k3, %j : index
    %ei = arith.index_cast %e : index to i32
    %f = arith.sitofp %ei : i32 to f32
    %s = tensor.splat %f : tensor<8x16xf32>
    %a = arith.addf %acc, %s : tensor<8x16xf32>
    scf.yield %a : tensor<8x16xf32>
  }
  ktdp.store %w, %ya : tensor<8x16xf32>, !ktdp.access_tile<8x16xindex>
  return
}
"""


def test_an_expression_of_launch_values_and_the_loop_variable_as_a_float(tmp_path):
    """sitofp(3 k - j) in iteration j: the value of an expression, converted where it is
    needed (sfu.splat.int.f32), summed over n iterations."""
    out = compile_kernel(tmp_path, SITOFP)
    x = np.random.default_rng(2).integers(-50, 50, (8, 16)).astype(np.float32)
    for k, n in ((5, 3), (-7, 4), (1000, 1)):
        flags = ["--scalar", f"k={k}", "--scalar", f"n={n}"]
        got = simulate(tmp_path, out, {"x": x}, ["y"], flags=flags)["y"]
        np.testing.assert_array_equal(got, x + sum(3 * k - j for j in range(n)))
