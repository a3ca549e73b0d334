// Single-head attention: O = softmax(Q K^T / sqrt(D)) V for S = 100 queries and keys of
// D = 64 (bf16). K^T is a linalg.transpose the matmul reads in place (folds with transposed
// weights, mxu.matmul.nt); the scale and the softmax are fused after the first matmul.
#mat = affine_map<(d0, d1) -> (d0, d1)>
func.func @attention(%q: tensor<100x64xbf16> {graph.name = "Q"},
                     %k: tensor<100x64xbf16> {graph.name = "K"},
                     %v: tensor<100x64xbf16> {graph.name = "V"})
    -> (tensor<100x64xf32> {graph.name = "O"}) {
  %zero = arith.constant 0.0 : f32
  %scale = arith.constant 0.125 : f32
  %ekt = tensor.empty() : tensor<64x100xbf16>
  %kt = linalg.transpose ins(%k : tensor<100x64xbf16>) outs(%ekt : tensor<64x100xbf16>)
                         permutation = [1, 0]
  %es = tensor.empty() : tensor<100x100xf32>
  %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<100x100xf32>) -> tensor<100x100xf32>
  %s = linalg.matmul ins(%q, %kt : tensor<100x64xbf16>, tensor<64x100xbf16>)
                     outs(%zs : tensor<100x100xf32>) -> tensor<100x100xf32>
  %ss = linalg.generic {indexing_maps = [#mat, #mat], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<100x100xf32>) outs(%es : tensor<100x100xf32>) {
    ^bb0(%a: f32, %o: f32):
      %t = arith.mulf %a, %scale : f32
      linalg.yield %t : f32
  } -> tensor<100x100xf32>
  %p = linalg.softmax dimension(1) ins(%ss : tensor<100x100xf32>)
                                   outs(%es : tensor<100x100xf32>) -> tensor<100x100xf32>
  %epb = tensor.empty() : tensor<100x100xbf16>
  %pb = linalg.generic {indexing_maps = [#mat, #mat], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<100x100xf32>) outs(%epb : tensor<100x100xbf16>) {
    ^bb0(%a: f32, %o: bf16):
      %t = arith.truncf %a : f32 to bf16
      linalg.yield %t : bf16
  } -> tensor<100x100xbf16>
  %eo = tensor.empty() : tensor<100x64xf32>
  %zo = linalg.fill ins(%zero : f32) outs(%eo : tensor<100x64xf32>) -> tensor<100x64xf32>
  %o = linalg.matmul ins(%pb, %v : tensor<100x100xbf16>, tensor<100x64xbf16>)
                     outs(%zo : tensor<100x64xf32>) -> tensor<100x64xf32>
  return %o : tensor<100x64xf32>
}
