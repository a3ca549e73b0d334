"""Graphs that compute in f32 and round to bf16 between kernels (arith.truncf and extf in
linalg bodies, on the SFU's sfu.cvt): the TPU's bundled attention, multi-head attention and
GELU MLP run on the emulated Spyre too, each against an fp32 numpy reference, and within the
same error as the TPU's run of the same graph.
"""
import numpy as np
import pytest

from frontend_util import ROOT, bf16, run_on_both, softmax_ref


def uniform(rng, *shape, scale=1.0):
    return bf16(rng.uniform(-1, 1, shape) * scale)


def attention_case(rng):
    ins = {n: uniform(rng, 100, 64) for n in "QKV"}
    p = softmax_ref(ins["Q"] @ ins["K"].T * 0.125)
    return ins, "O", bf16(p) @ ins["V"]


def mha_case(rng):
    ins = {"x": uniform(rng, 100, 256)}
    for w in ("Wq", "Wk", "Wv", "Wo"):
        ins[w] = uniform(rng, 256, 256, scale=256 ** -0.5)
    q, k, v = (bf16(ins["x"] @ ins[w]) for w in ("Wq", "Wk", "Wv"))
    heads = lambda t: t.reshape(100, 4, 64).transpose(1, 0, 2)  # noqa: E731
    s = heads(q) @ heads(k).transpose(0, 2, 1) * 0.125
    p = bf16(np.stack([softmax_ref(h) for h in s]))
    o = bf16(p @ heads(v)).transpose(1, 0, 2).reshape(100, 256)
    return ins, "out", o @ ins["Wo"]


def mlp_gelu_case(rng):
    ins = {"x": uniform(rng, 64, 256), "W1": uniform(rng, 256, 1024, scale=256 ** -0.5),
           "b1": rng.uniform(-0.1, 0.1, 1024).astype(np.float32),
           "W2": uniform(rng, 1024, 256, scale=1024 ** -0.5),
           "b2": rng.uniform(-0.1, 0.1, 256).astype(np.float32)}
    z = ins["x"] @ ins["W1"] + ins["b1"]
    g = bf16(0.5 * z * (1 + np.tanh(0.7978845608 * (z + 0.044715 * z ** 3))))
    return ins, "y", g @ ins["W2"] + ins["b2"]


CASES = {"attention": attention_case, "mha": mha_case, "mlp_gelu": mlp_gelu_case}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_mixed_precision_graph_on_spyre_and_tpu(tmp_path, name):
    ins, result, ref = CASES[name](np.random.default_rng(17))
    dump = run_on_both(tmp_path, ROOT / "models" / "graphs" / f"{name}.mlir", ins, ref, 1e-2,
                       result=result)
    # The conversions are SFU instructions of the kernels, not host steps.
    assert any("sfu_cvt" in p.read_text() for p in dump.glob("k*/04-dataflow.mlir"))


F32_GEMM = """func.func @gemm(%a: tensor<{M}x{K}xf32> {{graph.name = "A"}},
                %b: tensor<{B}{K}x{N}xf32> {{graph.name = "B"}})
    -> (tensor<{M}x{N}xf32> {{graph.name = "C"}}) {{
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<{M}x{N}xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<{M}x{N}xf32>) -> tensor<{M}x{N}xf32>
  %c = linalg.{op} ins(%a, %b : tensor<{M}x{K}xf32>, tensor<{B}{K}x{N}xf32>)
                     outs(%init : tensor<{M}x{N}xf32>) -> tensor<{M}x{N}xf32>
  return %c : tensor<{M}x{N}xf32>
}}
"""


@pytest.mark.parametrize("batch,m,k,n", [(None, 200, 300, 260), (None, 7, 33, 1), (3, 40, 64, 50)])
def test_f32_matmuls_are_three_f16_passes(tmp_path, batch, m, k, n):
    """A matmul of f32 matrices: each operand split into f16 high and low parts (the PT
    array takes f16), three products with f32 results added small terms first: within f32's
    error of a float64 reference, where one f16 pass is off by a thousand times more."""
    from frontend_util import compile_graph, simulate
    M = f"{batch}x{m}" if batch else str(m)
    text = F32_GEMM.format(M=M, K=k, N=n, B=f"{batch}x" if batch else "",
                           op="batch_matmul" if batch else "matmul")
    out, dump = compile_graph(tmp_path, text, "gemm32")
    rng = np.random.default_rng(m)
    lead = (batch,) if batch else ()
    a = rng.uniform(-9, 9, (*lead, m, k)).astype(np.float32)
    b = rng.uniform(-9, 9, (*lead, k, n)).astype(np.float32)
    got = simulate(tmp_path, out, {"A": a, "B": b}, ["C"])["C"].astype(np.float64)
    want = a.astype(np.float64) @ b.astype(np.float64)
    err = np.abs(got - want).max()
    f32_err = np.abs((a @ b).astype(np.float64) - want).max()  # numpy's own f32 product
    one_pass = a.astype(np.float16).astype(np.float64) @ b.astype(np.float16).astype(np.float64)
    assert err <= 4 * f32_err + 1e-6, (err, f32_err)
    assert np.abs(one_pass - want).max() > 100 * err
