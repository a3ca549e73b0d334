// A two-layer MLP with the exact GELU (erf form) between the layers:
//   h = gelu(x @ W1 + b1) (kept in bf16), y = h @ W2 + b2.
// gelu(v) = 0.5 v (1 + erf(v / sqrt(2))); math.erf is evaluated on the VPU as a polynomial
// (Abramowitz and Stegun 7.1.26, |error| <= 1.5e-7). The second layer's bias is added with a
// linalg.broadcast and linalg.add, as a front end may emit it.
#mat = affine_map<(d0, d1) -> (d0, d1)>
#vec = affine_map<(d0, d1) -> (d1)>
func.func @mlp_erf(%x: tensor<64x256xbf16> {graph.name = "x"},
               %w1: tensor<256x1024xbf16> {graph.name = "W1"},
               %b1: tensor<1024xf32> {graph.name = "b1"},
               %w2: tensor<1024x256xbf16> {graph.name = "W2"},
               %b2: tensor<256xf32> {graph.name = "b2"})
    -> (tensor<64x256xf32> {graph.name = "y"}) {
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  %rsqrt2 = arith.constant 0.70710678118 : f32
  %e1 = tensor.empty() : tensor<64x1024xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<64x1024xf32>) -> tensor<64x1024xf32>
  %m1 = linalg.matmul ins(%x, %w1 : tensor<64x256xbf16>, tensor<256x1024xbf16>)
                      outs(%z1 : tensor<64x1024xf32>) -> tensor<64x1024xf32>
  %eh = tensor.empty() : tensor<64x1024xbf16>
  %h = linalg.generic {indexing_maps = [#mat, #vec, #mat], iterator_types = ["parallel", "parallel"]}
      ins(%m1, %b1 : tensor<64x1024xf32>, tensor<1024xf32>) outs(%eh : tensor<64x1024xbf16>) {
    ^bb0(%a: f32, %b: f32, %o: bf16):
      %v = arith.addf %a, %b : f32
      %t2 = arith.mulf %v, %rsqrt2 : f32
      %t3 = math.erf %t2 : f32
      %t4 = arith.addf %t3, %one : f32
      %t5 = arith.mulf %v, %t4 : f32
      %g = arith.mulf %t5, %half : f32
      %gb = arith.truncf %g : f32 to bf16
      linalg.yield %gb : bf16
  } -> tensor<64x1024xbf16>
  %e2 = tensor.empty() : tensor<64x256xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<64x256xf32>) -> tensor<64x256xf32>
  %m2 = linalg.matmul ins(%h, %w2 : tensor<64x1024xbf16>, tensor<1024x256xbf16>)
                      outs(%z2 : tensor<64x256xf32>) -> tensor<64x256xf32>
  %b2bc = linalg.broadcast ins(%b2 : tensor<256xf32>) outs(%e2 : tensor<64x256xf32>) dimensions = [0]
  %y = linalg.add ins(%m2, %b2bc : tensor<64x256xf32>, tensor<64x256xf32>)
                  outs(%e2 : tensor<64x256xf32>) -> tensor<64x256xf32>
  return %y : tensor<64x256xf32>
}
