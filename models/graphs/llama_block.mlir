// A LLaMA-style block (d=1024, 8 query heads sharing 2 key/value heads, sequence 128):
// RMSNorm, rotary embedding, grouped-query attention with a causal mask, SwiGLU. In bf16,
// for both spyre-compile and tpu-compile. The rotary embedding is x cos + rotate_half(x) sin
// with rotate_half as a product with R (block-diagonal, one [[0, I], [-I, 0]] per head) and
// cos, sin given per position and column; each group of 4 query heads is stacked along the
// rows ([2, 4x128, 128], scaled by 1/sqrt(128) on the way) so its scores are one batch
// matmul with its key head.
//
//   spyre-compile models/graphs/llama_block.mlir -o out/llama --dump-dir out/llama-dump
//   tpu-compile models/graphs/llama_block.mlir -o out/llama-tpu
#mat = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
#m3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#m4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#mask = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
func.func @llama_block(%x: tensor<128x1024xbf16> {graph.name = "x"},
    %norm1: tensor<1024xbf16> {graph.name = "norm1"},
    %Wq: tensor<1024x1024xbf16> {graph.name = "Wq"},
    %Wk: tensor<1024x256xbf16> {graph.name = "Wk"},
    %Wv: tensor<1024x256xbf16> {graph.name = "Wv"},
    %Rq: tensor<1024x1024xbf16> {graph.name = "Rq"},
    %Rk: tensor<256x256xbf16> {graph.name = "Rk"},
    %cos_q: tensor<128x1024xbf16> {graph.name = "cos_q"},
    %sin_q: tensor<128x1024xbf16> {graph.name = "sin_q"},
    %cos_k: tensor<128x256xbf16> {graph.name = "cos_k"},
    %sin_k: tensor<128x256xbf16> {graph.name = "sin_k"},
    %Wo: tensor<1024x1024xbf16> {graph.name = "Wo"},
    %norm2: tensor<1024xbf16> {graph.name = "norm2"},
    %W1: tensor<1024x2816xbf16> {graph.name = "W1"},
    %W3: tensor<1024x2816xbf16> {graph.name = "W3"},
    %W2: tensor<2816x1024xbf16> {graph.name = "W2"},
    %mask: tensor<128x128xbf16> {graph.name = "mask"})
    -> (tensor<128x1024xbf16> {graph.name = "y"}) {
  %zero = arith.constant 0.0 : bf16
  %one = arith.constant 1.0 : bf16
  %invd = arith.constant 9.7656250000e-04 : bf16
  %eps = arith.constant 1.0e-5 : bf16
  %scale = arith.constant 0.08838835 : bf16
  %ev = tensor.empty() : tensor<128xbf16>
  %zv = linalg.fill ins(%zero : bf16) outs(%ev : tensor<128xbf16>) -> tensor<128xbf16>
  %e_d = tensor.empty() : tensor<128x1024xbf16>
  %z_d = linalg.fill ins(%zero : bf16) outs(%e_d : tensor<128x1024xbf16>) -> tensor<128x1024xbf16>
  %e_q = tensor.empty() : tensor<128x1024xbf16>
  %z_q = linalg.fill ins(%zero : bf16) outs(%e_q : tensor<128x1024xbf16>) -> tensor<128x1024xbf16>
  %e_k = tensor.empty() : tensor<128x256xbf16>
  %z_k = linalg.fill ins(%zero : bf16) outs(%e_k : tensor<128x256xbf16>) -> tensor<128x256xbf16>
  %e_f = tensor.empty() : tensor<128x2816xbf16>
  %z_f = linalg.fill ins(%zero : bf16) outs(%e_f : tensor<128x2816xbf16>) -> tensor<128x2816xbf16>
  %h_ss = linalg.generic {indexing_maps = [#mat, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<128x1024xbf16>) outs(%zv : tensor<128xbf16>) {
    ^bb0(%in: bf16, %acc: bf16):
      %sq = arith.mulf %in, %in : bf16
      %sum = arith.addf %sq, %acc : bf16
      linalg.yield %sum : bf16
  } -> tensor<128xbf16>
  %h = linalg.generic {indexing_maps = [#mat, #row, #col, #mat], iterator_types = ["parallel", "parallel"]}
      ins(%x, %h_ss, %norm1 : tensor<128x1024xbf16>, tensor<128xbf16>, tensor<1024xbf16>) outs(%e_d : tensor<128x1024xbf16>) {
    ^bb0(%in: bf16, %ss: bf16, %gain: bf16, %out: bf16):
      %ms = arith.mulf %ss, %invd : bf16
      %mse = arith.addf %ms, %eps : bf16
      %rs = math.rsqrt %mse : bf16
      %nv = arith.mulf %in, %rs : bf16
      %r = arith.mulf %nv, %gain : bf16
      linalg.yield %r : bf16
  } -> tensor<128x1024xbf16>
  %qp = linalg.matmul ins(%h, %Wq : tensor<128x1024xbf16>, tensor<1024x1024xbf16>) outs(%z_q : tensor<128x1024xbf16>) -> tensor<128x1024xbf16>
  %kp = linalg.matmul ins(%h, %Wk : tensor<128x1024xbf16>, tensor<1024x256xbf16>) outs(%z_k : tensor<128x256xbf16>) -> tensor<128x256xbf16>
  %vp = linalg.matmul ins(%h, %Wv : tensor<128x1024xbf16>, tensor<1024x256xbf16>) outs(%z_k : tensor<128x256xbf16>) -> tensor<128x256xbf16>
  %qr_rot = linalg.matmul ins(%qp, %Rq : tensor<128x1024xbf16>, tensor<1024x1024xbf16>) outs(%z_q : tensor<128x1024xbf16>) -> tensor<128x1024xbf16>
  %qr = linalg.generic {indexing_maps = [#mat, #mat, #mat, #mat, #mat], iterator_types = ["parallel", "parallel"]}
      ins(%qp, %qr_rot, %cos_q, %sin_q : tensor<128x1024xbf16>, tensor<128x1024xbf16>, tensor<128x1024xbf16>, tensor<128x1024xbf16>) outs(%e_q : tensor<128x1024xbf16>) {
    ^bb0(%in: bf16, %rot: bf16, %cv: bf16, %sv: bf16, %out: bf16):
      %a = arith.mulf %in, %cv : bf16
      %b = arith.mulf %rot, %sv : bf16
      %r = arith.addf %a, %b : bf16
      linalg.yield %r : bf16
  } -> tensor<128x1024xbf16>
  %kr_rot = linalg.matmul ins(%kp, %Rk : tensor<128x256xbf16>, tensor<256x256xbf16>) outs(%z_k : tensor<128x256xbf16>) -> tensor<128x256xbf16>
  %kr = linalg.generic {indexing_maps = [#mat, #mat, #mat, #mat, #mat], iterator_types = ["parallel", "parallel"]}
      ins(%kp, %kr_rot, %cos_k, %sin_k : tensor<128x256xbf16>, tensor<128x256xbf16>, tensor<128x256xbf16>, tensor<128x256xbf16>) outs(%e_k : tensor<128x256xbf16>) {
    ^bb0(%in: bf16, %rot: bf16, %cv: bf16, %sv: bf16, %out: bf16):
      %a = arith.mulf %in, %cv : bf16
      %b = arith.mulf %rot, %sv : bf16
      %r = arith.addf %a, %b : bf16
      linalg.yield %r : bf16
  } -> tensor<128x256xbf16>
  %qs = tensor.expand_shape %qr [[0], [1, 2]] output_shape [128, 8, 128] : tensor<128x1024xbf16> into tensor<128x8x128xbf16>
  %ks = tensor.expand_shape %kr [[0], [1, 2]] output_shape [128, 2, 128] : tensor<128x256xbf16> into tensor<128x2x128xbf16>
  %vs = tensor.expand_shape %vp [[0], [1, 2]] output_shape [128, 2, 128] : tensor<128x256xbf16> into tensor<128x2x128xbf16>
  %eqh = tensor.empty() : tensor<8x128x128xbf16>
  %qh = linalg.transpose ins(%qs : tensor<128x8x128xbf16>) outs(%eqh : tensor<8x128x128xbf16>) permutation = [1, 0, 2]
  %qhs = linalg.generic {indexing_maps = [#m3, #m3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%qh : tensor<8x128x128xbf16>) outs(%eqh : tensor<8x128x128xbf16>) {
    ^bb0(%in: bf16, %out: bf16):
      %r = arith.mulf %in, %scale : bf16
      linalg.yield %r : bf16
  } -> tensor<8x128x128xbf16>
  %qg4 = tensor.expand_shape %qhs [[0, 1], [2], [3]] output_shape [2, 4, 128, 128] : tensor<8x128x128xbf16> into tensor<2x4x128x128xbf16>
  %qg = tensor.collapse_shape %qg4 [[0], [1, 2], [3]] : tensor<2x4x128x128xbf16> into tensor<2x512x128xbf16>
  %ekt = tensor.empty() : tensor<2x128x128xbf16>
  %kt = linalg.transpose ins(%ks : tensor<128x2x128xbf16>) outs(%ekt : tensor<2x128x128xbf16>) permutation = [1, 2, 0]
  %evh = tensor.empty() : tensor<2x128x128xbf16>
  %vh = linalg.transpose ins(%vs : tensor<128x2x128xbf16>) outs(%evh : tensor<2x128x128xbf16>) permutation = [1, 0, 2]
  %es = tensor.empty() : tensor<2x512x128xbf16>
  %zs = linalg.fill ins(%zero : bf16) outs(%es : tensor<2x512x128xbf16>) -> tensor<2x512x128xbf16>
  %sc = linalg.batch_matmul ins(%qg, %kt : tensor<2x512x128xbf16>, tensor<2x128x128xbf16>) outs(%zs : tensor<2x512x128xbf16>) -> tensor<2x512x128xbf16>
  %sc4 = tensor.expand_shape %sc [[0], [1, 2], [3]] output_shape [2, 4, 128, 128] : tensor<2x512x128xbf16> into tensor<2x4x128x128xbf16>
  %es4 = tensor.empty() : tensor<2x4x128x128xbf16>
  %sm = linalg.generic {indexing_maps = [#m4, #mask, #m4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%sc4, %mask : tensor<2x4x128x128xbf16>, tensor<128x128xbf16>) outs(%es4 : tensor<2x4x128x128xbf16>) {
    ^bb0(%a: bf16, %mv: bf16, %out: bf16):
      %s2 = arith.addf %a, %mv : bf16
      linalg.yield %s2 : bf16
  } -> tensor<2x4x128x128xbf16>
  %p4 = linalg.softmax dimension(3) ins(%sm : tensor<2x4x128x128xbf16>) outs(%es4 : tensor<2x4x128x128xbf16>) -> tensor<2x4x128x128xbf16>
  %p = tensor.collapse_shape %p4 [[0], [1, 2], [3]] : tensor<2x4x128x128xbf16> into tensor<2x512x128xbf16>
  %eo = tensor.empty() : tensor<2x512x128xbf16>
  %zo = linalg.fill ins(%zero : bf16) outs(%eo : tensor<2x512x128xbf16>) -> tensor<2x512x128xbf16>
  %og = linalg.batch_matmul ins(%p, %vh : tensor<2x512x128xbf16>, tensor<2x128x128xbf16>) outs(%zo : tensor<2x512x128xbf16>) -> tensor<2x512x128xbf16>
  %oh = tensor.expand_shape %og [[0], [1, 2], [3]] output_shape [2, 4, 128, 128] : tensor<2x512x128xbf16> into tensor<2x4x128x128xbf16>
  %oq = tensor.collapse_shape %oh [[0, 1], [2], [3]] : tensor<2x4x128x128xbf16> into tensor<8x128x128xbf16>
  // A copy into a tensor of its own: tpu-compile cannot merge the dimensions of a view of a
  // view across a transposed dimension (docs/graph-ir.md), so the heads are materialised
  // before they are put back in sequence order.
  %eoq = tensor.empty() : tensor<8x128x128xbf16>
  %oqc = linalg.generic {indexing_maps = [#m3, #m3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%oq : tensor<8x128x128xbf16>) outs(%eoq : tensor<8x128x128xbf16>) {
    ^bb0(%in: bf16, %out: bf16):
      linalg.yield %in : bf16
  } -> tensor<8x128x128xbf16>
  %eos = tensor.empty() : tensor<128x8x128xbf16>
  %os = linalg.transpose ins(%oqc : tensor<8x128x128xbf16>) outs(%eos : tensor<128x8x128xbf16>) permutation = [1, 0, 2]
  %attn = tensor.collapse_shape %os [[0], [1, 2]] : tensor<128x8x128xbf16> into tensor<128x1024xbf16>
  %ao = linalg.matmul ins(%attn, %Wo : tensor<128x1024xbf16>, tensor<1024x1024xbf16>) outs(%z_d : tensor<128x1024xbf16>) -> tensor<128x1024xbf16>
  %res = linalg.add ins(%x, %ao : tensor<128x1024xbf16>, tensor<128x1024xbf16>) outs(%e_d : tensor<128x1024xbf16>) -> tensor<128x1024xbf16>
  %h2_ss = linalg.generic {indexing_maps = [#mat, #row], iterator_types = ["parallel", "reduction"]}
      ins(%res : tensor<128x1024xbf16>) outs(%zv : tensor<128xbf16>) {
    ^bb0(%in: bf16, %acc: bf16):
      %sq = arith.mulf %in, %in : bf16
      %sum = arith.addf %sq, %acc : bf16
      linalg.yield %sum : bf16
  } -> tensor<128xbf16>
  %h2 = linalg.generic {indexing_maps = [#mat, #row, #col, #mat], iterator_types = ["parallel", "parallel"]}
      ins(%res, %h2_ss, %norm2 : tensor<128x1024xbf16>, tensor<128xbf16>, tensor<1024xbf16>) outs(%e_d : tensor<128x1024xbf16>) {
    ^bb0(%in: bf16, %ss: bf16, %gain: bf16, %out: bf16):
      %ms = arith.mulf %ss, %invd : bf16
      %mse = arith.addf %ms, %eps : bf16
      %rs = math.rsqrt %mse : bf16
      %nv = arith.mulf %in, %rs : bf16
      %r = arith.mulf %nv, %gain : bf16
      linalg.yield %r : bf16
  } -> tensor<128x1024xbf16>
  %g1 = linalg.matmul ins(%h2, %W1 : tensor<128x1024xbf16>, tensor<1024x2816xbf16>) outs(%z_f : tensor<128x2816xbf16>) -> tensor<128x2816xbf16>
  %silu = linalg.generic {indexing_maps = [#mat, #mat], iterator_types = ["parallel", "parallel"]}
      ins(%g1 : tensor<128x2816xbf16>) outs(%e_f : tensor<128x2816xbf16>) {
    ^bb0(%in: bf16, %out: bf16):
      %n = arith.negf %in : bf16
      %ex = math.exp %n : bf16
      %den = arith.addf %ex, %one : bf16
      %r = arith.divf %in, %den : bf16
      linalg.yield %r : bf16
  } -> tensor<128x2816xbf16>
  %g3 = linalg.matmul ins(%h2, %W3 : tensor<128x1024xbf16>, tensor<1024x2816xbf16>) outs(%z_f : tensor<128x2816xbf16>) -> tensor<128x2816xbf16>
  %gated = linalg.mul ins(%silu, %g3 : tensor<128x2816xbf16>, tensor<128x2816xbf16>) outs(%e_f : tensor<128x2816xbf16>) -> tensor<128x2816xbf16>
  %down = linalg.matmul ins(%gated, %W2 : tensor<128x2816xbf16>, tensor<2816x1024xbf16>) outs(%z_d : tensor<128x1024xbf16>) -> tensor<128x1024xbf16>
  %y = linalg.add ins(%res, %down : tensor<128x1024xbf16>, tensor<128x1024xbf16>) outs(%e_d : tensor<128x1024xbf16>) -> tensor<128x1024xbf16>
  return %y : tensor<128x1024xbf16>
}
