// A two-layer MLP with a softmax head, in f16 (Spyre's native type), for the Spyre front end:
// y = softmax(relu(x W1 + b1) W2 + b2). The front end fuses each bias (and the ReLU) into its
// matmul's kernel and runs the softmax as a third kernel divided by rows.
//
//   spyre-compile models/graphs/spyre_mlp.mlir -o out/spyre_mlp --dump-dir out/spyre_mlp-dump
//   spyre-sim run out/spyre_mlp/job.plan --input x=x.npy --input W1=w1.npy --input b1=b1.npy \
//       --input W2=w2.npy --input b2=b2.npy --output y=y.npy
#mat = affine_map<(d0, d1) -> (d0, d1)>
#vec = affine_map<(d0, d1) -> (d1)>
func.func @mlp(%x: tensor<128x256xf16> {graph.name = "x"},
               %w1: tensor<256x512xf16> {graph.name = "W1"},
               %b1: tensor<512xf16> {graph.name = "b1"},
               %w2: tensor<512x256xf16> {graph.name = "W2"},
               %b2: tensor<256xf16> {graph.name = "b2"})
    -> (tensor<128x256xf16> {graph.name = "y"}) {
  %zero = arith.constant 0.0 : f16
  %e1 = tensor.empty() : tensor<128x512xf16>
  %z1 = linalg.fill ins(%zero : f16) outs(%e1 : tensor<128x512xf16>) -> tensor<128x512xf16>
  %m1 = linalg.matmul ins(%x, %w1 : tensor<128x256xf16>, tensor<256x512xf16>)
                      outs(%z1 : tensor<128x512xf16>) -> tensor<128x512xf16>
  %h = linalg.generic {indexing_maps = [#mat, #vec, #mat], iterator_types = ["parallel", "parallel"]}
      ins(%m1, %b1 : tensor<128x512xf16>, tensor<512xf16>) outs(%e1 : tensor<128x512xf16>) {
    ^bb0(%a: f16, %b: f16, %o: f16):
      %v = arith.addf %a, %b : f16
      %r = arith.maximumf %v, %zero : f16
      linalg.yield %r : f16
  } -> tensor<128x512xf16>
  %e2 = tensor.empty() : tensor<128x256xf16>
  %z2 = linalg.fill ins(%zero : f16) outs(%e2 : tensor<128x256xf16>) -> tensor<128x256xf16>
  %m2 = linalg.matmul ins(%h, %w2 : tensor<128x512xf16>, tensor<512x256xf16>)
                      outs(%z2 : tensor<128x256xf16>) -> tensor<128x256xf16>
  %b2bc = linalg.broadcast ins(%b2 : tensor<256xf16>) outs(%e2 : tensor<128x256xf16>) dimensions = [0]
  %y0 = linalg.add ins(%m2, %b2bc : tensor<128x256xf16>, tensor<128x256xf16>)
                  outs(%e2 : tensor<128x256xf16>) -> tensor<128x256xf16>
  %y = linalg.softmax dimension(1) ins(%y0 : tensor<128x256xf16>) outs(%e2 : tensor<128x256xf16>) -> tensor<128x256xf16>
  return %y : tensor<128x256xf16>
}
