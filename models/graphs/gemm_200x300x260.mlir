// A GEMM of awkward shape (no dimension a multiple of 128): C = A @ B, bf16 in, f32 out.
func.func @gemm(%a: tensor<200x300xbf16> {graph.name = "A"},
                %b: tensor<300x260xbf16> {graph.name = "B"})
    -> (tensor<200x260xf32> {graph.name = "C"}) {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<200x260xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<200x260xf32>) -> tensor<200x260xf32>
  %c = linalg.matmul ins(%a, %b : tensor<200x300xbf16>, tensor<300x260xbf16>)
                     outs(%init : tensor<200x260xf32>) -> tensor<200x260xf32>
  return %c : tensor<200x260xf32>
}
