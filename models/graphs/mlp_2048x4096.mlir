// The MLP of mlp_gelu.mlir at a transformer layer's size (T = 2048 tokens, D = 4096, hidden
// 4D = 16384): h = gelu(x @ W1 + b1) (bf16), y = h @ W2 + b2; 2 x 2 x 2048 x 4096 x 16384
// = 550 GFLOP. Used by bench/tpu_sim_bench.cpp (simulator speed and MXU utilisation).
#mat = affine_map<(d0, d1) -> (d0, d1)>
#vec = affine_map<(d0, d1) -> (d1)>
func.func @mlp(%x: tensor<2048x4096xbf16> {graph.name = "x"},
               %w1: tensor<4096x16384xbf16> {graph.name = "W1"},
               %b1: tensor<16384xf32> {graph.name = "b1"},
               %w2: tensor<16384x4096xbf16> {graph.name = "W2"},
               %b2: tensor<4096xf32> {graph.name = "b2"})
    -> (tensor<2048x4096xf32> {graph.name = "y"}) {
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  %c0 = arith.constant 0.7978845608 : f32
  %c1 = arith.constant 0.044715 : f32
  %three = arith.constant 3.0 : f32
  %e1 = tensor.empty() : tensor<2048x16384xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2048x16384xf32>) -> tensor<2048x16384xf32>
  %m1 = linalg.matmul ins(%x, %w1 : tensor<2048x4096xbf16>, tensor<4096x16384xbf16>)
                      outs(%z1 : tensor<2048x16384xf32>) -> tensor<2048x16384xf32>
  %eh = tensor.empty() : tensor<2048x16384xbf16>
  %h = linalg.generic {indexing_maps = [#mat, #vec, #mat], iterator_types = ["parallel", "parallel"]}
      ins(%m1, %b1 : tensor<2048x16384xf32>, tensor<16384xf32>) outs(%eh : tensor<2048x16384xbf16>) {
    ^bb0(%a: f32, %b: f32, %o: bf16):
      %v = arith.addf %a, %b : f32
      %v3 = math.powf %v, %three : f32
      %t0 = arith.mulf %v3, %c1 : f32
      %t1 = arith.addf %v, %t0 : f32
      %t2 = arith.mulf %t1, %c0 : f32
      %t3 = math.tanh %t2 : f32
      %t4 = arith.addf %t3, %one : f32
      %t5 = arith.mulf %v, %t4 : f32
      %g = arith.mulf %t5, %half : f32
      %gb = arith.truncf %g : f32 to bf16
      linalg.yield %gb : bf16
  } -> tensor<2048x16384xbf16>
  %e2 = tensor.empty() : tensor<2048x4096xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2048x4096xf32>) -> tensor<2048x4096xf32>
  %m2 = linalg.matmul ins(%h, %w2 : tensor<2048x16384xbf16>, tensor<16384x4096xbf16>)
                      outs(%z2 : tensor<2048x4096xf32>) -> tensor<2048x4096xf32>
  %b2bc = linalg.broadcast ins(%b2 : tensor<4096xf32>) outs(%e2 : tensor<2048x4096xf32>) dimensions = [0]
  %y = linalg.add ins(%m2, %b2bc : tensor<2048x4096xf32>, tensor<2048x4096xf32>)
                  outs(%e2 : tensor<2048x4096xf32>) -> tensor<2048x4096xf32>
  return %y : tensor<2048x4096xf32>
}
