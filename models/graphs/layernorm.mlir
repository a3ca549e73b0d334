// Layer normalisation over the last dimension: y = (x - mean) / sqrt(var + 1e-5) * gamma + beta,
// written with linalg.reduce and linalg.generic (mean and variance over N = 768).
#row = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d0)>
#vec = affine_map<(d0, d1) -> (d1)>
#id1 = affine_map<(d0) -> (d0)>
func.func @layernorm(%x: tensor<128x768xf32> {graph.name = "X"},
                     %gamma: tensor<768xf32> {graph.name = "gamma"},
                     %beta: tensor<768xf32> {graph.name = "beta"})
    -> (tensor<128x768xf32> {graph.name = "Y"}) {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 768.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %e1 = tensor.empty() : tensor<128xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<128xf32>) -> tensor<128xf32>
  %sum = linalg.reduce ins(%x : tensor<128x768xf32>) outs(%z1 : tensor<128xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %mean = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%sum : tensor<128xf32>) outs(%e1 : tensor<128xf32>) {
    ^bb0(%s: f32, %o: f32):
      %m = arith.divf %s, %n : f32
      linalg.yield %m : f32
  } -> tensor<128xf32>
  %e2 = tensor.empty() : tensor<128x768xf32>
  %xc = linalg.generic {indexing_maps = [#row, #col, #row], iterator_types = ["parallel", "parallel"]}
      ins(%x, %mean : tensor<128x768xf32>, tensor<128xf32>) outs(%e2 : tensor<128x768xf32>) {
    ^bb0(%a: f32, %m: f32, %o: f32):
      %d = arith.subf %a, %m : f32
      linalg.yield %d : f32
  } -> tensor<128x768xf32>
  %var = linalg.generic {indexing_maps = [#row, #col], iterator_types = ["parallel", "reduction"]}
      ins(%xc : tensor<128x768xf32>) outs(%z1 : tensor<128xf32>) {
    ^bb0(%d: f32, %acc: f32):
      %sq = arith.mulf %d, %d : f32
      %s = arith.addf %sq, %acc : f32
      linalg.yield %s : f32
  } -> tensor<128xf32>
  %rstd = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%var : tensor<128xf32>) outs(%e1 : tensor<128xf32>) {
    ^bb0(%v: f32, %o: f32):
      %m = arith.divf %v, %n : f32
      %p = arith.addf %m, %eps : f32
      %r = math.rsqrt %p : f32
      linalg.yield %r : f32
  } -> tensor<128xf32>
  %y = linalg.generic {indexing_maps = [#row, #col, #vec, #vec, #row],
                       iterator_types = ["parallel", "parallel"]}
      ins(%xc, %rstd, %gamma, %beta : tensor<128x768xf32>, tensor<128xf32>, tensor<768xf32>, tensor<768xf32>)
      outs(%e2 : tensor<128x768xf32>) {
    ^bb0(%d: f32, %r: f32, %g: f32, %b: f32, %o: f32):
      %t = arith.mulf %d, %r : f32
      %u = arith.mulf %t, %g : f32
      %v = arith.addf %u, %b : f32
      linalg.yield %v : f32
  } -> tensor<128x768xf32>
  return %y : tensor<128x768xf32>
}
