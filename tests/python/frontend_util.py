"""Helpers of the Spyre front end's pytest suites (test_frontend_*.py): compile a tensor graph
with spyre-compile, run the job with spyre-sim, compare with numpy references; and the
graphs several suites build."""
import os
import pathlib
import subprocess

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]


BIN = pathlib.Path(os.environ.get("CHIPLESS_BIN", ROOT / "build" / "bin"))


def native_module_built():
    """Whether the tree of BIN built chipless's Python module (a SAN=1 tree builds none)."""
    return any((BIN.parent / "python" / "chipless").glob("_native.*.so"))


def run(*args, ok=True):
    r = subprocess.run([str(a) for a in args], capture_output=True, text=True,
                       env=dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1"))
    if ok and r.returncode != 0:
        raise AssertionError(f"{' '.join(map(str, args))} failed:\n{r.stdout}{r.stderr}")
    return r


def compile_graph(tmp, text_or_path, name="g", flags=()):
    src = pathlib.Path(text_or_path) if isinstance(text_or_path, pathlib.Path) else tmp / f"{name}.mlir"
    if not isinstance(text_or_path, pathlib.Path):
        src.write_text(text_or_path)
    out, dump = tmp / f"{name}-out", tmp / f"{name}-dump"
    run(BIN / "spyre-compile", src, "-o", out, "--dump-dir", dump, *flags)
    return out, dump


def simulate(tmp, out, inputs, outputs, flags=(), raw=False):
    args = [BIN / "spyre-sim", "run", out / "job.plan"]
    for name, value in inputs.items():
        path = tmp / f"in-{name}.npy"
        np.save(path, value)
        args += ["--input", f"{name}={path}"]
    for name in outputs:
        args += ["--output", f"{name}={tmp / f'out-{name}.npy'}"]
    args += ["--stats", tmp / "stats.json", *flags]
    run(*args)
    load = lambda name: np.load(tmp / f"out-{name}.npy")  # noqa: E731
    return {name: load(name) if raw else load(name).astype(np.float32) for name in outputs}


def run_on_both(tmp_path, graph, ins, ref, tol, result="y"):
    """Graph file `graph` compiled and run on the Spyre (spyre-compile) and the TPU
    (tpu-compile) with the same inputs; both results within relative error `tol` of `ref`.
    Returns the Spyre compile's dump directory."""
    out, dump = compile_graph(tmp_path, graph, graph.stem)
    errors = {"spyre": relative_error(simulate(tmp_path, out, ins, [result])[result], ref)}
    tpu = tmp_path / "tpu"
    run(BIN / "tpu-compile", graph, "-o", tpu)
    args = [BIN / "tpu-sim", "run", tpu / "job.plan", "--output",
            f"{result}={tmp_path / 'tpu-out.npy'}"]
    for name in ins:
        args += ["--input", f"{name}={tmp_path / f'in-{name}.npy'}"]
    run(*args)
    errors["tpu"] = relative_error(np.load(tmp_path / "tpu-out.npy").astype(np.float32), ref)
    print(graph.stem, errors)
    assert all(e < tol for e in errors.values()), errors
    return dump


def f16(rng, *shape, scale=1.0):
    return (rng.uniform(-1, 1, shape) * scale).astype(np.float16)


def r16(x):
    """What an f16 tensor holds."""
    return np.asarray(x, dtype=np.float32).astype(np.float16).astype(np.float32)


def bf16(x):
    """x rounded to bf16 (to nearest even), as float32."""
    b = np.asarray(x, np.float32).view(np.uint32)
    b = ((b + 0x7FFF + ((b >> 16) & 1)) & 0xFFFF0000).astype(np.uint32)
    return b.view(np.float32)


def close(got, ref, rtol=2e-2, atol=2e-3):
    assert got.shape == ref.shape
    err = np.abs(got - ref)
    bad = err > atol + rtol * np.abs(ref)
    assert not bad.any(), f"{bad.sum()} of {bad.size} differ; worst {err.max()} at {np.unravel_index(err.argmax(), err.shape)}"


def relative_error(got, ref):
    return float(np.linalg.norm(got - ref) / np.linalg.norm(ref))


def softmax_ref(x):
    x = x.astype(np.float32)
    e = np.exp(x - x.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


MAP2 = "#mat = affine_map<(d0, d1) -> (d0, d1)>\n#row = affine_map<(d0, d1) -> (d0)>\n#col = affine_map<(d0, d1) -> (d1)>\n"


def layernorm_graph(r, c):
    return MAP2 + f"""
func.func @layernorm(%x: tensor<{r}x{c}xf16> {{graph.name = "x"}}, %g: tensor<{c}xf16> {{graph.name = "gamma"}},
                     %b: tensor<{c}xf16> {{graph.name = "beta"}}) -> (tensor<{r}x{c}xf16> {{graph.name = "y"}}) {{
  %zero = arith.constant 0.0 : f16
  %invn = arith.constant {1.0 / c:.10e} : f16
  %eps = arith.constant 1.0e-5 : f16
  %ev = tensor.empty() : tensor<{r}xf16>
  %zv = linalg.fill ins(%zero : f16) outs(%ev : tensor<{r}xf16>) -> tensor<{r}xf16>
  %sum = linalg.reduce {{ arith.addf }} ins(%x : tensor<{r}x{c}xf16>) outs(%zv : tensor<{r}xf16>) dimensions = [1]
  %e = tensor.empty() : tensor<{r}x{c}xf16>
  %xc = linalg.generic {{indexing_maps = [#mat, #row, #mat], iterator_types = ["parallel", "parallel"]}}
      ins(%x, %sum : tensor<{r}x{c}xf16>, tensor<{r}xf16>) outs(%e : tensor<{r}x{c}xf16>) {{
    ^bb0(%v: f16, %s: f16, %o: f16):
      %m = arith.mulf %s, %invn : f16
      %d = arith.subf %v, %m : f16
      linalg.yield %d : f16
  }} -> tensor<{r}x{c}xf16>
  %ssq = linalg.generic {{indexing_maps = [#mat, #row], iterator_types = ["parallel", "reduction"]}}
      ins(%xc : tensor<{r}x{c}xf16>) outs(%zv : tensor<{r}xf16>) {{
    ^bb0(%v: f16, %acc: f16):
      %sq = arith.mulf %v, %v : f16
      %a = arith.addf %sq, %acc : f16
      linalg.yield %a : f16
  }} -> tensor<{r}xf16>
  %y = linalg.generic {{indexing_maps = [#mat, #row, #col, #col, #mat], iterator_types = ["parallel", "parallel"]}}
      ins(%xc, %ssq, %g, %b : tensor<{r}x{c}xf16>, tensor<{r}xf16>, tensor<{c}xf16>, tensor<{c}xf16>)
      outs(%e : tensor<{r}x{c}xf16>) {{
    ^bb0(%v: f16, %q: f16, %gv: f16, %bv: f16, %o: f16):
      %var = arith.mulf %q, %invn : f16
      %ve = arith.addf %var, %eps : f16
      %rs = math.rsqrt %ve : f16
      %n = arith.mulf %v, %rs : f16
      %s = arith.mulf %n, %gv : f16
      %t = arith.addf %s, %bv : f16
      linalg.yield %t : f16
  }} -> tensor<{r}x{c}xf16>
  return %y : tensor<{r}x{c}xf16>
}}
"""


def softmax_graph(r, c):
    return f"""
func.func @softmax(%x: tensor<{r}x{c}xf16> {{graph.name = "X"}}) -> (tensor<{r}x{c}xf16> {{graph.name = "Y"}}) {{
  %e = tensor.empty() : tensor<{r}x{c}xf16>
  %y = linalg.softmax dimension(1) ins(%x : tensor<{r}x{c}xf16>) outs(%e : tensor<{r}x{c}xf16>) -> tensor<{r}x{c}xf16>
  return %y : tensor<{r}x{c}xf16>
}}
"""


def attention_graph(h, s, d):
    return f"""
#m3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#mask = affine_map<(d0, d1, d2) -> (d1, d2)>
func.func @attention(%q: tensor<{h}x{s}x{d}xf16> {{graph.name = "Q"}}, %k: tensor<{h}x{s}x{d}xf16> {{graph.name = "K"}},
                     %v: tensor<{h}x{s}x{d}xf16> {{graph.name = "V"}}, %mask: tensor<{s}x{s}xf16> {{graph.name = "mask"}})
    -> (tensor<{h}x{s}x{d}xf16> {{graph.name = "O"}}) {{
  %zero = arith.constant 0.0 : f16
  %scale = arith.constant {1.0 / d ** 0.5:.8f} : f16
  %ekt = tensor.empty() : tensor<{h}x{d}x{s}xf16>
  %kt = linalg.transpose ins(%k : tensor<{h}x{s}x{d}xf16>) outs(%ekt : tensor<{h}x{d}x{s}xf16>) permutation = [0, 2, 1]
  %es = tensor.empty() : tensor<{h}x{s}x{s}xf16>
  %zs = linalg.fill ins(%zero : f16) outs(%es : tensor<{h}x{s}x{s}xf16>) -> tensor<{h}x{s}x{s}xf16>
  %sc = linalg.batch_matmul ins(%q, %kt : tensor<{h}x{s}x{d}xf16>, tensor<{h}x{d}x{s}xf16>) outs(%zs : tensor<{h}x{s}x{s}xf16>) -> tensor<{h}x{s}x{s}xf16>
  %sm = linalg.generic {{indexing_maps = [#m3, #mask, #m3], iterator_types = ["parallel", "parallel", "parallel"]}}
      ins(%sc, %mask : tensor<{h}x{s}x{s}xf16>, tensor<{s}x{s}xf16>) outs(%es : tensor<{h}x{s}x{s}xf16>) {{
    ^bb0(%a: f16, %b: f16, %o: f16):
      %t = arith.mulf %a, %scale : f16
      %u = arith.addf %t, %b : f16
      linalg.yield %u : f16
  }} -> tensor<{h}x{s}x{s}xf16>
  %p = linalg.softmax dimension(2) ins(%sm : tensor<{h}x{s}x{s}xf16>) outs(%es : tensor<{h}x{s}x{s}xf16>) -> tensor<{h}x{s}x{s}xf16>
  %eo = tensor.empty() : tensor<{h}x{s}x{d}xf16>
  %zo = linalg.fill ins(%zero : f16) outs(%eo : tensor<{h}x{s}x{d}xf16>) -> tensor<{h}x{s}x{d}xf16>
  %o = linalg.batch_matmul ins(%p, %v : tensor<{h}x{s}x{s}xf16>, tensor<{h}x{s}x{d}xf16>) outs(%zo : tensor<{h}x{s}x{d}xf16>) -> tensor<{h}x{s}x{d}xf16>
  return %o : tensor<{h}x{s}x{d}xf16>
}}
"""


def matmul_graph(m, k, n, out="f32"):
    return f"""
func.func @mm(%a: tensor<{m}x{k}xf16> {{graph.name = "A"}}, %b: tensor<{k}x{n}xf16> {{graph.name = "B"}})
    -> (tensor<{m}x{n}x{out}> {{graph.name = "C"}}) {{
  %zero = arith.constant 0.0 : {out}
  %e = tensor.empty() : tensor<{m}x{n}x{out}>
  %z = linalg.fill ins(%zero : {out}) outs(%e : tensor<{m}x{n}x{out}>) -> tensor<{m}x{n}x{out}>
  %c = linalg.matmul ins(%a, %b : tensor<{m}x{k}xf16>, tensor<{k}x{n}xf16>) outs(%z : tensor<{m}x{n}x{out}>) -> tensor<{m}x{n}x{out}>
  return %c : tensor<{m}x{n}x{out}>
}}
"""


def softmax_matmul_graph(r, c, n):
    """y = softmax(x, 1) @ w: a rows kernel whose result the next kernel reads as A."""
    return f"""
func.func @f(%x: tensor<{r}x{c}xf16> {{graph.name = "x"}}, %w: tensor<{c}x{n}xf16> {{graph.name = "w"}}) -> (tensor<{r}x{n}xf16> {{graph.name = "y"}}) {{
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<{r}x{c}xf16>
  %s = linalg.softmax dimension(1) ins(%x : tensor<{r}x{c}xf16>) outs(%e : tensor<{r}x{c}xf16>) -> tensor<{r}x{c}xf16>
  %eo = tensor.empty() : tensor<{r}x{n}xf16>
  %z = linalg.fill ins(%zero : f16) outs(%eo : tensor<{r}x{n}xf16>) -> tensor<{r}x{n}xf16>
  %y = linalg.matmul ins(%s, %w : tensor<{r}x{c}xf16>, tensor<{c}x{n}xf16>) outs(%z : tensor<{r}x{n}xf16>) -> tensor<{r}x{n}xf16>
  return %y : tensor<{r}x{n}xf16>
}}
"""
