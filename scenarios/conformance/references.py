"""fp32 references of the bundled workloads, computed with numpy on the CPU.

Each function takes (inputs, scalars): the inputs by argument name as float32 arrays (f16
and bf16 inputs hold exactly what the device holds), integer inputs as they are; scalars by
name. It returns {output name: array}. The suites (*.yaml beside this file) name a function
per case and the tolerance its outputs must meet.
"""
import math

import numpy as np

from chipless.numerics import round_bf16, round_f16


def _f32(x):
    return np.asarray(x, np.float32)


def _softmax(x, axis=-1):
    x = _f32(x).astype(np.float64)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return (e / e.sum(axis=axis, keepdims=True)).astype(np.float32)


def _layer_norm(x, gamma, beta, eps=1e-5):
    x = _f32(x).astype(np.float64)
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    y = (x - mean) / np.sqrt(var + eps) * gamma
    return (y + beta if beta is not None else y).astype(np.float32)


def _gelu_tanh(v):
    return 0.5 * v * (1 + np.tanh(math.sqrt(2 / math.pi) * (v + 0.044715 * v ** 3)))


def _mm(a, b):
    return (_f32(a).astype(np.float64) @ _f32(b).astype(np.float64)).astype(np.float32)


# ---- element-wise, row-wise ---------------------------------------------------------------

def add(i, s):
    key = "A" if "A" in i else "a"
    other = "B" if key == "A" else "b"
    out = "C" if key == "A" else "c"
    return {out: _f32(i[key]) + _f32(i[other])}


def softmax_rows(i, s):
    return {"Y": _softmax(i["X"])}


def layer_norm(i, s):
    return {"Y": _layer_norm(i["X"], i["gamma"], i["beta"])}


def rms_norm(i, s):
    x = _f32(i["X"]).astype(np.float64)
    rstd = 1 / np.sqrt((x * x).mean(axis=-1, keepdims=True) + 1e-5)
    return {"Y": (x * rstd * i["weight"]).astype(np.float32)}


def rope(i, s):
    """Rotary embedding on the two halves of each row: (x1 c - x2 s, x2 c + x1 s)."""
    x, c, n = _f32(i["X"]).astype(np.float64), i["cos"], i["sin"]
    half = x.shape[-1] // 2
    x1, x2 = x[:, :half], x[:, half:]
    return {"Y": np.concatenate([x1 * c - x2 * n, x2 * c + x1 * n], axis=-1).astype(np.float32)}


def embedding_gather(i, s):
    return {"out": _f32(i["table"])[np.asarray(i["ids"], np.int64)]}


# ---- matmuls ------------------------------------------------------------------------------

def matmul(i, s):
    a, b = ("A", "B") if "A" in i else ("a", "b")
    out = "C" if "A" in i else "c"
    return {out: _mm(i[a], i[b])}


def batch_matmul(i, s):
    return {"C": np.einsum("bmk,bkn->bmn", _f32(i["A"]).astype(np.float64),
                           _f32(i["B"]).astype(np.float64)).astype(np.float32)}


def attention_one_head(i, s):
    """O = softmax(Q KT / sqrt(d) + mask) V, the keys given transposed (KT)."""
    d = i["Q"].shape[-1]
    scores = _mm(i["Q"], i["KT"]) / math.sqrt(d) + _f32(i["mask"])
    return {"O": _mm(_softmax(scores), i["V"])}


def attention_heads(i, s):
    """Per head: O = softmax(Q K^T / sqrt(d) + mask) V (Q, K, V: [heads, S, d])."""
    d = i["Q"].shape[-1]
    q, k, v = (_f32(i[n]).astype(np.float64) for n in ("Q", "K", "V"))
    scores = np.einsum("hsd,htd->hst", q, k) / math.sqrt(d) + _f32(i["mask"])
    return {"O": np.einsum("hst,htd->hsd", _softmax(scores), v).astype(np.float32)}


def attention_no_mask(i, s):
    d = i["Q"].shape[-1]
    return {"O": _mm(_softmax(_mm(i["Q"], _f32(i["K"]).T) / math.sqrt(d)), i["V"])}


def mlp_relu_softmax(i, s):
    """y = softmax(relu(x W1 + b1) W2 + b2) (models/graphs/spyre_mlp.mlir), every tensor of
    the graph f16: the matmul results, h and the logits are rounded to f16 as it stores them."""
    h = round_f16(np.maximum(round_f16(round_f16(_mm(i["x"], i["W1"])) + i["b1"]), 0))
    return {"y": _softmax(round_f16(round_f16(_mm(h, i["W2"])) + i["b2"]))}


def mlp_gelu(i, s):
    """y = gelu_tanh(x W1 + b1) W2 + b2 (models/graphs/mlp_gelu.mlir); h is kept in bf16."""
    h = _gelu_tanh(_mm(i["x"], i["W1"]).astype(np.float64) + i["b1"])
    return {"y": _mm(round_bf16(h.astype(np.float32)), i["W2"]) + i["b2"]}


# ---- collectives --------------------------------------------------------------------------

def all_reduce_rows(i, s):
    """Every row of Y is the sum of all rows of P (one row per core or chip)."""
    key = "P" if "P" in i else "X"
    p = _f32(i[key]).astype(np.float64)
    total = p.sum(axis=0, keepdims=True)
    return {"Y": np.broadcast_to(total, p.shape).astype(np.float32)}


# ---- the public KTIR samples (../shared/ktir-examples) ------------------------------------

def scalar_broadcast(i, s):
    """out [4, 64] filled with the one value of `in`."""
    return {"out": np.full((4, 64), _f32(i["in"]).reshape(-1)[0], np.float32)}


def nested_yield(i, s):
    """Two nested scf.for loops, each yielding 1.0 added: every element ends at 2.0."""
    return {"out": np.full((4,), 2.0, np.float32)}


def reduce_sum_in_place(i, s):
    """arg0 [1, 4]: every element becomes the sum of all four (rounded to fp16)."""
    x = _f32(i["arg0"])
    return {"arg0": round_f16(np.full(x.shape, x.astype(np.float64).sum(), np.float32))}


def softmax_wide(i, s):
    return {"output": _softmax(i["input"])}


def ffn_swiglu(i, s):
    """out = x + (silu(x Wg) * (x Wu)) Wd."""
    x = _f32(i["x"]).astype(np.float64)
    g, u = x @ _f32(i["w_gate"]), x @ _f32(i["w_up"])
    fused = g / (1 + np.exp(-g)) * u
    return {"out": (x + fused @ _f32(i["w_down"])).astype(np.float32)}


def ring_reduce(i, s):
    """out [1, 128]: the column sums of in [4, 128], times n_iters when the kernel loops."""
    times = s.get("n_iters", 1)
    return {"out": (_f32(i["in"]).astype(np.float64).sum(axis=0, keepdims=True)
                    * times).astype(np.float32)}
