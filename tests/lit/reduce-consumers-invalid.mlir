// Reductions deliver to producers only (consumers ⊆ producers), and inter_tile_reduce to
// all of them (all-reduce) or to a single tile (reduce).
// RUN: ktir-opt %s -split-input-file -verify-diagnostics --ktdp-strict

#all = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
#low_pair = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 1 >= 0)>
#one = affine_set<(g) : (g == 0)>

func.func @consumer_not_producer(%x: tensor<8xf16>, %zero: tensor<8xf16>) attributes {grid = [4]} {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #low_pair : tensor<8xf16> -> !ktdp.tile_future<tensor<8xf16>, groups = #one> {
  ^bb0(%gid: index):
    ktdp.yield_partial %x : tensor<8xf16>
  }
  // expected-error @+1 {{consumer 2 of group 0 is not one of its producers {0, 1}; consumers must be a subset of producers}}
  %r = ktdp.inter_tile_reduce(%f) consumer_tiles_per_group = #all, identity(%zero : tensor<8xf16>) : !ktdp.tile_future<tensor<8xf16>, groups = #one> -> tensor<8xf16> {
  ^bb0(%l: tensor<8xf16>, %r2: tensor<8xf16>):
    %s = arith.addf %l, %r2 : tensor<8xf16>
    ktdp.yield_reduced %s : tensor<8xf16>
  }
  return
}

// -----

#all = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
#low_pair = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 1 >= 0)>
#one = affine_set<(g) : (g == 0)>

func.func @reduce_to_subset(%x: tensor<8xf16>, %zero: tensor<8xf16>) attributes {grid = [4]} {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #all : tensor<8xf16> -> !ktdp.tile_future<tensor<8xf16>, groups = #one> {
  ^bb0(%gid: index):
    ktdp.yield_partial %x : tensor<8xf16>
  }
  // expected-error @+1 {{consumers {0, 1} of group 0 must be all of its producers {0, 1, 2, 3} (all-reduce) or a single tile (reduce)}}
  %r = ktdp.inter_tile_reduce(%f) consumer_tiles_per_group = #low_pair, identity(%zero : tensor<8xf16>) : !ktdp.tile_future<tensor<8xf16>, groups = #one> -> tensor<8xf16> {
  ^bb0(%l: tensor<8xf16>, %r2: tensor<8xf16>):
    %s = arith.addf %l, %r2 : tensor<8xf16>
    ktdp.yield_reduced %s : tensor<8xf16>
  }
  return
}

// -----

#all = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
#low_pair = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 1 >= 0)>
#one = affine_set<(g) : (g == 0)>

func.func @reduce_scatter_consumer_not_producer(%x: tensor<8xf16>, %zero: tensor<8xf16>) attributes {grid = [4]} {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #low_pair : tensor<8xf16> -> !ktdp.tile_future<tensor<8xf16>, groups = #one> {
  ^bb0(%gid: index):
    ktdp.yield_partial %x : tensor<8xf16>
  }
  // expected-error @+1 {{consumer 2 of group 0 is not one of its producers {0, 1}; consumers must be a subset of producers}}
  %r = ktdp.inter_tile_reduce_scatter(%f) consumer_tiles_per_group = #all, scatter_dimensions = [0], identity(%zero : tensor<8xf16>) : !ktdp.tile_future<tensor<8xf16>, groups = #one> -> tensor<2xf16> {
  ^bb0(%l: tensor<8xf16>, %r2: tensor<8xf16>):
    %s = arith.addf %l, %r2 : tensor<8xf16>
    ktdp.yield_reduced %s : tensor<8xf16>
  }
  return
}
