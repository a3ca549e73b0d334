// ktdp.inter_tile_produce: producer_tiles_per_group is a set (i)[g]; no tile produces
// for two groups.
// RUN: ktir-opt %s -split-input-file -verify-diagnostics --ktdp-strict

// Groups g = 0 and g = 1 are tiles {0, 1} and {1, 2}: tile 1 is in both.
#overlapping = affine_set<(i)[g] : (i - g >= 0, -i + g + 1 >= 0)>
#two = affine_set<(g) : (g >= 0, -g + 1 >= 0)>

func.func @overlap(%x: tensor<8xf16>, %zero: tensor<8xf16>) attributes {grid = [4]} {
  // expected-error @+1 {{producer groups must be disjoint, but tile 1 produces for groups 0 and 1}}
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #overlapping : tensor<8xf16> -> !ktdp.tile_future<tensor<8xf16>, groups = #two> {
  ^bb0(%gid: index):
    ktdp.yield_partial %x : tensor<8xf16>
  }
  %r = ktdp.inter_tile_reduce(%f) consumer_tiles_per_group = #overlapping, identity(%zero : tensor<8xf16>) : !ktdp.tile_future<tensor<8xf16>, groups = #two> -> tensor<8xf16> {
  ^bb0(%l: tensor<8xf16>, %r2: tensor<8xf16>):
    %s = arith.addf %l, %r2 : tensor<8xf16>
    ktdp.yield_reduced %s : tensor<8xf16>
  }
  return
}

// -----

#one = affine_set<(g) : (g == 0)>

func.func @set_shape(%x: tensor<8xf16>) attributes {grid = [4]} {
  // expected-error @+1 {{producer_tiles_per_group must have exactly one symbol (the group index g), got 0}}
  %f = ktdp.inter_tile_produce producer_tiles_per_group = affine_set<(i) : (i == 0)> : tensor<8xf16> -> !ktdp.tile_future<tensor<8xf16>, groups = #one> {
  ^bb0(%gid: index):
    ktdp.yield_partial %x : tensor<8xf16>
  }
  %r = ktdp.inter_tile_consume(%f) consumer_tiles_per_group = affine_set<(i)[g] : (i == 0)> : !ktdp.tile_future<tensor<8xf16>, groups = #one> -> tensor<8xf16>
  return
}
