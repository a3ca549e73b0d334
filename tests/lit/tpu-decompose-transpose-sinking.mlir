// tpu-decompose moves element-wise ops to the far side of the transposes they read when a
// transpose that undoes them follows (NCHW ops between NHWC convolutions), and drops a
// transpose undone by the next one; elsewhere the transposes stay where the graph put them.
// RUN: tpu-opt %s -split-input-file --tpu-target --tpu-decompose --mlir-print-local-scope | FileCheck %s

// NHWC to NCHW (two transposes, the first moving the lanes), a per-channel scale, ReLU, and
// back: no transpose is left, and the scale's per-channel map follows the channels to d3.
// CHECK-LABEL: func.func @nchw_between_nhwc
// CHECK-NOT:     linalg.transpose
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>]
// CHECK-SAME:      ins(%arg0, %arg1 : tensor<1x4x6x8xf32>, tensor<8xf32>)
// CHECK:         %[[R:.*]] = linalg.generic
// CHECK-NOT:     linalg.transpose
// CHECK:         return %[[R]] : tensor<1x4x6x8xf32>
func.func @nchw_between_nhwc(%y: tensor<1x4x6x8xf32> {graph.name = "y"}, %s: tensor<8xf32> {graph.name = "s"}) -> (tensor<1x4x6x8xf32> {graph.name = "r"}) {
  %e1 = tensor.empty() : tensor<1x4x8x6xf32>
  %t1 = linalg.transpose ins(%y : tensor<1x4x6x8xf32>) outs(%e1 : tensor<1x4x8x6xf32>) permutation = [0, 1, 3, 2]
  %e2 = tensor.empty() : tensor<1x8x4x6xf32>
  %t2 = linalg.transpose ins(%t1 : tensor<1x4x8x6xf32>) outs(%e2 : tensor<1x8x4x6xf32>) permutation = [0, 2, 1, 3]
  %e3 = tensor.empty() : tensor<1x8x4x6xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%t2, %s : tensor<1x8x4x6xf32>, tensor<8xf32>) outs(%e3 : tensor<1x8x4x6xf32>) {
    ^bb0(%a: f32, %c: f32, %o: f32):
      %m = arith.mulf %a, %c : f32
      linalg.yield %m : f32
  } -> tensor<1x8x4x6xf32>
  %e4 = tensor.empty() : tensor<1x8x4x6xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%b : tensor<1x8x4x6xf32>) outs(%e4 : tensor<1x8x4x6xf32>) {
    ^bb0(%a: f32, %o: f32):
      %z = arith.constant 0.0 : f32
      %m = arith.maximumf %a, %z : f32
      linalg.yield %m : f32
  } -> tensor<1x8x4x6xf32>
  %e5 = tensor.empty() : tensor<1x4x8x6xf32>
  %u1 = linalg.transpose ins(%r : tensor<1x8x4x6xf32>) outs(%e5 : tensor<1x4x8x6xf32>) permutation = [0, 2, 1, 3]
  %e6 = tensor.empty() : tensor<1x4x6x8xf32>
  %u2 = linalg.transpose ins(%u1 : tensor<1x4x8x6xf32>) outs(%e6 : tensor<1x4x6x8xf32>) permutation = [0, 1, 3, 2]
  return %u2 : tensor<1x4x6x8xf32>
}

// -----

// Two transposed inputs by the same permutation (a residual add) sink together.
// CHECK-LABEL: func.func @two_inputs
// CHECK-NOT:     linalg.transpose
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%arg0, %arg1 : tensor<4x8x16xf32>, tensor<4x8x16xf32>)
// CHECK-NOT:     linalg.transpose
func.func @two_inputs(%x: tensor<4x8x16xf32> {graph.name = "x"}, %y: tensor<4x8x16xf32> {graph.name = "y"}) -> (tensor<4x8x16xf32> {graph.name = "r"}) {
  %e1 = tensor.empty() : tensor<8x4x16xf32>
  %tx = linalg.transpose ins(%x : tensor<4x8x16xf32>) outs(%e1 : tensor<8x4x16xf32>) permutation = [1, 0, 2]
  %e2 = tensor.empty() : tensor<8x4x16xf32>
  %ty = linalg.transpose ins(%y : tensor<4x8x16xf32>) outs(%e2 : tensor<8x4x16xf32>) permutation = [1, 0, 2]
  %e3 = tensor.empty() : tensor<8x4x16xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%tx, %ty : tensor<8x4x16xf32>, tensor<8x4x16xf32>) outs(%e3 : tensor<8x4x16xf32>) {
    ^bb0(%a: f32, %b: f32, %o: f32):
      %m = arith.addf %a, %b : f32
      linalg.yield %m : f32
  } -> tensor<8x4x16xf32>
  %e4 = tensor.empty() : tensor<4x8x16xf32>
  %u = linalg.transpose ins(%s : tensor<8x4x16xf32>) outs(%e4 : tensor<4x8x16xf32>) permutation = [1, 0, 2]
  return %u : tensor<4x8x16xf32>
}

// -----

// No transpose that undoes it follows: the op stays on the transposed view.
// CHECK-LABEL: func.func @nothing_cancels
// CHECK:         %[[T:.*]] = linalg.transpose ins(%arg0 : tensor<4x8x16xf32>) {{.*}} permutation = [1, 0, 2]
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%[[T]] : tensor<8x4x16xf32>)
func.func @nothing_cancels(%x: tensor<4x8x16xf32> {graph.name = "x"}) -> (tensor<8x4x16xf32> {graph.name = "r"}) {
  %e1 = tensor.empty() : tensor<8x4x16xf32>
  %t = linalg.transpose ins(%x : tensor<4x8x16xf32>) outs(%e1 : tensor<8x4x16xf32>) permutation = [1, 0, 2]
  %e2 = tensor.empty() : tensor<8x4x16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%t : tensor<8x4x16xf32>) outs(%e2 : tensor<8x4x16xf32>) {
    ^bb0(%a: f32, %o: f32):
      %m = math.exp %a : f32
      linalg.yield %m : f32
  } -> tensor<8x4x16xf32>
  return %r : tensor<8x4x16xf32>
}

// -----

// The transposed value is also returned: the op stays where it is (sinking would add a
// transpose), and so do the transposes.
// CHECK-LABEL: func.func @read_twice
// CHECK:         %[[T:.*]] = linalg.transpose ins(%arg0 : tensor<4x8x16xf32>)
// CHECK:         %[[R:.*]] = linalg.generic
// CHECK-SAME:      ins(%[[T]] : tensor<8x4x16xf32>)
// CHECK:         linalg.transpose ins(%[[R]] : tensor<8x4x16xf32>)
func.func @read_twice(%x: tensor<4x8x16xf32> {graph.name = "x"}) -> (tensor<4x8x16xf32> {graph.name = "r"}, tensor<8x4x16xf32> {graph.name = "t"}) {
  %e1 = tensor.empty() : tensor<8x4x16xf32>
  %t = linalg.transpose ins(%x : tensor<4x8x16xf32>) outs(%e1 : tensor<8x4x16xf32>) permutation = [1, 0, 2]
  %e2 = tensor.empty() : tensor<8x4x16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%t : tensor<8x4x16xf32>) outs(%e2 : tensor<8x4x16xf32>) {
    ^bb0(%a: f32, %o: f32):
      %m = math.exp %a : f32
      linalg.yield %m : f32
  } -> tensor<8x4x16xf32>
  %e3 = tensor.empty() : tensor<4x8x16xf32>
  %u = linalg.transpose ins(%r : tensor<8x4x16xf32>) outs(%e3 : tensor<4x8x16xf32>) permutation = [1, 0, 2]
  return %u, %t : tensor<4x8x16xf32>, tensor<8x4x16xf32>
}

// -----

// A reduction does not commute with the transpose the same way: it stays.
// CHECK-LABEL: func.func @not_element_wise
// CHECK:         linalg.transpose ins(%arg0 : tensor<4x8x16xf32>)
func.func @not_element_wise(%x: tensor<4x8x16xf32> {graph.name = "x"}) -> (tensor<8x4xf32> {graph.name = "r"}) {
  %e1 = tensor.empty() : tensor<8x4x16xf32>
  %t = linalg.transpose ins(%x : tensor<4x8x16xf32>) outs(%e1 : tensor<8x4x16xf32>) permutation = [1, 0, 2]
  %z = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<8x4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e2 : tensor<8x4xf32>) -> tensor<8x4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%t : tensor<8x4x16xf32>) outs(%f : tensor<8x4xf32>) {
    ^bb0(%a: f32, %o: f32):
      %m = arith.addf %a, %o : f32
      linalg.yield %m : f32
  } -> tensor<8x4xf32>
  return %r : tensor<8x4xf32>
}

// -----

// A per-channel vector repeated over [N, C, H] (chipless.torch's batch norm on NCHW) would be
// read out of order after the move: it is read from the vector itself, along the channels
// (d3), and the repeats go.
// CHECK-LABEL: func.func @repeated_per_channel
// CHECK-NEXT:    tensor.empty() : tensor<2x3x5x8xf32>
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>]
// CHECK-SAME:      ins(%arg0, %arg1 : tensor<2x3x5x8xf32>, tensor<8xf32>)
// CHECK:         } -> tensor<2x3x5x8xf32>
// CHECK-NEXT:    return
func.func @repeated_per_channel(%y: tensor<2x3x5x8xf32> {graph.name = "y"}, %s: tensor<8xf32> {graph.name = "s"}) -> (tensor<2x3x5x8xf32> {graph.name = "r"}) {
  %e1 = tensor.empty() : tensor<2x3x8x5xf32>
  %t1 = linalg.transpose ins(%y : tensor<2x3x5x8xf32>) outs(%e1 : tensor<2x3x8x5xf32>) permutation = [0, 1, 3, 2]
  %e2 = tensor.empty() : tensor<2x8x3x5xf32>
  %t2 = linalg.transpose ins(%t1 : tensor<2x3x8x5xf32>) outs(%e2 : tensor<2x8x3x5xf32>) permutation = [0, 2, 1, 3]
  %eb = tensor.empty() : tensor<8x3xf32>
  %b = linalg.broadcast ins(%s : tensor<8xf32>) outs(%eb : tensor<8x3xf32>) dimensions = [1]
  %er = tensor.empty() : tensor<2x8x3xf32>
  %rep = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%b : tensor<8x3xf32>) outs(%er : tensor<2x8x3xf32>) {
    ^bb0(%a: f32, %o: f32):
      linalg.yield %a : f32
  } -> tensor<2x8x3xf32>
  %e3 = tensor.empty() : tensor<2x8x3x5xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%t2, %rep : tensor<2x8x3x5xf32>, tensor<2x8x3xf32>) outs(%e3 : tensor<2x8x3x5xf32>) {
    ^bb0(%a: f32, %c: f32, %o: f32):
      %p = arith.mulf %a, %c : f32
      linalg.yield %p : f32
  } -> tensor<2x8x3x5xf32>
  %e5 = tensor.empty() : tensor<2x3x8x5xf32>
  %u1 = linalg.transpose ins(%m : tensor<2x8x3x5xf32>) outs(%e5 : tensor<2x3x8x5xf32>) permutation = [0, 2, 1, 3]
  %e6 = tensor.empty() : tensor<2x3x5x8xf32>
  %u2 = linalg.transpose ins(%u1 : tensor<2x3x8x5xf32>) outs(%e6 : tensor<2x3x5x8xf32>) permutation = [0, 1, 3, 2]
  return %u2 : tensor<2x3x5x8xf32>
}
