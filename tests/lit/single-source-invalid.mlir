// inter_tile_consume and inter_tile_scatter give each consumer exactly one source: one
// producer per group, or (consume only) producer_dependency_per_consumer naming one.
// RUN: ktir-opt %s -split-input-file -verify-diagnostics --ktdp-strict

#all = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
#one = affine_set<(g) : (g == 0)>

func.func @consume_from_many(%x: tensor<8xf16>) attributes {grid = [4]} {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #all : tensor<8xf16> -> !ktdp.tile_future<tensor<8xf16>, groups = #one> {
  ^bb0(%gid: index):
    ktdp.yield_partial %x : tensor<8xf16>
  }
  // expected-error @+1 {{consumer 0 of group 0 receives from 4 producers {0, 1, 2, 3}; each consumer needs exactly one source (name it with producer_dependency_per_consumer)}}
  %r = ktdp.inter_tile_consume(%f) consumer_tiles_per_group = #all : !ktdp.tile_future<tensor<8xf16>, groups = #one> -> tensor<8xf16>
  return
}

// -----

#all = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
#one = affine_set<(g) : (g == 0)>

func.func @routing_to_two(%x: tensor<8xf16>) attributes {grid = [4]} {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #all : tensor<8xf16> -> !ktdp.tile_future<tensor<8xf16>, groups = #one> {
  ^bb0(%gid: index):
    ktdp.yield_partial %x : tensor<8xf16>
  }
  // Consumer c receives from c and c + 1 (and the last from itself only).
  // expected-error @+1 {{consumer 0 of group 0 receives from 2 producers {0, 1}}}
  %r = ktdp.inter_tile_consume(%f) consumer_tiles_per_group = #all, producer_dependency_per_consumer = affine_set<(p)[c] : (p - c >= 0, -p + c + 1 >= 0)> : !ktdp.tile_future<tensor<8xf16>, groups = #one> -> tensor<8xf16>
  return
}

// -----

#all = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
#low_pair = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 1 >= 0)>
#one = affine_set<(g) : (g == 0)>

func.func @scatter_from_two(%x: tensor<8xf16>) attributes {grid = [4]} {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #low_pair : tensor<8xf16> -> !ktdp.tile_future<tensor<8xf16>, groups = #one> {
  ^bb0(%gid: index):
    ktdp.yield_partial %x : tensor<8xf16>
  }
  // expected-error @+1 {{group 0 has 2 producers {0, 1}; a scatter has exactly one per group}}
  %r = ktdp.inter_tile_scatter(%f) consumer_tiles_per_group = #all, scatter_dimensions = [0] : !ktdp.tile_future<tensor<8xf16>, groups = #one> -> tensor<2xf16>
  return
}

// -----

#all = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
#first = affine_set<(i)[g] : (i - 4*g == 0)>
#one = affine_set<(g) : (g == 0)>

func.func @scatter_dependency(%x: tensor<8xf16>) attributes {grid = [4]} {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #first : tensor<8xf16> -> !ktdp.tile_future<tensor<8xf16>, groups = #one> {
  ^bb0(%gid: index):
    ktdp.yield_partial %x : tensor<8xf16>
  }
  // expected-error @+1 {{unexpected 'producer_dependency_per_consumer'; expected 'scatter_dimensions'}}
  %r = ktdp.inter_tile_scatter(%f) consumer_tiles_per_group = #all, scatter_dimensions = [0], producer_dependency_per_consumer = affine_set<(p)[c] : (p == 0)> : !ktdp.tile_future<tensor<8xf16>, groups = #one> -> tensor<2xf16>
  return
}
