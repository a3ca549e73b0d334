// A small CNN in f16 for the Spyre front end: conv 3x3 (8 -> 16 channels) + bias, ReLU and a
// batch norm in inference form (per-channel scale and shift), 2x2 max pool, conv 3x3 (16 ->
// 32) + bias + ReLU, 2x2 max pool, global average pool, linear (32 -> 10). Each convolution
// is an unfold of its windows into rows and a matmul by the filters (docs/frontend.md).
// tpu-compile does not take convolutions or pooling (docs/graph-ir.md).
//
//   spyre-compile models/graphs/spyre_cnn.mlir -o out/cnn --dump-dir out/cnn-dump
#m2 = affine_map<(d0, d1) -> (d0, d1)>
#c2 = affine_map<(d0, d1) -> (d1)>
#m4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#c4 = affine_map<(d0, d1, d2, d3) -> (d3)>
func.func @cnn(%x: tensor<1x34x34x8xf16> {graph.name = "x"}, %w1: tensor<3x3x8x16xf16> {graph.name = "w1"},
               %b1: tensor<16xf16> {graph.name = "b1"}, %bn_scale: tensor<16xf16> {graph.name = "bn_scale"},
               %bn_shift: tensor<16xf16> {graph.name = "bn_shift"}, %w2: tensor<3x3x16x32xf16> {graph.name = "w2"},
               %b2: tensor<32xf16> {graph.name = "b2"}, %wl: tensor<32x10xf16> {graph.name = "wl"}, %bl: tensor<10xf16> {graph.name = "bl"})
    -> (tensor<1x10xf16> {graph.name = "logits"}) {
  %zero = arith.constant 0.0 : f16
  %inv = arith.constant 0.020408163 : f16
  %e1 = tensor.empty() : tensor<1x32x32x16xf16>
  %z1 = linalg.fill ins(%zero : f16) outs(%e1 : tensor<1x32x32x16xf16>) -> tensor<1x32x32x16xf16>
  %c1 = linalg.conv_2d_nhwc_hwcf ins(%x, %w1 : tensor<1x34x34x8xf16>, tensor<3x3x8x16xf16>) outs(%z1 : tensor<1x32x32x16xf16>) -> tensor<1x32x32x16xf16>
  %a1 = linalg.generic {indexing_maps = [#m4, #c4, #c4, #c4, #m4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c1, %b1, %bn_scale, %bn_shift : tensor<1x32x32x16xf16>, tensor<16xf16>, tensor<16xf16>, tensor<16xf16>) outs(%e1 : tensor<1x32x32x16xf16>) {
    ^bb0(%v: f16, %b: f16, %s: f16, %t: f16, %o: f16):
      %u = arith.addf %v, %b : f16
      %r = arith.maximumf %u, %zero : f16
      %n = arith.mulf %r, %s : f16
      %y = arith.addf %n, %t : f16
      linalg.yield %y : f16
  } -> tensor<1x32x32x16xf16>
  %win = tensor.empty() : tensor<2x2xf16>
  %ep1 = tensor.empty() : tensor<1x16x16x16xf16>
  %fp1 = linalg.fill ins(%zero : f16) outs(%ep1 : tensor<1x16x16x16xf16>) -> tensor<1x16x16x16xf16>
  %p1 = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%a1, %win : tensor<1x32x32x16xf16>, tensor<2x2xf16>) outs(%fp1 : tensor<1x16x16x16xf16>) -> tensor<1x16x16x16xf16>
  %e2 = tensor.empty() : tensor<1x14x14x32xf16>
  %z2 = linalg.fill ins(%zero : f16) outs(%e2 : tensor<1x14x14x32xf16>) -> tensor<1x14x14x32xf16>
  %c2 = linalg.conv_2d_nhwc_hwcf ins(%p1, %w2 : tensor<1x16x16x16xf16>, tensor<3x3x16x32xf16>) outs(%z2 : tensor<1x14x14x32xf16>) -> tensor<1x14x14x32xf16>
  %a2 = linalg.generic {indexing_maps = [#m4, #c4, #m4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c2, %b2 : tensor<1x14x14x32xf16>, tensor<32xf16>) outs(%e2 : tensor<1x14x14x32xf16>) {
    ^bb0(%v: f16, %b: f16, %o: f16):
      %u = arith.addf %v, %b : f16
      %r = arith.maximumf %u, %zero : f16
      linalg.yield %r : f16
  } -> tensor<1x14x14x32xf16>
  %ep2 = tensor.empty() : tensor<1x7x7x32xf16>
  %fp2 = linalg.fill ins(%zero : f16) outs(%ep2 : tensor<1x7x7x32xf16>) -> tensor<1x7x7x32xf16>
  %p2 = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%a2, %win : tensor<1x14x14x32xf16>, tensor<2x2xf16>) outs(%fp2 : tensor<1x7x7x32xf16>) -> tensor<1x7x7x32xf16>
  %flat = tensor.collapse_shape %p2 [[0], [1, 2], [3]] : tensor<1x7x7x32xf16> into tensor<1x49x32xf16>
  %eg = tensor.empty() : tensor<1x32xf16>
  %zg = linalg.fill ins(%zero : f16) outs(%eg : tensor<1x32xf16>) -> tensor<1x32xf16>
  %sum = linalg.reduce { arith.addf } ins(%flat : tensor<1x49x32xf16>) outs(%zg : tensor<1x32xf16>) dimensions = [1]
  %avg = linalg.generic {indexing_maps = [#m2, #m2], iterator_types = ["parallel", "parallel"]}
      ins(%sum : tensor<1x32xf16>) outs(%eg : tensor<1x32xf16>) {
    ^bb0(%v: f16, %o: f16):
      %r = arith.mulf %v, %inv : f16
      linalg.yield %r : f16
  } -> tensor<1x32xf16>
  %el = tensor.empty() : tensor<1x10xf16>
  %zl = linalg.fill ins(%zero : f16) outs(%el : tensor<1x10xf16>) -> tensor<1x10xf16>
  %l = linalg.matmul ins(%avg, %wl : tensor<1x32xf16>, tensor<32x10xf16>) outs(%zl : tensor<1x10xf16>) -> tensor<1x10xf16>
  %y = linalg.generic {indexing_maps = [#m2, #c2, #m2], iterator_types = ["parallel", "parallel"]}
      ins(%l, %bl : tensor<1x10xf16>, tensor<10xf16>) outs(%el : tensor<1x10xf16>) {
    ^bb0(%v: f16, %b: f16, %o: f16):
      %r = arith.addf %v, %b : f16
      linalg.yield %r : f16
  } -> tensor<1x10xf16>
  return %y : tensor<1x10xf16>
}
