// Scaled dot-product attention with a mask, in f16 (Spyre's native type), for the Spyre
// front end and the bundled studies: 8 heads, 512 positions, head dimension 64.
// O = softmax(Q K^T / sqrt(64) + mask) V, per head. The front end fuses the scale and mask
// into the score matmul's kernel and runs the softmax divided by rows.
//
//   spyre-compile models/graphs/spyre_attention.mlir -o out/spyre_attention
//   spyre-sim run out/spyre_attention/job.plan --timing-only
#m3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#mask = affine_map<(d0, d1, d2) -> (d1, d2)>
func.func @attention(%q: tensor<8x512x64xf16> {graph.name = "Q"}, %k: tensor<8x512x64xf16> {graph.name = "K"},
                     %v: tensor<8x512x64xf16> {graph.name = "V"}, %mask: tensor<512x512xf16> {graph.name = "mask"})
    -> (tensor<8x512x64xf16> {graph.name = "O"}) {
  %zero = arith.constant 0.0 : f16
  %scale = arith.constant 0.12500000 : f16
  %ekt = tensor.empty() : tensor<8x64x512xf16>
  %kt = linalg.transpose ins(%k : tensor<8x512x64xf16>) outs(%ekt : tensor<8x64x512xf16>) permutation = [0, 2, 1]
  %es = tensor.empty() : tensor<8x512x512xf16>
  %zs = linalg.fill ins(%zero : f16) outs(%es : tensor<8x512x512xf16>) -> tensor<8x512x512xf16>
  %sc = linalg.batch_matmul ins(%q, %kt : tensor<8x512x64xf16>, tensor<8x64x512xf16>) outs(%zs : tensor<8x512x512xf16>) -> tensor<8x512x512xf16>
  %sm = linalg.generic {indexing_maps = [#m3, #mask, #m3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%sc, %mask : tensor<8x512x512xf16>, tensor<512x512xf16>) outs(%es : tensor<8x512x512xf16>) {
    ^bb0(%a: f16, %b: f16, %o: f16):
      %t = arith.mulf %a, %scale : f16
      %u = arith.addf %t, %b : f16
      linalg.yield %u : f16
  } -> tensor<8x512x512xf16>
  %p = linalg.softmax dimension(2) ins(%sm : tensor<8x512x512xf16>) outs(%es : tensor<8x512x512xf16>) -> tensor<8x512x512xf16>
  %eo = tensor.empty() : tensor<8x512x64xf16>
  %zo = linalg.fill ins(%zero : f16) outs(%eo : tensor<8x512x64xf16>) -> tensor<8x512x64xf16>
  %o = linalg.batch_matmul ins(%p, %v : tensor<8x512x512xf16>, tensor<8x512x64xf16>) outs(%zo : tensor<8x512x64xf16>) -> tensor<8x512x64xf16>
  return %o : tensor<8x512x64xf16>
}
