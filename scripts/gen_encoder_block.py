#!/usr/bin/python3
"""Writes the bundled encoder blocks of models/graphs/ (bf16 tensor graphs for spyre-compile
and tpu-compile): a GPT-2 block (pre-norm, tanh GELU) or a BERT layer (post-norm, exact
GELU). The two share every part but the wiring of the norms and the GELU.

    python3 scripts/gen_encoder_block.py gpt2 > models/graphs/gpt2_block.mlir
    python3 scripts/gen_encoder_block.py bert > models/graphs/bert_layer.mlir
"""
import sys

if len(sys.argv) != 2 or sys.argv[1] not in ("gpt2", "bert"):
    sys.exit("usage: gen_encoder_block.py gpt2|bert")
BERT = sys.argv[1] == "bert"
import sys
S, D, H, F = 128, 768, 12, 3072
HD = D // H
T = "bf16"
def t(*s): return "tensor<" + "x".join(map(str, s)) + "x" + T + ">"
L = []
def w(x): L.append(x)
HEADER_MAPS = """
#mat = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
#m3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#mask = affine_map<(d0, d1, d2) -> (d1, d2)>"""
if BERT:
    w(f"""// A BERT encoder layer (d={D}, {H} heads, sequence {S}, an additive attention mask as an
// input: 0 where a key may be attended, -10000 where it is padding), in bf16 so that it
// compiles for both chips: spyre-compile (the Spyre front end, docs/frontend.md) and
// tpu-compile (docs/graph-ir.md). Post-norm: a = LN1(x + Attn(x)); y = LN2(a + FFN(a)),
// FFN = GELU (the exact erf form) between two linear layers of 4d.
//
//   spyre-compile models/graphs/bert_layer.mlir -o out/bert --dump-dir out/bert-dump
//   tpu-compile models/graphs/bert_layer.mlir -o out/bert-tpu""" + HEADER_MAPS)
else:
    w(f"""// A GPT-2 block (d={D}, {H} heads, sequence {S}, causal mask as an input), in bf16 so
// that it compiles for both chips: spyre-compile (the Spyre front end, docs/frontend.md)
// and tpu-compile (docs/graph-ir.md). Pre-norm: a = x + Attn(LN1(x)); y = a + MLP(LN2(a)),
// MLP = GELU(tanh) between two linear layers of 4d.
//
//   spyre-compile models/graphs/gpt2_block.mlir -o out/gpt2 --dump-dir out/gpt2-dump
//   tpu-compile models/graphs/gpt2_block.mlir -o out/gpt2-tpu""" + HEADER_MAPS)

args = [("x", (S, D)), ("ln1_g", (D,)), ("ln1_b", (D,)), ("Wq", (D, D)), ("bq", (D,)), ("Wk", (D, D)), ("bk", (D,)),
        ("Wv", (D, D)), ("bv", (D,)), ("Wo", (D, D)), ("bo", (D,)), ("ln2_g", (D,)), ("ln2_b", (D,)),
        ("W1", (D, F)), ("b1", (F,)), ("W2", (F, D)), ("b2", (D,)), ("mask", (S, S))]
w("func.func @" + ("bert_layer" if BERT else "gpt2_block") + "(" + ",\n    ".join(f'%{n}: {t(*s)} {{graph.name = "{n}"}}' for n, s in args) +
  f")\n    -> ({t(S, D)} {{graph.name = \"y\"}}) {{")
w(f"""  %zero = arith.constant 0.0 : {T}
  %one = arith.constant 1.0 : {T}
  %half = arith.constant 0.5 : {T}
  %invd = arith.constant {1.0 / D:.10e} : {T}
  %eps = arith.constant 1.0e-5 : {T}
  %scale = arith.constant {1.0 / HD ** 0.5:.8f} : {T}
  %g0 = arith.constant 0.7978845608 : {T}
  %g1 = arith.constant 0.044715 : {T}
""" + (f"""  %rsqrt2 = arith.constant 0.70710678 : {T}
""" if BERT else "") + f"""  %ev = tensor.empty() : tensor<{S}x{T}>
  %zv = linalg.fill ins(%zero : {T}) outs(%ev : tensor<{S}x{T}>) -> tensor<{S}x{T}>
  %ed = tensor.empty() : {t(S, D)}
  %zd = linalg.fill ins(%zero : {T}) outs(%ed : {t(S, D)}) -> {t(S, D)}
  %ef = tensor.empty() : {t(S, F)}
  %zf = linalg.fill ins(%zero : {T}) outs(%ef : {t(S, F)}) -> {t(S, F)}""")
def layernorm(n, x, g, b):
    w(f"""  %{n}_sum = linalg.reduce {{ arith.addf }} ins(%{x} : {t(S, D)}) outs(%zv : tensor<{S}x{T}>) dimensions = [1]
  %{n}_c = linalg.generic {{indexing_maps = [#mat, #row, #mat], iterator_types = ["parallel", "parallel"]}}
      ins(%{x}, %{n}_sum : {t(S, D)}, tensor<{S}x{T}>) outs(%ed : {t(S, D)}) {{
    ^bb0(%v: {T}, %s: {T}, %out: {T}):
      %m = arith.mulf %s, %invd : {T}
      %r = arith.subf %v, %m : {T}
      linalg.yield %r : {T}
  }} -> {t(S, D)}
  %{n}_ssq = linalg.generic {{indexing_maps = [#mat, #row], iterator_types = ["parallel", "reduction"]}}
      ins(%{n}_c : {t(S, D)}) outs(%zv : tensor<{S}x{T}>) {{
    ^bb0(%v: {T}, %acc: {T}):
      %q = arith.mulf %v, %v : {T}
      %r = arith.addf %q, %acc : {T}
      linalg.yield %r : {T}
  }} -> tensor<{S}x{T}>
  %{n} = linalg.generic {{indexing_maps = [#mat, #row, #col, #col, #mat], iterator_types = ["parallel", "parallel"]}}
      ins(%{n}_c, %{n}_ssq, %{g}, %{b} : {t(S, D)}, tensor<{S}x{T}>, tensor<{D}x{T}>, tensor<{D}x{T}>) outs(%ed : {t(S, D)}) {{
    ^bb0(%v: {T}, %q: {T}, %gamma: {T}, %beta: {T}, %out: {T}):
      %var = arith.mulf %q, %invd : {T}
      %ve = arith.addf %var, %eps : {T}
      %rs = math.rsqrt %ve : {T}
      %nv = arith.mulf %v, %rs : {T}
      %sv = arith.mulf %nv, %gamma : {T}
      %r = arith.addf %sv, %beta : {T}
      linalg.yield %r : {T}
  }} -> {t(S, D)}""")
def linear(n, x, W, b, rows, k, cols, zero, empty, res=None, gelu=False):
    w(f"""  %{n}_mm = linalg.matmul ins(%{x}, %{W} : {t(rows, k)}, {t(k, cols)}) outs(%{zero} : {t(rows, cols)}) -> {t(rows, cols)}""")
    ins = [f"%{n}_mm", f"%{b}"] + ([f"%{res}"] if res else [])
    types = [t(rows, cols), f"tensor<{cols}x{T}>"] + ([t(rows, cols)] if res else [])
    maps = ["#mat", "#col"] + (["#mat"] if res else [])
    bargs = [f"%a: {T}", f"%bb: {T}"] + ([f"%rr: {T}"] if res else [])
    w(f"""  %{n} = linalg.generic {{indexing_maps = [{", ".join(maps)}, #mat], iterator_types = ["parallel", "parallel"]}}
      ins({", ".join(ins)} : {", ".join(types)}) outs(%{empty} : {t(rows, cols)}) {{
    ^bb0({", ".join(bargs)}, %out: {T}):
      %v = arith.addf %a, %bb : {T}""")
    last = "%v"
    if gelu:
        if BERT:
            w(f"""      %t0 = arith.mulf %v, %rsqrt2 : {T}
      %t3 = math.erf %t0 : {T}""")
        else:
            w(f"""      %v2 = arith.mulf %v, %v : {T}
      %v3 = arith.mulf %v2, %v : {T}
      %t0 = arith.mulf %v3, %g1 : {T}
      %t1 = arith.addf %v, %t0 : {T}
      %t2 = arith.mulf %t1, %g0 : {T}
      %t3 = math.tanh %t2 : {T}""")
        w(f"""      %t4 = arith.addf %t3, %one : {T}
      %t5 = arith.mulf %v, %t4 : {T}
      %gl = arith.mulf %t5, %half : {T}""")
        last = "%gl"
    if res:
        w(f"""      %rv = arith.addf {last}, %rr : {T}""")
        last = "%rv"
    w(f"""      linalg.yield {last} : {T}
  }} -> {t(rows, cols)}""")
if not BERT:
    layernorm("h", "x", "ln1_g", "ln1_b")
for p in "qkv":
    linear(p + "p", "x" if BERT else "h", "W" + p, "b" + p, S, D, D, "zd", "ed")
w(f"""  %qs = tensor.expand_shape %qp [[0], [1, 2]] output_shape [{S}, {H}, {HD}] : {t(S, D)} into {t(S, H, HD)}
  %ks = tensor.expand_shape %kp [[0], [1, 2]] output_shape [{S}, {H}, {HD}] : {t(S, D)} into {t(S, H, HD)}
  %vs = tensor.expand_shape %vp [[0], [1, 2]] output_shape [{S}, {H}, {HD}] : {t(S, D)} into {t(S, H, HD)}
  %eh = tensor.empty() : {t(H, S, HD)}
  %qh = linalg.transpose ins(%qs : {t(S, H, HD)}) outs(%eh : {t(H, S, HD)}) permutation = [1, 0, 2]
  %vh = linalg.transpose ins(%vs : {t(S, H, HD)}) outs(%eh : {t(H, S, HD)}) permutation = [1, 0, 2]
  %ekt = tensor.empty() : {t(H, HD, S)}
  %kt = linalg.transpose ins(%ks : {t(S, H, HD)}) outs(%ekt : {t(H, HD, S)}) permutation = [1, 2, 0]
  %es = tensor.empty() : {t(H, S, S)}
  %zs = linalg.fill ins(%zero : {T}) outs(%es : {t(H, S, S)}) -> {t(H, S, S)}
  %sc = linalg.batch_matmul ins(%qh, %kt : {t(H, S, HD)}, {t(H, HD, S)}) outs(%zs : {t(H, S, S)}) -> {t(H, S, S)}
  %sm = linalg.generic {{indexing_maps = [#m3, #mask, #m3], iterator_types = ["parallel", "parallel", "parallel"]}}
      ins(%sc, %mask : {t(H, S, S)}, {t(S, S)}) outs(%es : {t(H, S, S)}) {{
    ^bb0(%a: {T}, %mv: {T}, %out: {T}):
      %s1 = arith.mulf %a, %scale : {T}
      %s2 = arith.addf %s1, %mv : {T}
      linalg.yield %s2 : {T}
  }} -> {t(H, S, S)}
  %p = linalg.softmax dimension(2) ins(%sm : {t(H, S, S)}) outs(%es : {t(H, S, S)}) -> {t(H, S, S)}
  %eo = tensor.empty() : {t(H, S, HD)}
  %zo = linalg.fill ins(%zero : {T}) outs(%eo : {t(H, S, HD)}) -> {t(H, S, HD)}
  %oh = linalg.batch_matmul ins(%p, %vh : {t(H, S, S)}, {t(H, S, HD)}) outs(%zo : {t(H, S, HD)}) -> {t(H, S, HD)}
  %eo2 = tensor.empty() : {t(S, H, HD)}
  %o3 = linalg.transpose ins(%oh : {t(H, S, HD)}) outs(%eo2 : {t(S, H, HD)}) permutation = [1, 0, 2]
  %attn = tensor.collapse_shape %o3 [[0], [1, 2]] : {t(S, H, HD)} into {t(S, D)}""")
linear("res", "attn", "Wo", "bo", S, D, D, "zd", "ed", res="x")
if BERT:
    layernorm("ln_a", "res", "ln1_g", "ln1_b")
    linear("f", "ln_a", "W1", "b1", S, D, F, "zf", "ef", gelu=True)
    linear("res2", "f", "W2", "b2", S, F, D, "zd", "ed", res="ln_a")
    layernorm("y", "res2", "ln2_g", "ln2_b")
else:
    layernorm("h2", "res", "ln2_g", "ln2_b")
    linear("f", "h2", "W1", "b1", S, D, F, "zf", "ef", gelu=True)
    linear("y", "f", "W2", "b2", S, F, D, "zd", "ed", res="res")
w(f"  return %y : {t(S, D)}\n}}")
print("\n".join(L))
