// Softmax over the last dimension of an f32 [100, 300] tensor (not a multiple of 128).
func.func @softmax(%x: tensor<100x300xf32> {graph.name = "X"})
    -> (tensor<100x300xf32> {graph.name = "Y"}) {
  %empty = tensor.empty() : tensor<100x300xf32>
  %y = linalg.softmax dimension(1) ins(%x : tensor<100x300xf32>)
                                   outs(%empty : tensor<100x300xf32>) -> tensor<100x300xf32>
  return %y : tensor<100x300xf32>
}
