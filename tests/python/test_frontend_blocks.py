"""The bundled blocks of models/graphs/ on the emulated chips: the bf16 GPT-2, LLaMA-style
and BERT blocks on the Spyre (spyre-compile) and the TPU (tpu-compile) against one fp32
reference each; the f16 MLP and CNN on the Spyre.
"""
import json

import numpy as np

from frontend_util import (ROOT, compile_graph, simulate, f16, r16, bf16, close,
                           relative_error, softmax_ref, run_on_both)


def gpt2_inputs(seed=21, s=128, d=768, f=3072):
    rng = np.random.default_rng(seed)
    u = lambda *shape, scale=1.0: bf16(rng.uniform(-1, 1, shape) * scale)
    ins = {"x": u(s, d), "ln1_g": bf16(1 + 0.1 * rng.uniform(-1, 1, d)), "ln1_b": u(d, scale=0.1),
           "ln2_g": bf16(1 + 0.1 * rng.uniform(-1, 1, d)), "ln2_b": u(d, scale=0.1)}
    for w in "qkvo":
        ins["W" + w], ins["b" + w] = u(d, d, scale=d ** -0.5), u(d, scale=0.1)
    ins["W1"], ins["b1"] = u(d, f, scale=d ** -0.5), u(f, scale=0.1)
    ins["W2"], ins["b2"] = u(f, d, scale=f ** -0.5), u(d, scale=0.1)
    ins["mask"] = bf16(np.triu(np.full((s, s), -1e4, np.float32), 1))
    return ins


def layer_norm(x, g, b):
    c = x - x.mean(1, keepdims=True)
    return c / np.sqrt((c * c).mean(1, keepdims=True) + 1e-5) * g + b


def attention_ref(h, i, heads):
    """Multi-head attention of the encoder blocks: projections with biases, the mask, Wo."""
    s, d = h.shape
    hd = d // heads
    q, k, v = (h @ i["W" + w] + i["b" + w] for w in "qkv")
    split = lambda t: t.reshape(s, heads, hd).transpose(1, 0, 2)
    sc = split(q) @ split(k).transpose(0, 2, 1) / np.sqrt(hd) + i["mask"]
    p = np.exp(sc - sc.max(2, keepdims=True))
    p /= p.sum(2, keepdims=True)
    return (p @ split(v)).transpose(1, 0, 2).reshape(s, d) @ i["Wo"] + i["bo"]


def gpt2_reference(i, heads=12):
    """The block in fp32 from the same (bf16) inputs: pre-norm, tanh GELU."""
    x = i["x"]
    a = x + attention_ref(layer_norm(x, i["ln1_g"], i["ln1_b"]), i, heads)
    z = layer_norm(a, i["ln2_g"], i["ln2_b"]) @ i["W1"] + i["b1"]
    g = 0.5 * z * (1 + np.tanh(0.7978845608 * (z + 0.044715 * z ** 3)))
    return a + g @ i["W2"] + i["b2"]


def llama_inputs(seed=31, s=128, d=1024, hq=8, hkv=2, hd=128, f=2816):
    rng = np.random.default_rng(seed)
    u = lambda *shape, scale=1.0: bf16(rng.uniform(-1, 1, shape) * scale)
    def rot(heads):  # rotate_half per head: [x1, x2] -> [-x2, x1], as x @ R
        r = np.zeros((heads * hd, heads * hd), np.float32)
        half = hd // 2
        for h in range(heads):
            o = h * hd
            for i in range(half):
                r[o + half + i, o + i] = -1.0
                r[o + i, o + half + i] = 1.0
        return r
    pos = np.arange(s)[:, None]
    freq = 10000.0 ** (-np.arange(hd // 2) * 2.0 / hd)
    ang = np.concatenate([pos * freq, pos * freq], 1)
    ins = {"x": u(s, d), "norm1": bf16(1 + 0.1 * rng.uniform(-1, 1, d)),
           "norm2": bf16(1 + 0.1 * rng.uniform(-1, 1, d)),
           "Wq": u(d, hq * hd, scale=d ** -0.5), "Wk": u(d, hkv * hd, scale=d ** -0.5),
           "Wv": u(d, hkv * hd, scale=d ** -0.5), "Wo": u(hq * hd, d, scale=(hq * hd) ** -0.5),
           "W1": u(d, f, scale=d ** -0.5), "W3": u(d, f, scale=d ** -0.5), "W2": u(f, d, scale=f ** -0.5),
           "Rq": rot(hq), "Rk": rot(hkv),
           "cos_q": bf16(np.tile(np.cos(ang), hq)), "sin_q": bf16(np.tile(np.sin(ang), hq)),
           "cos_k": bf16(np.tile(np.cos(ang), hkv)), "sin_k": bf16(np.tile(np.sin(ang), hkv)),
           "mask": bf16(np.triu(np.full((s, s), -1e4, np.float32), 1))}
    return ins


def llama_reference(i, hq=8, hkv=2, hd=128):
    def rms(x, g):
        return x / np.sqrt((x * x).mean(1, keepdims=True) + 1e-5) * g
    x = i["x"]
    s, d = x.shape
    h = rms(x, i["norm1"])
    q, k, v = h @ i["Wq"], h @ i["Wk"], h @ i["Wv"]
    q = q * i["cos_q"] + (q @ i["Rq"]) * i["sin_q"]
    k = k * i["cos_k"] + (k @ i["Rk"]) * i["sin_k"]
    qh = q.reshape(s, hq, hd).transpose(1, 0, 2)
    kh = k.reshape(s, hkv, hd).transpose(1, 0, 2)
    vh = v.reshape(s, hkv, hd).transpose(1, 0, 2)
    g = hq // hkv
    kh, vh = np.repeat(kh, g, 0), np.repeat(vh, g, 0)  # query head j uses key head j // g
    sc = qh @ kh.transpose(0, 2, 1) / np.sqrt(hd) + i["mask"]
    p = np.exp(sc - sc.max(2, keepdims=True))
    p /= p.sum(2, keepdims=True)
    o = (p @ vh).transpose(1, 0, 2).reshape(s, hq * hd)
    res = x + o @ i["Wo"]
    h2 = rms(res, i["norm2"])
    a = h2 @ i["W1"]
    return res + ((a / (1 + np.exp(-a))) * (h2 @ i["W3"])) @ i["W2"]


def bert_reference(i, heads=12):
    """The layer in fp32 from the same (bf16) inputs: post-norm, exact GELU."""
    from math import erf
    x = i["x"]
    a = layer_norm(x + attention_ref(x, i, heads), i["ln1_g"], i["ln1_b"])
    z = a @ i["W1"] + i["b1"]
    g = 0.5 * z * (1 + np.vectorize(erf)(z / np.sqrt(2)))
    return layer_norm(a + g @ i["W2"] + i["b2"], i["ln2_g"], i["ln2_b"])


def conv_ref(x, w):
    n, h, wd, c = x.shape
    kh_, kw_, _, f = w.shape
    oh, ow = h - kh_ + 1, wd - kw_ + 1
    out = np.zeros((n, oh, ow, f), np.float32)
    for kh in range(kh_):
        for kw in range(kw_):
            out += x[:, kh:kh + oh, kw:kw + ow, :] @ w[kh, kw]
    return out


def pool_ref(x):
    n, h, w, c = x.shape
    return x.reshape(n, h // 2, 2, w // 2, 2, c).max(axis=(2, 4))


def test_gpt2_block_on_spyre_and_tpu(tmp_path):
    """models/graphs/gpt2_block.mlir (bf16) on both chips against one fp32 reference; every
    intermediate is rounded to bf16 on the way, so the check is on the relative error."""
    ins = gpt2_inputs()
    run_on_both(tmp_path, ROOT / "models" / "graphs" / "gpt2_block.mlir", ins, gpt2_reference(ins), 0.02)


def test_llama_block_on_spyre_and_tpu(tmp_path):
    """models/graphs/llama_block.mlir: RMSNorm, rotary embedding, grouped-query attention
    (8 query heads, 2 key/value heads), SwiGLU; bf16 on both chips against fp32."""
    ins = llama_inputs()
    run_on_both(tmp_path, ROOT / "models" / "graphs" / "llama_block.mlir", ins, llama_reference(ins), 0.02)


def test_bert_layer_on_spyre_and_tpu(tmp_path):
    """models/graphs/bert_layer.mlir: post-norm, GELU in its erf form, a padding mask (the
    last 28 of 128 positions are padding) as the attention mask."""
    ins = gpt2_inputs(seed=41)
    mask = np.zeros((128, 128), np.float32)
    mask[:, 100:] = -1e4
    ins["mask"] = bf16(mask)
    run_on_both(tmp_path, ROOT / "models" / "graphs" / "bert_layer.mlir", ins, bert_reference(ins), 0.02)


def test_cnn_block(tmp_path):
    """models/graphs/spyre_cnn.mlir: two convolutions (unfold + matmul), bias, ReLU, batch
    norm, max pools, global average pool, linear; f16 against fp32."""
    graph = ROOT / "models" / "graphs" / "spyre_cnn.mlir"
    out, dump = compile_graph(tmp_path, graph, "cnn")
    names = sorted(p.name for p in dump.glob("k*.mlir"))
    assert "k1_unfold.mlir" in names and "k4_pool.mlir" in names, names
    rng = np.random.default_rng(3)
    u = lambda *s, scale=1.0: (rng.uniform(-1, 1, s) * scale).astype(np.float16)
    ins = {"x": u(1, 34, 34, 8), "w1": u(3, 3, 8, 16, scale=0.3), "b1": u(16, scale=0.1),
           "bn_scale": (1 + u(16, scale=0.2).astype(np.float32)).astype(np.float16),
           "bn_shift": u(16, scale=0.1), "w2": u(3, 3, 16, 32, scale=0.2), "b2": u(32, scale=0.1),
           "wl": u(32, 10, scale=0.3), "bl": u(10, scale=0.1)}
    y = simulate(tmp_path, out, ins, ["logits"])["logits"]
    f = {k: v.astype(np.float32) for k, v in ins.items()}
    a1 = np.maximum(conv_ref(f["x"], f["w1"]) + f["b1"], 0) * f["bn_scale"] + f["bn_shift"]
    a2 = np.maximum(conv_ref(pool_ref(a1), f["w2"]) + f["b2"], 0)
    ref = pool_ref(a2).reshape(1, 49, 32).mean(1) @ f["wl"] + f["bl"]
    assert relative_error(y, ref) < 0.01, relative_error(y, ref)


def test_mlp_block(tmp_path):
    out, dump = compile_graph(tmp_path, ROOT / "models" / "graphs" / "spyre_mlp.mlir", "mlp")
    # Three kernels: each bias (and the ReLU) fused into its matmul, the softmax on its own.
    kernels = sorted(p.name for p in dump.glob("k*.mlir"))
    assert kernels == ["k1_matmul.mlir", "k2_matmul.mlir", "k3_rows_softmax.mlir"]
    rng = np.random.default_rng(1)
    x, w1, b1 = f16(rng, 128, 256), f16(rng, 256, 512, scale=1 / 16), f16(rng, 512)
    w2, b2 = f16(rng, 512, 256, scale=1 / 16), f16(rng, 256)
    y = simulate(tmp_path, out, {"x": x, "W1": w1, "b1": b1, "W2": w2, "b2": b2}, ["y"])["y"]
    h = r16(np.maximum(r16(x.astype(np.float32) @ w1.astype(np.float32)) + b1, 0))
    y0 = r16(r16(h @ w2.astype(np.float32)) + b2)
    close(y, softmax_ref(y0), rtol=2e-2, atol=2e-4)
    # The kernels follow one another on the timeline, which spans the whole launch.
    simulate(tmp_path, out, {"x": x, "W1": w1, "b1": b1, "W2": w2, "b2": b2}, ["y"],
             ["--trace", tmp_path / "trace.json"])
    stats = json.loads((tmp_path / "stats.json").read_text())
    events = json.loads((tmp_path / "trace.json").read_text())["traceEvents"]
    end = max(e["ts"] + e.get("dur", 0) for e in events if e.get("ph") == "X")
    total = stats["chip"]["time_us"]["value"]
    # (Each kernel's last few cycles, after its last traced operation, are not spans.)
    assert 0.95 * total <= end <= total + 1e-3, (end, total)
    # The PT arrays did both matmuls' MACs: the statistics of all three kernels are summed.
    macs = sum(v["value"] for k, v in flatten(stats) if k.endswith("pt_macs"))
    assert macs == 2 * 128 * 256 * 512, macs


def flatten(tree, prefix=""):
    if isinstance(tree, dict) and "value" in tree and "unit" in tree:
        yield prefix, tree
        return
    if isinstance(tree, dict):
        for k, v in tree.items():
            yield from flatten(v, f"{prefix}.{k}" if prefix else k)
    elif isinstance(tree, list):
        for i, v in enumerate(tree):
            yield from flatten(v, f"{prefix}[{i}]")
