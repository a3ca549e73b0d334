// A batched matmul of awkward shape: C[b] = A[b] @ B[b] for 4 batches, bf16 in, f32 out.
func.func @batch_matmul(%a: tensor<4x100x72xbf16> {graph.name = "A"},
                        %b: tensor<4x72x136xbf16> {graph.name = "B"})
    -> (tensor<4x100x136xf32> {graph.name = "C"}) {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<4x100x136xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<4x100x136xf32>) -> tensor<4x100x136xf32>
  %c = linalg.batch_matmul ins(%a, %b : tensor<4x100x72xbf16>, tensor<4x72x136xbf16>)
                           outs(%init : tensor<4x100x136xf32>) -> tensor<4x100x136xf32>
  return %c : tensor<4x100x136xf32>
}
