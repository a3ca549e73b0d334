// Multi-head self-attention: S = 100 tokens of E = 256 (bf16), H = 4 heads of D = 64.
//   Q = x Wq, K = x Wk, V = x Wv                       [S, E]  (three matmul kernels)
//   per head h: P_h = softmax(Q_h K_h^T / sqrt(D))     [H, S, S] (batch_matmul + fused softmax)
//               O_h = P_h V_h                          [H, S, D] (batch_matmul)
//   out = concat_h(O_h) Wo                             [S, E]
// The heads are views: expand_shape [S, E] -> [S, H, D] and transposes to [H, S, D]
// (K_h^T to [H, D, S]); the batch matmuls read them in place with strides, and O_h is written
// straight into the [S, E] layout the output projection reads.
#m3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#m2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @mha(%x: tensor<100x256xbf16> {graph.name = "x"},
               %wq: tensor<256x256xbf16> {graph.name = "Wq"},
               %wk: tensor<256x256xbf16> {graph.name = "Wk"},
               %wv: tensor<256x256xbf16> {graph.name = "Wv"},
               %wo: tensor<256x256xbf16> {graph.name = "Wo"})
    -> (tensor<100x256xf32> {graph.name = "out"}) {
  %zero = arith.constant 0.0 : f32
  %scale = arith.constant 0.125 : f32
  %e2 = tensor.empty() : tensor<100x256xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<100x256xf32>) -> tensor<100x256xf32>
  %eb = tensor.empty() : tensor<100x256xbf16>
  // Projections, rounded to bf16.
  %q32 = linalg.matmul ins(%x, %wq : tensor<100x256xbf16>, tensor<256x256xbf16>) outs(%z2 : tensor<100x256xf32>) -> tensor<100x256xf32>
  %q = linalg.generic {indexing_maps = [#m2, #m2], iterator_types = ["parallel", "parallel"]}
      ins(%q32 : tensor<100x256xf32>) outs(%eb : tensor<100x256xbf16>) {
    ^bb0(%a: f32, %o: bf16):
      %t = arith.truncf %a : f32 to bf16
      linalg.yield %t : bf16
  } -> tensor<100x256xbf16>
  %k32 = linalg.matmul ins(%x, %wk : tensor<100x256xbf16>, tensor<256x256xbf16>) outs(%z2 : tensor<100x256xf32>) -> tensor<100x256xf32>
  %k = linalg.generic {indexing_maps = [#m2, #m2], iterator_types = ["parallel", "parallel"]}
      ins(%k32 : tensor<100x256xf32>) outs(%eb : tensor<100x256xbf16>) {
    ^bb0(%a: f32, %o: bf16):
      %t = arith.truncf %a : f32 to bf16
      linalg.yield %t : bf16
  } -> tensor<100x256xbf16>
  %v32 = linalg.matmul ins(%x, %wv : tensor<100x256xbf16>, tensor<256x256xbf16>) outs(%z2 : tensor<100x256xf32>) -> tensor<100x256xf32>
  %v = linalg.generic {indexing_maps = [#m2, #m2], iterator_types = ["parallel", "parallel"]}
      ins(%v32 : tensor<100x256xf32>) outs(%eb : tensor<100x256xbf16>) {
    ^bb0(%a: f32, %o: bf16):
      %t = arith.truncf %a : f32 to bf16
      linalg.yield %t : bf16
  } -> tensor<100x256xbf16>
  // Heads.
  %q3 = tensor.expand_shape %q [[0], [1, 2]] output_shape [100, 4, 64] : tensor<100x256xbf16> into tensor<100x4x64xbf16>
  %k3 = tensor.expand_shape %k [[0], [1, 2]] output_shape [100, 4, 64] : tensor<100x256xbf16> into tensor<100x4x64xbf16>
  %v3 = tensor.expand_shape %v [[0], [1, 2]] output_shape [100, 4, 64] : tensor<100x256xbf16> into tensor<100x4x64xbf16>
  %eh = tensor.empty() : tensor<4x100x64xbf16>
  %qh = linalg.transpose ins(%q3 : tensor<100x4x64xbf16>) outs(%eh : tensor<4x100x64xbf16>) permutation = [1, 0, 2]
  %vh = linalg.transpose ins(%v3 : tensor<100x4x64xbf16>) outs(%eh : tensor<4x100x64xbf16>) permutation = [1, 0, 2]
  %ekt = tensor.empty() : tensor<4x64x100xbf16>
  %kht = linalg.transpose ins(%k3 : tensor<100x4x64xbf16>) outs(%ekt : tensor<4x64x100xbf16>) permutation = [1, 2, 0]
  // Scores and softmax per head.
  %es = tensor.empty() : tensor<4x100x100xf32>
  %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<4x100x100xf32>) -> tensor<4x100x100xf32>
  %s = linalg.batch_matmul ins(%qh, %kht : tensor<4x100x64xbf16>, tensor<4x64x100xbf16>) outs(%zs : tensor<4x100x100xf32>) -> tensor<4x100x100xf32>
  %ss = linalg.generic {indexing_maps = [#m3, #m3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<4x100x100xf32>) outs(%es : tensor<4x100x100xf32>) {
    ^bb0(%a: f32, %o: f32):
      %t = arith.mulf %a, %scale : f32
      linalg.yield %t : f32
  } -> tensor<4x100x100xf32>
  %p = linalg.softmax dimension(2) ins(%ss : tensor<4x100x100xf32>) outs(%es : tensor<4x100x100xf32>) -> tensor<4x100x100xf32>
  %epb = tensor.empty() : tensor<4x100x100xbf16>
  %pb = linalg.generic {indexing_maps = [#m3, #m3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%p : tensor<4x100x100xf32>) outs(%epb : tensor<4x100x100xbf16>) {
    ^bb0(%a: f32, %o: bf16):
      %t = arith.truncf %a : f32 to bf16
      linalg.yield %t : bf16
  } -> tensor<4x100x100xbf16>
  // Weighted values, back to [S, E].
  %eo = tensor.empty() : tensor<4x100x64xf32>
  %zo = linalg.fill ins(%zero : f32) outs(%eo : tensor<4x100x64xf32>) -> tensor<4x100x64xf32>
  %o32 = linalg.batch_matmul ins(%pb, %vh : tensor<4x100x100xbf16>, tensor<4x100x64xbf16>) outs(%zo : tensor<4x100x64xf32>) -> tensor<4x100x64xf32>
  %ob = tensor.empty() : tensor<4x100x64xbf16>
  %o = linalg.generic {indexing_maps = [#m3, #m3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%o32 : tensor<4x100x64xf32>) outs(%ob : tensor<4x100x64xbf16>) {
    ^bb0(%a: f32, %oo: bf16):
      %t = arith.truncf %a : f32 to bf16
      linalg.yield %t : bf16
  } -> tensor<4x100x64xbf16>
  %eot = tensor.empty() : tensor<100x4x64xbf16>
  %ot = linalg.transpose ins(%o : tensor<4x100x64xbf16>) outs(%eot : tensor<100x4x64xbf16>) permutation = [1, 0, 2]
  %oc = tensor.collapse_shape %ot [[0], [1, 2]] : tensor<100x4x64xbf16> into tensor<100x256xbf16>
  %out = linalg.matmul ins(%oc, %wo : tensor<100x256xbf16>, tensor<256x256xbf16>) outs(%z2 : tensor<100x256xf32>) -> tensor<100x256xf32>
  return %out : tensor<100x256xf32>
}
