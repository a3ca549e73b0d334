// A BERT encoder layer (d=768, 12 heads, sequence 128, an additive attention mask as an
// input: 0 where a key may be attended, -10000 where it is padding), in bf16 so that it
// compiles for both chips: spyre-compile (the Spyre front end, docs/frontend.md) and
// tpu-compile (docs/graph-ir.md). Post-norm: a = LN1(x + Attn(x)); y = LN2(a + FFN(a)),
// FFN = GELU (the exact erf form) between two linear layers of 4d.
//
//   spyre-compile models/graphs/bert_layer.mlir -o out/bert --dump-dir out/bert-dump
//   tpu-compile models/graphs/bert_layer.mlir -o out/bert-tpu
#mat = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
#m3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#mask = affine_map<(d0, d1, d2) -> (d1, d2)>
func.func @bert_layer(%x: tensor<128x768xbf16> {graph.name = "x"},
    %ln1_g: tensor<768xbf16> {graph.name = "ln1_g"},
    %ln1_b: tensor<768xbf16> {graph.name = "ln1_b"},
    %Wq: tensor<768x768xbf16> {graph.name = "Wq"},
    %bq: tensor<768xbf16> {graph.name = "bq"},
    %Wk: tensor<768x768xbf16> {graph.name = "Wk"},
    %bk: tensor<768xbf16> {graph.name = "bk"},
    %Wv: tensor<768x768xbf16> {graph.name = "Wv"},
    %bv: tensor<768xbf16> {graph.name = "bv"},
    %Wo: tensor<768x768xbf16> {graph.name = "Wo"},
    %bo: tensor<768xbf16> {graph.name = "bo"},
    %ln2_g: tensor<768xbf16> {graph.name = "ln2_g"},
    %ln2_b: tensor<768xbf16> {graph.name = "ln2_b"},
    %W1: tensor<768x3072xbf16> {graph.name = "W1"},
    %b1: tensor<3072xbf16> {graph.name = "b1"},
    %W2: tensor<3072x768xbf16> {graph.name = "W2"},
    %b2: tensor<768xbf16> {graph.name = "b2"},
    %mask: tensor<128x128xbf16> {graph.name = "mask"})
    -> (tensor<128x768xbf16> {graph.name = "y"}) {
  %zero = arith.constant 0.0 : bf16
  %one = arith.constant 1.0 : bf16
  %half = arith.constant 0.5 : bf16
  %invd = arith.constant 1.3020833333e-03 : bf16
  %eps = arith.constant 1.0e-5 : bf16
  %scale = arith.constant 0.12500000 : bf16
  %g0 = arith.constant 0.7978845608 : bf16
  %g1 = arith.constant 0.044715 : bf16
  %rsqrt2 = arith.constant 0.70710678 : bf16
  %ev = tensor.empty() : tensor<128xbf16>
  %zv = linalg.fill ins(%zero : bf16) outs(%ev : tensor<128xbf16>) -> tensor<128xbf16>
  %ed = tensor.empty() : tensor<128x768xbf16>
  %zd = linalg.fill ins(%zero : bf16) outs(%ed : tensor<128x768xbf16>) -> tensor<128x768xbf16>
  %ef = tensor.empty() : tensor<128x3072xbf16>
  %zf = linalg.fill ins(%zero : bf16) outs(%ef : tensor<128x3072xbf16>) -> tensor<128x3072xbf16>
  %qp_mm = linalg.matmul ins(%x, %Wq : tensor<128x768xbf16>, tensor<768x768xbf16>) outs(%zd : tensor<128x768xbf16>) -> tensor<128x768xbf16>
  %qp = linalg.generic {indexing_maps = [#mat, #col, #mat], iterator_types = ["parallel", "parallel"]}
      ins(%qp_mm, %bq : tensor<128x768xbf16>, tensor<768xbf16>) outs(%ed : tensor<128x768xbf16>) {
    ^bb0(%a: bf16, %bb: bf16, %out: bf16):
      %v = arith.addf %a, %bb : bf16
      linalg.yield %v : bf16
  } -> tensor<128x768xbf16>
  %kp_mm = linalg.matmul ins(%x, %Wk : tensor<128x768xbf16>, tensor<768x768xbf16>) outs(%zd : tensor<128x768xbf16>) -> tensor<128x768xbf16>
  %kp = linalg.generic {indexing_maps = [#mat, #col, #mat], iterator_types = ["parallel", "parallel"]}
      ins(%kp_mm, %bk : tensor<128x768xbf16>, tensor<768xbf16>) outs(%ed : tensor<128x768xbf16>) {
    ^bb0(%a: bf16, %bb: bf16, %out: bf16):
      %v = arith.addf %a, %bb : bf16
      linalg.yield %v : bf16
  } -> tensor<128x768xbf16>
  %vp_mm = linalg.matmul ins(%x, %Wv : tensor<128x768xbf16>, tensor<768x768xbf16>) outs(%zd : tensor<128x768xbf16>) -> tensor<128x768xbf16>
  %vp = linalg.generic {indexing_maps = [#mat, #col, #mat], iterator_types = ["parallel", "parallel"]}
      ins(%vp_mm, %bv : tensor<128x768xbf16>, tensor<768xbf16>) outs(%ed : tensor<128x768xbf16>) {
    ^bb0(%a: bf16, %bb: bf16, %out: bf16):
      %v = arith.addf %a, %bb : bf16
      linalg.yield %v : bf16
  } -> tensor<128x768xbf16>
  %qs = tensor.expand_shape %qp [[0], [1, 2]] output_shape [128, 12, 64] : tensor<128x768xbf16> into tensor<128x12x64xbf16>
  %ks = tensor.expand_shape %kp [[0], [1, 2]] output_shape [128, 12, 64] : tensor<128x768xbf16> into tensor<128x12x64xbf16>
  %vs = tensor.expand_shape %vp [[0], [1, 2]] output_shape [128, 12, 64] : tensor<128x768xbf16> into tensor<128x12x64xbf16>
  %eh = tensor.empty() : tensor<12x128x64xbf16>
  %qh = linalg.transpose ins(%qs : tensor<128x12x64xbf16>) outs(%eh : tensor<12x128x64xbf16>) permutation = [1, 0, 2]
  %vh = linalg.transpose ins(%vs : tensor<128x12x64xbf16>) outs(%eh : tensor<12x128x64xbf16>) permutation = [1, 0, 2]
  %ekt = tensor.empty() : tensor<12x64x128xbf16>
  %kt = linalg.transpose ins(%ks : tensor<128x12x64xbf16>) outs(%ekt : tensor<12x64x128xbf16>) permutation = [1, 2, 0]
  %es = tensor.empty() : tensor<12x128x128xbf16>
  %zs = linalg.fill ins(%zero : bf16) outs(%es : tensor<12x128x128xbf16>) -> tensor<12x128x128xbf16>
  %sc = linalg.batch_matmul ins(%qh, %kt : tensor<12x128x64xbf16>, tensor<12x64x128xbf16>) outs(%zs : tensor<12x128x128xbf16>) -> tensor<12x128x128xbf16>
  %sm = linalg.generic {indexing_maps = [#m3, #mask, #m3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%sc, %mask : tensor<12x128x128xbf16>, tensor<128x128xbf16>) outs(%es : tensor<12x128x128xbf16>) {
    ^bb0(%a: bf16, %mv: bf16, %out: bf16):
      %s1 = arith.mulf %a, %scale : bf16
      %s2 = arith.addf %s1, %mv : bf16
      linalg.yield %s2 : bf16
  } -> tensor<12x128x128xbf16>
  %p = linalg.softmax dimension(2) ins(%sm : tensor<12x128x128xbf16>) outs(%es : tensor<12x128x128xbf16>) -> tensor<12x128x128xbf16>
  %eo = tensor.empty() : tensor<12x128x64xbf16>
  %zo = linalg.fill ins(%zero : bf16) outs(%eo : tensor<12x128x64xbf16>) -> tensor<12x128x64xbf16>
  %oh = linalg.batch_matmul ins(%p, %vh : tensor<12x128x128xbf16>, tensor<12x128x64xbf16>) outs(%zo : tensor<12x128x64xbf16>) -> tensor<12x128x64xbf16>
  %eo2 = tensor.empty() : tensor<128x12x64xbf16>
  %o3 = linalg.transpose ins(%oh : tensor<12x128x64xbf16>) outs(%eo2 : tensor<128x12x64xbf16>) permutation = [1, 0, 2]
  %attn = tensor.collapse_shape %o3 [[0], [1, 2]] : tensor<128x12x64xbf16> into tensor<128x768xbf16>
  %res_mm = linalg.matmul ins(%attn, %Wo : tensor<128x768xbf16>, tensor<768x768xbf16>) outs(%zd : tensor<128x768xbf16>) -> tensor<128x768xbf16>
  %res = linalg.generic {indexing_maps = [#mat, #col, #mat, #mat], iterator_types = ["parallel", "parallel"]}
      ins(%res_mm, %bo, %x : tensor<128x768xbf16>, tensor<768xbf16>, tensor<128x768xbf16>) outs(%ed : tensor<128x768xbf16>) {
    ^bb0(%a: bf16, %bb: bf16, %rr: bf16, %out: bf16):
      %v = arith.addf %a, %bb : bf16
      %rv = arith.addf %v, %rr : bf16
      linalg.yield %rv : bf16
  } -> tensor<128x768xbf16>
  %ln_a_sum = linalg.reduce { arith.addf } ins(%res : tensor<128x768xbf16>) outs(%zv : tensor<128xbf16>) dimensions = [1]
  %ln_a_c = linalg.generic {indexing_maps = [#mat, #row, #mat], iterator_types = ["parallel", "parallel"]}
      ins(%res, %ln_a_sum : tensor<128x768xbf16>, tensor<128xbf16>) outs(%ed : tensor<128x768xbf16>) {
    ^bb0(%v: bf16, %s: bf16, %out: bf16):
      %m = arith.mulf %s, %invd : bf16
      %r = arith.subf %v, %m : bf16
      linalg.yield %r : bf16
  } -> tensor<128x768xbf16>
  %ln_a_ssq = linalg.generic {indexing_maps = [#mat, #row], iterator_types = ["parallel", "reduction"]}
      ins(%ln_a_c : tensor<128x768xbf16>) outs(%zv : tensor<128xbf16>) {
    ^bb0(%v: bf16, %acc: bf16):
      %q = arith.mulf %v, %v : bf16
      %r = arith.addf %q, %acc : bf16
      linalg.yield %r : bf16
  } -> tensor<128xbf16>
  %ln_a = linalg.generic {indexing_maps = [#mat, #row, #col, #col, #mat], iterator_types = ["parallel", "parallel"]}
      ins(%ln_a_c, %ln_a_ssq, %ln1_g, %ln1_b : tensor<128x768xbf16>, tensor<128xbf16>, tensor<768xbf16>, tensor<768xbf16>) outs(%ed : tensor<128x768xbf16>) {
    ^bb0(%v: bf16, %q: bf16, %gamma: bf16, %beta: bf16, %out: bf16):
      %var = arith.mulf %q, %invd : bf16
      %ve = arith.addf %var, %eps : bf16
      %rs = math.rsqrt %ve : bf16
      %nv = arith.mulf %v, %rs : bf16
      %sv = arith.mulf %nv, %gamma : bf16
      %r = arith.addf %sv, %beta : bf16
      linalg.yield %r : bf16
  } -> tensor<128x768xbf16>
  %f_mm = linalg.matmul ins(%ln_a, %W1 : tensor<128x768xbf16>, tensor<768x3072xbf16>) outs(%zf : tensor<128x3072xbf16>) -> tensor<128x3072xbf16>
  %f = linalg.generic {indexing_maps = [#mat, #col, #mat], iterator_types = ["parallel", "parallel"]}
      ins(%f_mm, %b1 : tensor<128x3072xbf16>, tensor<3072xbf16>) outs(%ef : tensor<128x3072xbf16>) {
    ^bb0(%a: bf16, %bb: bf16, %out: bf16):
      %v = arith.addf %a, %bb : bf16
      %t0 = arith.mulf %v, %rsqrt2 : bf16
      %t3 = math.erf %t0 : bf16
      %t4 = arith.addf %t3, %one : bf16
      %t5 = arith.mulf %v, %t4 : bf16
      %gl = arith.mulf %t5, %half : bf16
      linalg.yield %gl : bf16
  } -> tensor<128x3072xbf16>
  %res2_mm = linalg.matmul ins(%f, %W2 : tensor<128x3072xbf16>, tensor<3072x768xbf16>) outs(%zd : tensor<128x768xbf16>) -> tensor<128x768xbf16>
  %res2 = linalg.generic {indexing_maps = [#mat, #col, #mat, #mat], iterator_types = ["parallel", "parallel"]}
      ins(%res2_mm, %b2, %ln_a : tensor<128x768xbf16>, tensor<768xbf16>, tensor<128x768xbf16>) outs(%ed : tensor<128x768xbf16>) {
    ^bb0(%a: bf16, %bb: bf16, %rr: bf16, %out: bf16):
      %v = arith.addf %a, %bb : bf16
      %rv = arith.addf %v, %rr : bf16
      linalg.yield %rv : bf16
  } -> tensor<128x768xbf16>
  %y_sum = linalg.reduce { arith.addf } ins(%res2 : tensor<128x768xbf16>) outs(%zv : tensor<128xbf16>) dimensions = [1]
  %y_c = linalg.generic {indexing_maps = [#mat, #row, #mat], iterator_types = ["parallel", "parallel"]}
      ins(%res2, %y_sum : tensor<128x768xbf16>, tensor<128xbf16>) outs(%ed : tensor<128x768xbf16>) {
    ^bb0(%v: bf16, %s: bf16, %out: bf16):
      %m = arith.mulf %s, %invd : bf16
      %r = arith.subf %v, %m : bf16
      linalg.yield %r : bf16
  } -> tensor<128x768xbf16>
  %y_ssq = linalg.generic {indexing_maps = [#mat, #row], iterator_types = ["parallel", "reduction"]}
      ins(%y_c : tensor<128x768xbf16>) outs(%zv : tensor<128xbf16>) {
    ^bb0(%v: bf16, %acc: bf16):
      %q = arith.mulf %v, %v : bf16
      %r = arith.addf %q, %acc : bf16
      linalg.yield %r : bf16
  } -> tensor<128xbf16>
  %y = linalg.generic {indexing_maps = [#mat, #row, #col, #col, #mat], iterator_types = ["parallel", "parallel"]}
      ins(%y_c, %y_ssq, %ln2_g, %ln2_b : tensor<128x768xbf16>, tensor<128xbf16>, tensor<768xbf16>, tensor<768xbf16>) outs(%ed : tensor<128x768xbf16>) {
    ^bb0(%v: bf16, %q: bf16, %gamma: bf16, %beta: bf16, %out: bf16):
      %var = arith.mulf %q, %invd : bf16
      %ve = arith.addf %var, %eps : bf16
      %rs = math.rsqrt %ve : bf16
      %nv = arith.mulf %v, %rs : bf16
      %sv = arith.mulf %nv, %gamma : bf16
      %r = arith.addf %sv, %beta : bf16
      linalg.yield %r : bf16
  } -> tensor<128x768xbf16>
  return %y : tensor<128x768xbf16>
}
