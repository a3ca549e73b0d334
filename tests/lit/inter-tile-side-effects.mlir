// Exchanges between tiles are side effects on the inter-tile fabric: CSE does not merge
// two identical exchanges and canonicalization does not drop an exchange whose result is
// unused, so every tile future keeps its single delivery op.
// RUN: ktir-opt %s -cse -canonicalize | FileCheck %s

#all = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
#one = affine_set<(g) : (g == 0)>

// CHECK-LABEL: func.func @identical_exchanges
// CHECK-COUNT-2: ktdp.inter_tile_produce
// CHECK-COUNT-2: ktdp.inter_tile_reduce
func.func @identical_exchanges(%x: tensor<8xf16>, %zero: tensor<8xf16>) -> (tensor<8xf16>, tensor<8xf16>)
    attributes {grid = [4]} {
  %f1 = ktdp.inter_tile_produce producer_tiles_per_group = #all : tensor<8xf16> -> !ktdp.tile_future<tensor<8xf16>, groups = #one> {
  ^bb0(%gid: index):
    ktdp.yield_partial %x : tensor<8xf16>
  }
  %f2 = ktdp.inter_tile_produce producer_tiles_per_group = #all : tensor<8xf16> -> !ktdp.tile_future<tensor<8xf16>, groups = #one> {
  ^bb0(%gid: index):
    ktdp.yield_partial %x : tensor<8xf16>
  }
  %r1 = ktdp.inter_tile_reduce(%f1) consumer_tiles_per_group = #all, identity(%zero : tensor<8xf16>) : !ktdp.tile_future<tensor<8xf16>, groups = #one> -> tensor<8xf16> {
  ^bb0(%l: tensor<8xf16>, %r: tensor<8xf16>):
    %s = arith.addf %l, %r : tensor<8xf16>
    ktdp.yield_reduced %s : tensor<8xf16>
  }
  %r2 = ktdp.inter_tile_reduce(%f2) consumer_tiles_per_group = #all, identity(%zero : tensor<8xf16>) : !ktdp.tile_future<tensor<8xf16>, groups = #one> -> tensor<8xf16> {
  ^bb0(%l: tensor<8xf16>, %r: tensor<8xf16>):
    %s = arith.addf %l, %r : tensor<8xf16>
    ktdp.yield_reduced %s : tensor<8xf16>
  }
  return %r1, %r2 : tensor<8xf16>, tensor<8xf16>
}

// CHECK-LABEL: func.func @unused_result
// CHECK: ktdp.inter_tile_produce
// CHECK: ktdp.inter_tile_consume
func.func @unused_result(%x: tensor<8xf16>) attributes {grid = [4]} {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = affine_set<(i)[g] : (i - 4*g == 0)> : tensor<8xf16> -> !ktdp.tile_future<tensor<8xf16>, groups = #one> {
  ^bb0(%gid: index):
    ktdp.yield_partial %x : tensor<8xf16>
  }
  %r = ktdp.inter_tile_consume(%f) consumer_tiles_per_group = #all : !ktdp.tile_future<tensor<8xf16>, groups = #one> -> tensor<8xf16>
  return
}
