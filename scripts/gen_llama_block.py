#!/usr/bin/python3
"""Writes models/graphs/llama_block.mlir (a bf16 tensor graph for spyre-compile and tpu-compile):

    python3 scripts/gen_llama_block.py > models/graphs/llama_block.mlir
"""
S, D, HQ, HKV, HD, F = 128, 1024, 8, 2, 128, 2816
G = HQ // HKV
T = "bf16"
def t(*s): return "tensor<" + "x".join(map(str, s)) + "x" + T + ">"
L = []
def w(x): L.append(x)
w(f"""// A LLaMA-style block (d={D}, {HQ} query heads sharing {HKV} key/value heads, sequence {S}):
// RMSNorm, rotary embedding, grouped-query attention with a causal mask, SwiGLU. In bf16,
// for both spyre-compile and tpu-compile. The rotary embedding is x cos + rotate_half(x) sin
// with rotate_half as a product with R (block-diagonal, one [[0, I], [-I, 0]] per head) and
// cos, sin given per position and column; each group of {G} query heads is stacked along the
// rows ([{HKV}, {G}x{S}, {HD}], scaled by 1/sqrt({HD}) on the way) so its scores are one batch
// matmul with its key head.
//
//   spyre-compile models/graphs/llama_block.mlir -o out/llama --dump-dir out/llama-dump
//   tpu-compile models/graphs/llama_block.mlir -o out/llama-tpu
#mat = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
#m3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#m4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#mask = affine_map<(d0, d1, d2, d3) -> (d2, d3)>""")
args = [("x", (S, D)), ("norm1", (D,)), ("Wq", (D, HQ * HD)), ("Wk", (D, HKV * HD)), ("Wv", (D, HKV * HD)),
        ("Rq", (HQ * HD, HQ * HD)), ("Rk", (HKV * HD, HKV * HD)), ("cos_q", (S, HQ * HD)), ("sin_q", (S, HQ * HD)),
        ("cos_k", (S, HKV * HD)), ("sin_k", (S, HKV * HD)), ("Wo", (HQ * HD, D)), ("norm2", (D,)),
        ("W1", (D, F)), ("W3", (D, F)), ("W2", (F, D)), ("mask", (S, S))]
w("func.func @llama_block(" + ",\n    ".join(f'%{n}: {t(*s)} {{graph.name = "{n}"}}' for n, s in args) +
  f")\n    -> ({t(S, D)} {{graph.name = \"y\"}}) {{")
w(f"""  %zero = arith.constant 0.0 : {T}
  %one = arith.constant 1.0 : {T}
  %invd = arith.constant {1.0 / D:.10e} : {T}
  %eps = arith.constant 1.0e-5 : {T}
  %scale = arith.constant {1.0 / HD ** 0.5:.8f} : {T}
  %ev = tensor.empty() : tensor<{S}x{T}>
  %zv = linalg.fill ins(%zero : {T}) outs(%ev : tensor<{S}x{T}>) -> tensor<{S}x{T}>""")
def zeros(n, *shape):
    w(f"""  %e_{n} = tensor.empty() : {t(*shape)}
  %z_{n} = linalg.fill ins(%zero : {T}) outs(%e_{n} : {t(*shape)}) -> {t(*shape)}""")
zeros("d", S, D); zeros("q", S, HQ * HD); zeros("k", S, HKV * HD); zeros("f", S, F)
def rmsnorm(n, x, g):
    w(f"""  %{n}_ss = linalg.generic {{indexing_maps = [#mat, #row], iterator_types = ["parallel", "reduction"]}}
      ins(%{x} : {t(S, D)}) outs(%zv : tensor<{S}x{T}>) {{
    ^bb0(%in: {T}, %acc: {T}):
      %sq = arith.mulf %in, %in : {T}
      %sum = arith.addf %sq, %acc : {T}
      linalg.yield %sum : {T}
  }} -> tensor<{S}x{T}>
  %{n} = linalg.generic {{indexing_maps = [#mat, #row, #col, #mat], iterator_types = ["parallel", "parallel"]}}
      ins(%{x}, %{n}_ss, %{g} : {t(S, D)}, tensor<{S}x{T}>, tensor<{D}x{T}>) outs(%e_d : {t(S, D)}) {{
    ^bb0(%in: {T}, %ss: {T}, %gain: {T}, %out: {T}):
      %ms = arith.mulf %ss, %invd : {T}
      %mse = arith.addf %ms, %eps : {T}
      %rs = math.rsqrt %mse : {T}
      %nv = arith.mulf %in, %rs : {T}
      %r = arith.mulf %nv, %gain : {T}
      linalg.yield %r : {T}
  }} -> {t(S, D)}""")
def mm(n, a, b, m, k, nn, z):
    w(f"""  %{n} = linalg.matmul ins(%{a}, %{b} : {t(m, k)}, {t(k, nn)}) outs(%z_{z} : {t(m, nn)}) -> {t(m, nn)}""")
def rope(n, x, r, c, s_, cols, z):
    mm(n + "_rot", x, r, S, cols, cols, z)
    w(f"""  %{n} = linalg.generic {{indexing_maps = [#mat, #mat, #mat, #mat, #mat], iterator_types = ["parallel", "parallel"]}}
      ins(%{x}, %{n}_rot, %{c}, %{s_} : {t(S, cols)}, {t(S, cols)}, {t(S, cols)}, {t(S, cols)}) outs(%e_{z} : {t(S, cols)}) {{
    ^bb0(%in: {T}, %rot: {T}, %cv: {T}, %sv: {T}, %out: {T}):
      %a = arith.mulf %in, %cv : {T}
      %b = arith.mulf %rot, %sv : {T}
      %r = arith.addf %a, %b : {T}
      linalg.yield %r : {T}
  }} -> {t(S, cols)}""")
rmsnorm("h", "x", "norm1")
mm("qp", "h", "Wq", S, D, HQ * HD, "q"); mm("kp", "h", "Wk", S, D, HKV * HD, "k"); mm("vp", "h", "Wv", S, D, HKV * HD, "k")
rope("qr", "qp", "Rq", "cos_q", "sin_q", HQ * HD, "q"); rope("kr", "kp", "Rk", "cos_k", "sin_k", HKV * HD, "k")
w(f"""  %qs = tensor.expand_shape %qr [[0], [1, 2]] output_shape [{S}, {HQ}, {HD}] : {t(S, HQ * HD)} into {t(S, HQ, HD)}
  %ks = tensor.expand_shape %kr [[0], [1, 2]] output_shape [{S}, {HKV}, {HD}] : {t(S, HKV * HD)} into {t(S, HKV, HD)}
  %vs = tensor.expand_shape %vp [[0], [1, 2]] output_shape [{S}, {HKV}, {HD}] : {t(S, HKV * HD)} into {t(S, HKV, HD)}
  %eqh = tensor.empty() : {t(HQ, S, HD)}
  %qh = linalg.transpose ins(%qs : {t(S, HQ, HD)}) outs(%eqh : {t(HQ, S, HD)}) permutation = [1, 0, 2]
  %qhs = linalg.generic {{indexing_maps = [#m3, #m3], iterator_types = ["parallel", "parallel", "parallel"]}}
      ins(%qh : {t(HQ, S, HD)}) outs(%eqh : {t(HQ, S, HD)}) {{
    ^bb0(%in: {T}, %out: {T}):
      %r = arith.mulf %in, %scale : {T}
      linalg.yield %r : {T}
  }} -> {t(HQ, S, HD)}
  %qg4 = tensor.expand_shape %qhs [[0, 1], [2], [3]] output_shape [{HKV}, {G}, {S}, {HD}] : {t(HQ, S, HD)} into {t(HKV, G, S, HD)}
  %qg = tensor.collapse_shape %qg4 [[0], [1, 2], [3]] : {t(HKV, G, S, HD)} into {t(HKV, G * S, HD)}
  %ekt = tensor.empty() : {t(HKV, HD, S)}
  %kt = linalg.transpose ins(%ks : {t(S, HKV, HD)}) outs(%ekt : {t(HKV, HD, S)}) permutation = [1, 2, 0]
  %evh = tensor.empty() : {t(HKV, S, HD)}
  %vh = linalg.transpose ins(%vs : {t(S, HKV, HD)}) outs(%evh : {t(HKV, S, HD)}) permutation = [1, 0, 2]
  %es = tensor.empty() : {t(HKV, G * S, S)}
  %zs = linalg.fill ins(%zero : {T}) outs(%es : {t(HKV, G * S, S)}) -> {t(HKV, G * S, S)}
  %sc = linalg.batch_matmul ins(%qg, %kt : {t(HKV, G * S, HD)}, {t(HKV, HD, S)}) outs(%zs : {t(HKV, G * S, S)}) -> {t(HKV, G * S, S)}
  %sc4 = tensor.expand_shape %sc [[0], [1, 2], [3]] output_shape [{HKV}, {G}, {S}, {S}] : {t(HKV, G * S, S)} into {t(HKV, G, S, S)}
  %es4 = tensor.empty() : {t(HKV, G, S, S)}
  %sm = linalg.generic {{indexing_maps = [#m4, #mask, #m4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}}
      ins(%sc4, %mask : {t(HKV, G, S, S)}, {t(S, S)}) outs(%es4 : {t(HKV, G, S, S)}) {{
    ^bb0(%a: {T}, %mv: {T}, %out: {T}):
      %s2 = arith.addf %a, %mv : {T}
      linalg.yield %s2 : {T}
  }} -> {t(HKV, G, S, S)}
  %p4 = linalg.softmax dimension(3) ins(%sm : {t(HKV, G, S, S)}) outs(%es4 : {t(HKV, G, S, S)}) -> {t(HKV, G, S, S)}
  %p = tensor.collapse_shape %p4 [[0], [1, 2], [3]] : {t(HKV, G, S, S)} into {t(HKV, G * S, S)}
  %eo = tensor.empty() : {t(HKV, G * S, HD)}
  %zo = linalg.fill ins(%zero : {T}) outs(%eo : {t(HKV, G * S, HD)}) -> {t(HKV, G * S, HD)}
  %og = linalg.batch_matmul ins(%p, %vh : {t(HKV, G * S, S)}, {t(HKV, S, HD)}) outs(%zo : {t(HKV, G * S, HD)}) -> {t(HKV, G * S, HD)}
  %oh = tensor.expand_shape %og [[0], [1, 2], [3]] output_shape [{HKV}, {G}, {S}, {HD}] : {t(HKV, G * S, HD)} into {t(HKV, G, S, HD)}
  %oq = tensor.collapse_shape %oh [[0, 1], [2], [3]] : {t(HKV, G, S, HD)} into {t(HQ, S, HD)}
  // A copy into a tensor of its own: tpu-compile cannot merge the dimensions of a view of a
  // view across a transposed dimension (docs/graph-ir.md), so the heads are materialised
  // before they are put back in sequence order.
  %eoq = tensor.empty() : {t(HQ, S, HD)}
  %oqc = linalg.generic {{indexing_maps = [#m3, #m3], iterator_types = ["parallel", "parallel", "parallel"]}}
      ins(%oq : {t(HQ, S, HD)}) outs(%eoq : {t(HQ, S, HD)}) {{
    ^bb0(%in: {T}, %out: {T}):
      linalg.yield %in : {T}
  }} -> {t(HQ, S, HD)}
  %eos = tensor.empty() : {t(S, HQ, HD)}
  %os = linalg.transpose ins(%oqc : {t(HQ, S, HD)}) outs(%eos : {t(S, HQ, HD)}) permutation = [1, 0, 2]
  %attn = tensor.collapse_shape %os [[0], [1, 2]] : {t(S, HQ, HD)} into {t(S, HQ * HD)}""")
mm("ao", "attn", "Wo", S, HQ * HD, D, "d")
w(f"""  %res = linalg.add ins(%x, %ao : {t(S, D)}, {t(S, D)}) outs(%e_d : {t(S, D)}) -> {t(S, D)}""")
rmsnorm("h2", "res", "norm2")
mm("g1", "h2", "W1", S, D, F, "f")
w(f"""  %silu = linalg.generic {{indexing_maps = [#mat, #mat], iterator_types = ["parallel", "parallel"]}}
      ins(%g1 : {t(S, F)}) outs(%e_f : {t(S, F)}) {{
    ^bb0(%in: {T}, %out: {T}):
      %n = arith.negf %in : {T}
      %ex = math.exp %n : {T}
      %den = arith.addf %ex, %one : {T}
      %r = arith.divf %in, %den : {T}
      linalg.yield %r : {T}
  }} -> {t(S, F)}""")
mm("g3", "h2", "W3", S, D, F, "f")
w(f"""  %gated = linalg.mul ins(%silu, %g3 : {t(S, F)}, {t(S, F)}) outs(%e_f : {t(S, F)}) -> {t(S, F)}""")
mm("down", "gated", "W2", S, F, D, "d")
w(f"""  %y = linalg.add ins(%res, %down : {t(S, D)}, {t(S, D)}) outs(%e_d : {t(S, D)}) -> {t(S, D)}
  return %y : {t(S, D)}
}}""")
print("\n".join(L))
