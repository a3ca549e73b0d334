"""The Spyre front end (compiler/frontend) op by op: tensor graphs compiled with spyre-compile
into one linked SpyreCode job, run with spyre-sim, outputs compared with fp32 references
computed with numpy. Shapes that are not multiples of a stick, of the core count or of a
tile; fused kernels; located errors; determinism; program directories.
"""
import json
import re

import numpy as np
import pytest

from frontend_util import (ROOT, BIN, run, compile_graph, simulate, f16, r16, close,
                           softmax_ref, MAP2, layernorm_graph, softmax_graph, attention_graph)


def activation_graph(r, c, dt="f16"):
    body = {
        "gelu_tanh": """
      %v2 = arith.mulf %v, %v : T
      %v3 = arith.mulf %v2, %v : T
      %t0 = arith.mulf %v3, %c1 : T
      %t1 = arith.addf %v, %t0 : T
      %t2 = arith.mulf %t1, %c0 : T
      %t3 = math.tanh %t2 : T
      %t4 = arith.addf %t3, %one : T
      %t5 = arith.mulf %v, %t4 : T
      %r = arith.mulf %t5, %half : T""",
        "gelu_erf": """
      %s = arith.mulf %v, %rsqrt2 : T
      %e = math.erf %s : T
      %t4 = arith.addf %e, %one : T
      %t5 = arith.mulf %v, %t4 : T
      %r = arith.mulf %t5, %half : T""",
        "silu": """
      %n = arith.negf %v : T
      %ex = math.exp %n : T
      %d = arith.addf %ex, %one : T
      %r = arith.divf %v, %d : T""",
        "sigmoid": """
      %n = arith.negf %v : T
      %ex = math.exp %n : T
      %d = arith.addf %ex, %one : T
      %r = arith.divf %one, %d : T""",
    }
    outs = ", ".join(f'tensor<{r}x{c}x{dt}> {{graph.name = "{n}"}}' for n in body)
    text = f"""#mat = affine_map<(d0, d1) -> (d0, d1)>
func.func @act(%x: tensor<{r}x{c}x{dt}> {{graph.name = "x"}}) -> ({outs}) {{
  %half = arith.constant 0.5 : {dt}
  %one = arith.constant 1.0 : {dt}
  %c0 = arith.constant 0.7978845608 : {dt}
  %c1 = arith.constant 0.044715 : {dt}
  %rsqrt2 = arith.constant 0.70710678 : {dt}
  %empty = tensor.empty() : tensor<{r}x{c}x{dt}>
"""
    for n, b in body.items():
        text += f"""  %{n} = linalg.generic {{indexing_maps = [#mat, #mat], iterator_types = ["parallel", "parallel"]}}
      ins(%x : tensor<{r}x{c}x{dt}>) outs(%empty : tensor<{r}x{c}x{dt}>) {{
    ^bb0(%v: {dt}, %o: {dt}):{b.replace("T", dt)}
      linalg.yield %r : {dt}
  }} -> tensor<{r}x{c}x{dt}>
"""
    text += "  return " + ", ".join("%" + n for n in body) + " : " + ", ".join(f"tensor<{r}x{c}x{dt}>" for _ in body) + "\n}\n"
    return text, list(body)


@pytest.mark.parametrize("rows,cols", [(1000, 200), (7, 33), (64, 1024)])
def test_layernorm(tmp_path, rows, cols):
    out, _ = compile_graph(tmp_path, layernorm_graph(rows, cols), "ln")
    rng = np.random.default_rng(rows + cols)
    x, g, b = f16(rng, rows, cols), f16(rng, cols), f16(rng, cols)
    y = simulate(tmp_path, out, {"x": x, "gamma": g, "beta": b}, ["y"])["y"]
    xf = x.astype(np.float32)
    xc = xf - xf.mean(1, keepdims=True)
    ref = xc / np.sqrt((xc * xc).mean(1, keepdims=True) + 1e-5) * g.astype(np.float32) + b.astype(np.float32)
    # f16 sums over a row and an f16 reciprocal square root: a few f16 ulps of the result.
    close(y, ref, rtol=3e-2, atol=3e-2)


@pytest.mark.parametrize("rows,cols", [(7, 33), (100, 300), (1, 1)])
def test_softmax(tmp_path, rows, cols):
    out, _ = compile_graph(tmp_path, softmax_graph(rows, cols), "sm")
    x = f16(np.random.default_rng(3), rows, cols, scale=4)
    y = simulate(tmp_path, out, {"X": x}, ["Y"])["Y"]
    close(y, softmax_ref(x), rtol=2e-2, atol=1e-3)


def test_elementwise_chain_and_transpose(tmp_path):
    graph = MAP2 + """
func.func @chain(%a: tensor<96x40xf16> {graph.name = "A"}, %b: tensor<96x40xf16> {graph.name = "B"})
    -> (tensor<40x96xf16> {graph.name = "T"}, tensor<96x40xf16> {graph.name = "S"}) {
  %e = tensor.empty() : tensor<96x40xf16>
  %s = linalg.sub ins(%a, %b : tensor<96x40xf16>, tensor<96x40xf16>) outs(%e : tensor<96x40xf16>) -> tensor<96x40xf16>
  %m = linalg.mul ins(%s, %a : tensor<96x40xf16>, tensor<96x40xf16>) outs(%e : tensor<96x40xf16>) -> tensor<96x40xf16>
  %g = linalg.generic {indexing_maps = [#mat, #mat], iterator_types = ["parallel", "parallel"]}
      ins(%m : tensor<96x40xf16>) outs(%e : tensor<96x40xf16>) {
    ^bb0(%v: f16, %o: f16):
      %t = math.tanh %v : f16
      linalg.yield %t : f16
  } -> tensor<96x40xf16>
  %et = tensor.empty() : tensor<40x96xf16>
  %t = linalg.transpose ins(%g : tensor<96x40xf16>) outs(%et : tensor<40x96xf16>) permutation = [1, 0]
  return %t, %g : tensor<40x96xf16>, tensor<96x40xf16>
}
"""
    out, dump = compile_graph(tmp_path, graph, "chain")
    # sub, mul and tanh are one kernel; the transpose (a new stick dimension) another.
    assert sorted(p.name for p in dump.glob("k*.mlir")) == ["k1_rows.mlir", "k2_restickify.mlir"]
    rng = np.random.default_rng(5)
    a, b = f16(rng, 96, 40), f16(rng, 96, 40)
    got = simulate(tmp_path, out, {"A": a, "B": b}, ["T", "S"])
    af, bf = a.astype(np.float32), b.astype(np.float32)
    ref = np.tanh(r16(r16(af - bf) * af))
    close(got["S"], ref, rtol=1e-2, atol=2e-3)
    close(got["T"], got["S"].T, rtol=0, atol=0)


def test_activations(tmp_path):
    from math import erf
    text, names = activation_graph(100, 200)
    out, dump = compile_graph(tmp_path, text, "act")
    assert sorted(p.name for p in dump.glob("k*.mlir")) == ["k1_rows.mlir"]  # one kernel reads x once
    x = f16(np.random.default_rng(4), 100, 200, scale=4)
    got = simulate(tmp_path, out, {"x": x}, names)
    v = x.astype(np.float32)
    ref = {"gelu_tanh": 0.5 * v * (1 + np.tanh(0.7978845608 * (v + 0.044715 * v ** 3))),
           "gelu_erf": 0.5 * v * (1 + np.vectorize(erf)(v / np.sqrt(2))),
           "silu": v / (1 + np.exp(-v)), "sigmoid": 1 / (1 + np.exp(-v))}
    for n in names:
        close(got[n], ref[n], rtol=1e-2, atol=4e-3)


def test_unsupported_op_is_a_located_error(tmp_path):
    graph = """
func.func @b(%x: tensor<4x64xf16>) -> tensor<4x3x64xf16> {
  %e = tensor.empty() : tensor<4x3x64xf16>
  %y = linalg.broadcast ins(%x : tensor<4x64xf16>) outs(%e : tensor<4x3x64xf16>) dimensions = [1]
  return %y : tensor<4x3x64xf16>
}
"""
    src = tmp_path / "bc.mlir"
    src.write_text(graph)
    existing = tmp_path / "out"
    existing.mkdir()
    (existing / "keep").write_text("x")
    r = run(BIN / "spyre-compile", src, "-o", existing, ok=False)
    assert r.returncode == 1
    assert re.search(r"bc\.mlir:4:\d+: error: the Spyre front end broadcasts a vector along the "
                     r"rows", r.stderr), r.stderr
    # Nothing written, nothing removed.
    assert sorted(p.name for p in existing.iterdir()) == ["keep"]


@pytest.mark.parametrize("heads,seq,dim", [(4, 128, 64), (3, 40, 32)])
def test_causal_attention(tmp_path, heads, seq, dim):
    out, dump = compile_graph(tmp_path, attention_graph(heads, seq, dim), "att")
    # K^T restickified (its stick dimension changes); Q K^T with its scale, mask and softmax
    # fused (its tiles take whole rows of scores); P V.
    assert sorted(p.name for p in dump.glob("k*.mlir")) == [
        "k1_restickify.mlir", "k2_matmul_softmax.mlir", "k3_matmul.mlir"]
    for kernel in dump.glob("k*.mlir"):  # batched grids are valid KTIR too
        run(BIN / "ktir-opt", kernel)
    rng = np.random.default_rng(11)
    q, k, v = f16(rng, heads, seq, dim), f16(rng, heads, seq, dim), f16(rng, heads, seq, dim)
    causal = np.triu(np.full((seq, seq), -30000.0, np.float32), 1)
    mask = causal.astype(np.float16)  # one [S, S] mask for every head
    o = simulate(tmp_path, out, {"Q": q, "K": k, "V": v, "mask": mask}, ["O"])["O"]
    qf, kf, vf = (t.astype(np.float32) for t in (q, k, v))
    s = r16(r16(qf @ kf.transpose(0, 2, 1)) * r16(1.0 / dim ** 0.5)) + causal
    e = np.exp(s - s.max(2, keepdims=True))
    p = r16(e / e.sum(2, keepdims=True))
    close(o, p @ vf, rtol=3e-2, atol=3e-3)


def test_bad_argument_type_names_the_argument(tmp_path):
    src = tmp_path / "i8.mlir"
    src.write_text("""
func.func @f(%a: tensor<4x64xi8>) -> tensor<4x64xi8> {
  return %a : tensor<4x64xi8>
}
""")
    r = run(BIN / "spyre-compile", src, "-o", tmp_path / "o", ok=False)
    assert r.returncode == 1
    assert "i8.mlir:2:" in r.stderr and "argument 0 must be a tensor of f16, bf16, f32 or i32 (got element type i8)" in r.stderr, r.stderr


def test_compile_is_deterministic_and_dumps_parse(tmp_path):
    out1, dump = compile_graph(tmp_path, ROOT / "models" / "graphs" / "spyre_mlp.mlir", "a")
    out2, _ = compile_graph(tmp_path, ROOT / "models" / "graphs" / "spyre_mlp.mlir", "b")
    files = sorted(p.name for p in out1.iterdir())
    assert files == sorted(p.name for p in out2.iterdir())
    for f in files:
        assert (out1 / f).read_bytes() == (out2 / f).read_bytes(), f
    # Every kernel's KTIR is valid KTIR a kernel engineer can compile by hand.
    for k in sorted(dump.glob("k*.mlir")):
        run(BIN / "ktir-opt", k)
        run(BIN / "spyre-compile", k, "-o", tmp_path / ("hand-" + k.stem))
        # ... into a job whose tensors have the graph's names (intermediates t1, t2, ...)
        plan = json.loads((tmp_path / ("hand-" + k.stem) / "job.plan").read_text())
        names = {a["name"] for a in plan["arguments"]}
        assert names <= {"x", "W1", "b1", "W2", "b2", "y", "t1", "t2"}, names
    text = (dump / "divisions.txt").read_text()
    assert text.count("  * ") == 3, text  # one choice per kernel, marked


def test_reduction_over_the_dimension_before_the_last(tmp_path):
    """A global average pool ([N, H*W, C] -> [N, C]) and column sums: the front end permutes
    the reduced dimension last, then reduces along the rows."""
    graph = """
#m2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @pool(%x: tensor<2x64x200xf16> {graph.name = "x"}, %m: tensor<96x40xf16> {graph.name = "m"})
    -> (tensor<2x200xf16> {graph.name = "avg"}, tensor<40xf16> {graph.name = "colsum"}) {
  %zero = arith.constant 0.0 : f16
  %inv = arith.constant 0.015625 : f16
  %e = tensor.empty() : tensor<2x200xf16>
  %z = linalg.fill ins(%zero : f16) outs(%e : tensor<2x200xf16>) -> tensor<2x200xf16>
  %s = linalg.reduce { arith.addf } ins(%x : tensor<2x64x200xf16>) outs(%z : tensor<2x200xf16>) dimensions = [1]
  %avg = linalg.generic {indexing_maps = [#m2, #m2], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<2x200xf16>) outs(%e : tensor<2x200xf16>) {
    ^bb0(%v: f16, %o: f16):
      %r = arith.mulf %v, %inv : f16
      linalg.yield %r : f16
  } -> tensor<2x200xf16>
  %ec = tensor.empty() : tensor<40xf16>
  %zc = linalg.fill ins(%zero : f16) outs(%ec : tensor<40xf16>) -> tensor<40xf16>
  %cs = linalg.reduce { arith.addf } ins(%m : tensor<96x40xf16>) outs(%zc : tensor<40xf16>) dimensions = [0]
  return %avg, %cs : tensor<2x200xf16>, tensor<40xf16>
}
"""
    out, _ = compile_graph(tmp_path, graph, "pool")
    rng = np.random.default_rng(14)
    x, m = f16(rng, 2, 64, 200), f16(rng, 96, 40)
    got = simulate(tmp_path, out, {"x": x, "m": m}, ["avg", "colsum"])
    close(got["avg"], x.astype(np.float32).mean(1), rtol=2e-2, atol=2e-3)
    close(got["colsum"], m.astype(np.float32).sum(0), rtol=2e-2, atol=2e-2)


def test_slices(tmp_path):
    """tensor.extract_slice of rows and columns: read where it lies in its source, by an
    element-wise kernel, a softmax and a matmul."""
    graph = MAP2 + """
func.func @slices(%x: tensor<100x300xf16> {graph.name = "x"}, %w: tensor<256x64xf16> {graph.name = "w"},
                  %v: tensor<300xf16> {graph.name = "v"})
    -> (tensor<50x128xf16> {graph.name = "a"}, tensor<100x100xf16> {graph.name = "s"},
        tensor<64x64xf16> {graph.name = "m"}, tensor<128xf16> {graph.name = "vs"}) {
  %two = arith.constant 2.0 : f16
  %zero = arith.constant 0.0 : f16
  %x1 = tensor.extract_slice %x[10, 100] [50, 128] [1, 1] : tensor<100x300xf16> to tensor<50x128xf16>
  %ea = tensor.empty() : tensor<50x128xf16>
  %a = linalg.generic {indexing_maps = [#mat, #mat], iterator_types = ["parallel", "parallel"]}
      ins(%x1 : tensor<50x128xf16>) outs(%ea : tensor<50x128xf16>) {
    ^bb0(%in: f16, %o: f16):
      %r = arith.mulf %in, %two : f16
      linalg.yield %r : f16
  } -> tensor<50x128xf16>
  %x2 = tensor.extract_slice %x[0, 200] [100, 100] [1, 1] : tensor<100x300xf16> to tensor<100x100xf16>
  %es = tensor.empty() : tensor<100x100xf16>
  %s = linalg.softmax dimension(1) ins(%x2 : tensor<100x100xf16>) outs(%es : tensor<100x100xf16>) -> tensor<100x100xf16>
  %x3 = tensor.extract_slice %x[36, 0] [64, 256] [1, 1] : tensor<100x300xf16> to tensor<64x256xf16>
  %em = tensor.empty() : tensor<64x64xf16>
  %zm = linalg.fill ins(%zero : f16) outs(%em : tensor<64x64xf16>) -> tensor<64x64xf16>
  %m = linalg.matmul ins(%x3, %w : tensor<64x256xf16>, tensor<256x64xf16>) outs(%zm : tensor<64x64xf16>) -> tensor<64x64xf16>
  %v1 = tensor.extract_slice %v[172] [128] [1] : tensor<300xf16> to tensor<128xf16>
  %ev = tensor.empty() : tensor<128xf16>
  %vs = linalg.add ins(%v1, %v1 : tensor<128xf16>, tensor<128xf16>) outs(%ev : tensor<128xf16>) -> tensor<128xf16>
  return %a, %s, %m, %vs : tensor<50x128xf16>, tensor<100x100xf16>, tensor<64x64xf16>, tensor<128xf16>
}
"""
    out, _ = compile_graph(tmp_path, graph, "slices")
    rng = np.random.default_rng(15)
    x, w, v = f16(rng, 100, 300), f16(rng, 256, 64, scale=1 / 16), f16(rng, 300)
    got = simulate(tmp_path, out, {"x": x, "w": w, "v": v}, ["a", "s", "m", "vs"])
    xf = x.astype(np.float32)
    close(got["a"], 2 * xf[10:60, 100:228], rtol=1e-3, atol=1e-3)
    close(got["s"], softmax_ref(x[:, 200:300]), rtol=2e-2, atol=1e-3)
    close(got["m"], xf[36:100, :256] @ w.astype(np.float32), rtol=1e-2, atol=2e-3)
    close(got["vs"], 2 * v.astype(np.float32)[172:300], rtol=1e-3, atol=1e-3)


def test_slice_of_a_middle_dimension(tmp_path):
    """A slice of a middle dimension is a strided view of its source: read where it lies."""
    out, dump = compile_graph(tmp_path, """
func.func @mid(%x: tensor<4x8x64xf16> {graph.name = "x"}) -> (tensor<4x2x64xf16> {graph.name = "y"}) {
  %s = tensor.extract_slice %x[0, 3, 0] [4, 2, 64] [1, 1, 1] : tensor<4x8x64xf16> to tensor<4x2x64xf16>
  %e = tensor.empty() : tensor<4x2x64xf16>
  %y = linalg.add ins(%s, %s : tensor<4x2x64xf16>, tensor<4x2x64xf16>) outs(%e : tensor<4x2x64xf16>) -> tensor<4x2x64xf16>
  return %y : tensor<4x2x64xf16>
}
""", "mid")
    # The rows of the slice do not fold into one stride: packed first, then added.
    assert sorted(p.name for p in dump.glob("k*.mlir")) == ["k1_relayout.mlir", "k2_rows.mlir"]
    x = f16(np.random.default_rng(3), 4, 8, 64)
    y = simulate(tmp_path, out, {"x": x}, ["y"])["y"]
    close(y, 2 * x.astype(np.float32)[:, 3:5, :], rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("k", [2.0, 3.0, 0.5, -0.5, -1.0])
def test_pow_by_a_constant(tmp_path, k):
    graph = MAP2 + f"""
func.func @pow(%x: tensor<64x200xf16> {{graph.name = "x"}}) -> (tensor<64x200xf16> {{graph.name = "y"}}) {{
  %k = arith.constant {k} : f16
  %e = tensor.empty() : tensor<64x200xf16>
  %y = linalg.generic {{indexing_maps = [#mat, #mat], iterator_types = ["parallel", "parallel"]}}
      ins(%x : tensor<64x200xf16>) outs(%e : tensor<64x200xf16>) {{
    ^bb0(%v: f16, %o: f16):
      %p = math.powf %v, %k : f16
      linalg.yield %p : f16
  }} -> tensor<64x200xf16>
  return %y : tensor<64x200xf16>
}}
"""
    out, _ = compile_graph(tmp_path, graph, "pow")
    x = (np.random.default_rng(16).uniform(0.5, 2.0, (64, 200))).astype(np.float16)
    y = simulate(tmp_path, out, {"x": x}, ["y"])["y"]
    close(y, x.astype(np.float32) ** k, rtol=1e-2, atol=1e-3)


def test_recompiling_into_a_directory_removes_the_old_jobs_binaries(tmp_path):
    """A graph's job (one binary per kernel) and a KTIR kernel's (init.bin) compiled in turn
    into one directory: each leaves only its own binaries there."""
    out = tmp_path / "job"
    run(BIN / "spyre-compile", ROOT / "models" / "graphs" / "spyre_mlp.mlir", "-o", out)
    assert sorted(p.name for p in out.glob("*.bin")) == ["k1_matmul.bin", "k2_matmul.bin", "k3_rows_softmax.bin"]
    (out / "notes.txt").write_text("mine")
    run(BIN / "spyre-compile", ROOT / "models" / "kernels" / "softmax_rows.mlir", "-o", out)
    assert sorted(p.name for p in out.glob("*.bin")) == ["init.bin"]
    run(BIN / "spyre-compile", ROOT / "models" / "graphs" / "spyre_mlp.mlir", "-o", out)
    assert sorted(p.name for p in out.glob("*.bin")) == ["k1_matmul.bin", "k2_matmul.bin", "k3_rows_softmax.bin"]
    assert (out / "notes.txt").read_text() == "mine"  # only files the old plan named go


def windows_ref(x, kh_, kw_, s, d):
    """Every window offset's strided view of x [N, H, W, C]: [KH, KW, N, OH, OW, C]."""
    n, h, w, c = x.shape
    oh, ow = (h - d * (kh_ - 1) - 1) // s + 1, (w - d * (kw_ - 1) - 1) // s + 1
    return np.stack([np.stack([x[:, kh * d:kh * d + (oh - 1) * s + 1:s, kw * d:kw * d + (ow - 1) * s + 1:s, :]
                               for kw in range(kw_)]) for kh in range(kh_)])


@pytest.mark.parametrize("stride,dilation,h,c", [(2, 1, 13, 64), (1, 2, 12, 16), (2, 2, 15, 3)])
def test_strided_and_dilated_convolution(tmp_path, stride, dilation, h, c):
    """A convolution with strides and dilations unfolds strided views of the image (one per
    window offset); channels of a whole stick, fewer (16), and RGB's 3."""
    k, f = 3, 32
    o = (h - dilation * (k - 1) - 1) // stride + 1
    graph = f"""
func.func @conv(%x: tensor<2x{h}x{h}x{c}xf16> {{graph.name = "x"}}, %w: tensor<{k}x{k}x{c}x{f}xf16> {{graph.name = "w"}})
    -> (tensor<2x{o}x{o}x{f}xf16> {{graph.name = "y"}}) {{
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<2x{o}x{o}x{f}xf16>
  %z = linalg.fill ins(%zero : f16) outs(%e : tensor<2x{o}x{o}x{f}xf16>) -> tensor<2x{o}x{o}x{f}xf16>
  %y = linalg.conv_2d_nhwc_hwcf {{strides = dense<{stride}> : tensor<2xi64>, dilations = dense<{dilation}> : tensor<2xi64>}}
      ins(%x, %w : tensor<2x{h}x{h}x{c}xf16>, tensor<{k}x{k}x{c}x{f}xf16>) outs(%z : tensor<2x{o}x{o}x{f}xf16>) -> tensor<2x{o}x{o}x{f}xf16>
  return %y : tensor<2x{o}x{o}x{f}xf16>
}}
"""
    out, dump = compile_graph(tmp_path, graph, "conv")
    assert kernels_of(dump)[:2] == ["k1_unfold.mlir", "k2_matmul.mlir"], kernels_of(dump)
    rng = np.random.default_rng(stride * 10 + dilation)
    x, w = f16(rng, 2, h, h, c), f16(rng, k, k, c, f, scale=0.3)
    y = simulate(tmp_path, out, {"x": x, "w": w}, ["y"])["y"]
    win = windows_ref(x.astype(np.float32), k, k, stride, dilation)
    ref = np.einsum("abnhwc,abcf->nhwf", win, w.astype(np.float32))
    close(y, ref, rtol=2e-2, atol=2e-2)


@pytest.mark.parametrize("op,k,s", [("max", 3, 2), ("sum", 2, 1), ("max", 2, 2)])
def test_overlapping_pools(tmp_path, op, k, s):
    """Max and sum pools whose windows overlap (3 x 3 every 2, 2 x 2 every 1) or tile."""
    h, c = 17, 40
    o = (h - k) // s + 1
    graph = f"""
func.func @pool(%x: tensor<1x{h}x{h}x{c}xf16> {{graph.name = "x"}}) -> (tensor<1x{o}x{o}x{c}xf16> {{graph.name = "y"}}) {{
  %init = arith.constant {"-65504.0" if op == "max" else "0.0"} : f16
  %e = tensor.empty() : tensor<1x{o}x{o}x{c}xf16>
  %z = linalg.fill ins(%init : f16) outs(%e : tensor<1x{o}x{o}x{c}xf16>) -> tensor<1x{o}x{o}x{c}xf16>
  %win = tensor.empty() : tensor<{k}x{k}xf16>
  %y = linalg.pooling_nhwc_{op} {{strides = dense<{s}> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}}
      ins(%x, %win : tensor<1x{h}x{h}x{c}xf16>, tensor<{k}x{k}xf16>) outs(%z : tensor<1x{o}x{o}x{c}xf16>) -> tensor<1x{o}x{o}x{c}xf16>
  return %y : tensor<1x{o}x{o}x{c}xf16>
}}
"""
    out, dump = compile_graph(tmp_path, graph, "pool")
    assert kernels_of(dump) == ["k1_pool.mlir"], kernels_of(dump)
    x = f16(np.random.default_rng(k * 3 + s), 1, h, h, c)
    y = simulate(tmp_path, out, {"x": x}, ["y"])["y"]
    win = windows_ref(x.astype(np.float32), k, k, s, 1)
    ref = win.max(axis=(0, 1)) if op == "max" else win.sum(axis=(0, 1))
    close(y, ref, rtol=1e-2, atol=1e-2)


def kernels_of(dump):
    return sorted(p.name for p in dump.glob("k*.mlir"))


@pytest.mark.parametrize("pad,stride,c", [(1, 1, 16), (3, 2, 3)])
def test_padded_convolution(tmp_path, pad, stride, c):
    """tensor.pad before a convolution (the stem of a ResNet: 7 x 7 every 2, padding 3): the
    padded image's memory filled with the padding value, the image copied into its
    interior, then the convolution as any other."""
    h, k, f = 16, 3 if pad == 1 else 7, 32
    hp = h + 2 * pad
    o = (hp - k) // stride + 1
    graph = f"""
func.func @conv(%x: tensor<1x{h}x{h}x{c}xf16> {{graph.name = "x"}}, %w: tensor<{k}x{k}x{c}x{f}xf16> {{graph.name = "w"}})
    -> (tensor<1x{o}x{o}x{f}xf16> {{graph.name = "y"}}) {{
  %zero = arith.constant 0.0 : f16
  %p = tensor.pad %x low[0, {pad}, {pad}, 0] high[0, {pad}, {pad}, 0] {{
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f16
  }} : tensor<1x{h}x{h}x{c}xf16> to tensor<1x{hp}x{hp}x{c}xf16>
  %e = tensor.empty() : tensor<1x{o}x{o}x{f}xf16>
  %z = linalg.fill ins(%zero : f16) outs(%e : tensor<1x{o}x{o}x{f}xf16>) -> tensor<1x{o}x{o}x{f}xf16>
  %y = linalg.conv_2d_nhwc_hwcf {{strides = dense<{stride}> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}}
      ins(%p, %w : tensor<1x{hp}x{hp}x{c}xf16>, tensor<{k}x{k}x{c}x{f}xf16>) outs(%z : tensor<1x{o}x{o}x{f}xf16>) -> tensor<1x{o}x{o}x{f}xf16>
  return %y : tensor<1x{o}x{o}x{f}xf16>
}}
"""
    out, dump = compile_graph(tmp_path, graph, "padconv")
    assert kernels_of(dump)[:3] == ["k1_fill.mlir", "k2_pad.mlir", "k3_unfold.mlir"], kernels_of(dump)
    rng = np.random.default_rng(pad)
    x, w = f16(rng, 1, h, h, c), f16(rng, k, k, c, f, scale=0.2)
    y = simulate(tmp_path, out, {"x": x, "w": w}, ["y"])["y"]
    xp = np.pad(x.astype(np.float32), ((0, 0), (pad, pad), (pad, pad), (0, 0)))
    ref = np.einsum("abnhwc,abcf->nhwf", windows_ref(xp, k, k, stride, 1), w.astype(np.float32))
    close(y, ref, rtol=2e-2, atol=2e-2)


def test_pad_with_a_value_along_every_dimension(tmp_path):
    """tensor.pad by 1.5 on both sides of both dimensions: the interior starts inside a stick,
    so the padded tensor is packed, then laid out in sticks as the result."""
    graph = """
func.func @p(%x: tensor<5x100xf16> {graph.name = "x"}) -> (tensor<8x107xf16> {graph.name = "y"}) {
  %v = arith.constant 1.5 : f16
  %p = tensor.pad %x low[1, 3] high[2, 4] {
  ^bb0(%i: index, %j: index):
    tensor.yield %v : f16
  } : tensor<5x100xf16> to tensor<8x107xf16>
  return %p : tensor<8x107xf16>
}
"""
    out, dump = compile_graph(tmp_path, graph, "pad")
    assert kernels_of(dump) == ["k1_fill.mlir", "k2_pad.mlir", "k3_relayout.mlir"], kernels_of(dump)
    x = f16(np.random.default_rng(2), 5, 100)
    y = simulate(tmp_path, out, {"x": x}, ["y"])["y"]
    close(y, np.pad(x.astype(np.float32), ((1, 2), (3, 4)), constant_values=1.5), rtol=0, atol=0)


@pytest.mark.parametrize("shape,value", [((5, 100), 0.0), ((3, 64, 70), -1.5), ((1000,), 2.0)])
def test_a_result_filled_with_a_constant(tmp_path, shape, value):
    """A graph whose result is a linalg.fill of a constant (a tensor zeroed in place): a fill
    kernel writes it, in the canonical stick layout."""
    t = "tensor<" + "x".join(map(str, shape)) + "xf16>"
    graph = f"""
func.func @f(%x: {t} {{graph.name = "x"}}) -> ({t} {{graph.name = "y"}}) {{
  %c = arith.constant {value!r} : f16
  %e = tensor.empty() : {t}
  %y = linalg.fill ins(%c : f16) outs(%e : {t}) -> {t}
  return %y : {t}
}}
"""
    out, dump = compile_graph(tmp_path, graph, "fill")
    assert kernels_of(dump) == ["k1_fill.mlir"], kernels_of(dump)
    x = f16(np.random.default_rng(4), *shape)
    y = simulate(tmp_path, out, {"x": x}, ["y"])["y"]
    close(y, np.full(shape, value, np.float32), rtol=0, atol=0)


@pytest.mark.parametrize("shape", [(4,), (7, 33)])
def test_a_graph_that_returns_its_argument(tmp_path, shape):
    """A graph of no op at all (the result is the argument): a re-layout kernel copies it.
    spyre-compile crashed on this before (fuzz_graph: the dialects of the ops the front end
    builds were loaded only by the graph's own ops)."""
    t = "tensor<" + "x".join(map(str, shape)) + "xf16>"
    graph = f"""
func.func @f(%x: {t} {{graph.name = "x"}}) -> ({t} {{graph.name = "y"}}) {{
  return %x : {t}
}}
"""
    out, dump = compile_graph(tmp_path, graph, "identity")
    assert kernels_of(dump) == ["k1_relayout.mlir"], kernels_of(dump)
    x = f16(np.random.default_rng(5), *shape)
    y = simulate(tmp_path, out, {"x": x}, ["y"])["y"]
    close(y, x.astype(np.float32), rtol=0, atol=0)


def test_a_constant_read_by_an_op(tmp_path):
    """A one filled with a constant, broadcast and divided by (a mean's backward seed): a fill
    kernel writes the constant to memory, which the broadcast then reads; the constant is
    also a result."""
    graph = """
func.func @f(%x: tensor<32xf16> {graph.name = "x"}) -> (tensor<1xf16> {graph.name = "one"}, tensor<32xf16> {graph.name = "y"}) {
  %c = arith.constant 1.0 : f16
  %e = tensor.empty() : tensor<1xf16>
  %one = linalg.fill ins(%c : f16) outs(%e : tensor<1xf16>) -> tensor<1xf16>
  %eb = tensor.empty() : tensor<1x32xf16>
  %b = linalg.broadcast ins(%one : tensor<1xf16>) outs(%eb : tensor<1x32xf16>) dimensions = [1]
  %v = tensor.collapse_shape %b [[0, 1]] : tensor<1x32xf16> into tensor<32xf16>
  %ey = tensor.empty() : tensor<32xf16>
  %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%v, %x : tensor<32xf16>, tensor<32xf16>) outs(%ey : tensor<32xf16>) {
    ^bb0(%p: f16, %q: f16, %o: f16):
      %r = arith.divf %p, %q : f16
      linalg.yield %r : f16
  } -> tensor<32xf16>
  return %one, %y : tensor<1xf16>, tensor<32xf16>
}
"""
    out, dump = compile_graph(tmp_path, graph, "seed")
    assert kernels_of(dump)[0] == "k1_fill.mlir", kernels_of(dump)
    x = f16(np.random.default_rng(5), 32) + np.float16(4)
    got = simulate(tmp_path, out, {"x": x}, ["one", "y"])
    close(got["one"], np.ones(1, np.float32), rtol=0, atol=0)
    close(got["y"], 1 / x.astype(np.float32), rtol=2e-3, atol=1e-3)


def test_padded_max_pool(tmp_path):
    """A max pool of 3 x 3 every 2 over an image padded with -inf (PyTorch's padded max_pool2d,
    ResNet's stem): the fill kernel writes the infinity as MLIR spells it (in hex), and the
    border never wins a window."""
    graph = """
func.func @p(%x: tensor<1x9x9x64xf16> {graph.name = "x"}) -> (tensor<1x5x5x64xf16> {graph.name = "y"}) {
  %inf = arith.constant 0xFC00 : f16
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %inf : f16
  } : tensor<1x9x9x64xf16> to tensor<1x11x11x64xf16>
  %w = tensor.empty() : tensor<3x3xf16>
  %e = tensor.empty() : tensor<1x5x5x64xf16>
  %i = linalg.fill ins(%inf : f16) outs(%e : tensor<1x5x5x64xf16>) -> tensor<1x5x5x64xf16>
  %y = linalg.pooling_nhwc_max {strides = dense<2> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
      ins(%p, %w : tensor<1x11x11x64xf16>, tensor<3x3xf16>) outs(%i : tensor<1x5x5x64xf16>) -> tensor<1x5x5x64xf16>
  return %y : tensor<1x5x5x64xf16>
}
"""
    out, dump = compile_graph(tmp_path, graph, "maxpool")
    assert "0xFC00" in (dump / "k1_fill.mlir").read_text()
    x = -np.abs(f16(np.random.default_rng(3), 1, 9, 9, 64)) - 1  # every value below 0
    y = simulate(tmp_path, out, {"x": x}, ["y"])["y"]
    xp = np.pad(x.astype(np.float32), ((0, 0), (1, 1), (1, 1), (0, 0)), constant_values=-np.inf)
    ref = windows_ref(xp, 3, 3, 2, 1).max(axis=(0, 1))
    close(y, ref, rtol=0, atol=0)


def test_convolution_on_filters_as_pytorch_holds_them(tmp_path):
    """A convolution of 256 channels on a 4 x 4 image with filters in PyTorch's [F, C, KH, KW]
    (the PyTorch device's lowering): the matmul reads the permuted filters in place, and
    divisions whose spans of K would cross a channel run (16 rows: K split over the cores)
    are not candidates; the image and result permuted between NCHW and NHWC."""
    n, c, h, f, k = 1, 256, 4, 256, 3
    graph = f"""
func.func @conv(%x: tensor<{n}x{c}x{h}x{h}xf16> {{graph.name = "x"}}, %w: tensor<{f}x{c}x{k}x{k}xf16> {{graph.name = "w"}})
    -> (tensor<{n}x{f}x{h}x{h}xf16> {{graph.name = "y"}}) {{
  %zero = arith.constant 0.0 : f16
  %xf = tensor.collapse_shape %x [[0], [1], [2, 3]] : tensor<{n}x{c}x{h}x{h}xf16> into tensor<{n}x{c}x{h * h}xf16>
  %ex = tensor.empty() : tensor<{n}x{h * h}x{c}xf16>
  %xt = linalg.transpose ins(%xf : tensor<{n}x{c}x{h * h}xf16>) outs(%ex : tensor<{n}x{h * h}x{c}xf16>) permutation = [0, 2, 1]
  %xi = tensor.expand_shape %xt [[0], [1, 2], [3]] output_shape [{n}, {h}, {h}, {c}] : tensor<{n}x{h * h}x{c}xf16> into tensor<{n}x{h}x{h}x{c}xf16>
  %xp = tensor.pad %xi low[0, 1, 1, 0] high[0, 1, 1, 0] {{
  ^bb0(%i: index, %j: index, %l: index, %m: index):
    tensor.yield %zero : f16
  }} : tensor<{n}x{h}x{h}x{c}xf16> to tensor<{n}x{h + 2}x{h + 2}x{c}xf16>
  %wf = tensor.collapse_shape %w [[0], [1], [2, 3]] : tensor<{f}x{c}x{k}x{k}xf16> into tensor<{f}x{c}x{k * k}xf16>
  %ew = tensor.empty() : tensor<{k * k}x{c}x{f}xf16>
  %wt = linalg.transpose ins(%wf : tensor<{f}x{c}x{k * k}xf16>) outs(%ew : tensor<{k * k}x{c}x{f}xf16>) permutation = [2, 1, 0]
  %wi = tensor.expand_shape %wt [[0, 1], [2], [3]] output_shape [{k}, {k}, {c}, {f}] : tensor<{k * k}x{c}x{f}xf16> into tensor<{k}x{k}x{c}x{f}xf16>
  %e = tensor.empty() : tensor<{n}x{h}x{h}x{f}xf16>
  %z = linalg.fill ins(%zero : f16) outs(%e : tensor<{n}x{h}x{h}x{f}xf16>) -> tensor<{n}x{h}x{h}x{f}xf16>
  %y = linalg.conv_2d_nhwc_hwcf {{strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}}
      ins(%xp, %wi : tensor<{n}x{h + 2}x{h + 2}x{c}xf16>, tensor<{k}x{k}x{c}x{f}xf16>) outs(%z : tensor<{n}x{h}x{h}x{f}xf16>) -> tensor<{n}x{h}x{h}x{f}xf16>
  %yf = tensor.collapse_shape %y [[0], [1, 2], [3]] : tensor<{n}x{h}x{h}x{f}xf16> into tensor<{n}x{h * h}x{f}xf16>
  %ey = tensor.empty() : tensor<{n}x{f}x{h * h}xf16>
  %yt = linalg.transpose ins(%yf : tensor<{n}x{h * h}x{f}xf16>) outs(%ey : tensor<{n}x{f}x{h * h}xf16>) permutation = [0, 2, 1]
  %yo = tensor.expand_shape %yt [[0], [1], [2, 3]] output_shape [{n}, {f}, {h}, {h}] : tensor<{n}x{f}x{h * h}xf16> into tensor<{n}x{f}x{h}x{h}xf16>
  return %yo : tensor<{n}x{f}x{h}x{h}xf16>
}}
"""
    out, dump = compile_graph(tmp_path, graph, "nchw-conv")
    rng = np.random.default_rng(11)
    x, w = f16(rng, n, c, h, h), f16(rng, f, c, k, k, scale=0.05)
    y = simulate(tmp_path, out, {"x": x, "w": w}, ["y"])["y"]
    xp = np.pad(x.astype(np.float32).transpose(0, 2, 3, 1), ((0, 0), (1, 1), (1, 1), (0, 0)))
    ref = np.einsum("abnhwc,abcf->nhwf", windows_ref(xp, k, k, 1, 1),
                    w.astype(np.float32).transpose(2, 3, 1, 0)).transpose(0, 3, 1, 2)
    close(y, ref, rtol=2e-2, atol=2e-2)
