// A compute-bound 4096 x 4096 x 4096 GEMM, bf16 in, f32 out (MXU utilisation benchmark).
func.func @gemm_4096(%a: tensor<4096x4096xbf16> {graph.name = "A"},
                %b: tensor<4096x4096xbf16> {graph.name = "B"})
    -> (tensor<4096x4096xf32> {graph.name = "C"}) {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<4096x4096xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  %c = linalg.matmul ins(%a, %b : tensor<4096x4096xbf16>, tensor<4096x4096xbf16>)
                     outs(%init : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  return %c : tensor<4096x4096xf32>
}
