// producer_dependency_per_consumer is a set (p)[c] or (p)[c, g] naming producers only
// (R3), and every producer of a group is received by one of its consumers (R4).
// RUN: ktir-opt %s -split-input-file -verify-diagnostics --ktdp-strict

#all = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
#low_pair = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 1 >= 0)>
#first = affine_set<(i)[g] : (i - 4*g == 0)>
#one = affine_set<(g) : (g == 0)>

func.func @names_non_producer(%x: tensor<8xf16>, %zero: tensor<8xf16>) attributes {grid = [4]} {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #low_pair : tensor<8xf16> -> !ktdp.tile_future<tensor<8xf16>, groups = #one> {
  ^bb0(%gid: index):
    ktdp.yield_partial %x : tensor<8xf16>
  }
  // expected-error @+1 {{producer_dependency_per_consumer makes consumer 0 of group 0 depend on tile 2, which produces nothing}}
  %r = ktdp.inter_tile_reduce(%f) consumer_tiles_per_group = #first, producer_dependency_per_consumer = affine_set<(p)[c] : (p >= 0, -p + 2 >= 0)>, identity(%zero : tensor<8xf16>) : !ktdp.tile_future<tensor<8xf16>, groups = #one> -> tensor<8xf16> {
  ^bb0(%l: tensor<8xf16>, %r2: tensor<8xf16>):
    %s = arith.addf %l, %r2 : tensor<8xf16>
    ktdp.yield_reduced %s : tensor<8xf16>
  }
  return
}

// -----

#all = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
#first = affine_set<(i)[g] : (i - 4*g == 0)>
#one = affine_set<(g) : (g == 0)>

func.func @uncovered_producer(%x: tensor<8xf16>, %zero: tensor<8xf16>) attributes {grid = [4]} {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #all : tensor<8xf16> -> !ktdp.tile_future<tensor<8xf16>, groups = #one> {
  ^bb0(%gid: index):
    ktdp.yield_partial %x : tensor<8xf16>
  }
  // expected-error @+1 {{producer 2 of group 0 is received by no consumer}}
  %r = ktdp.inter_tile_reduce(%f) consumer_tiles_per_group = #first, producer_dependency_per_consumer = affine_set<(p)[c, g] : (p - 4*g >= 0, -p + 4*g + 1 >= 0)>, identity(%zero : tensor<8xf16>) : !ktdp.tile_future<tensor<8xf16>, groups = #one> -> tensor<8xf16> {
  ^bb0(%l: tensor<8xf16>, %r2: tensor<8xf16>):
    %s = arith.addf %l, %r2 : tensor<8xf16>
    ktdp.yield_reduced %s : tensor<8xf16>
  }
  return
}

// -----

#all = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
#one = affine_set<(g) : (g == 0)>

func.func @no_consumer(%x: tensor<8xf16>) attributes {grid = [4]} {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #all : tensor<8xf16> -> !ktdp.tile_future<tensor<8xf16>, groups = #one> {
  ^bb0(%gid: index):
    ktdp.yield_partial %x : tensor<8xf16>
  }
  // expected-error @+1 {{producers {0, 1, 2, 3} of group 0 have no consumer}}
  %r = ktdp.inter_tile_gather(%f) consumer_tiles_per_group = affine_set<(i)[g] : (i - 100 == 0)>, gather_dimensions = [0] : !ktdp.tile_future<tensor<8xf16>, groups = #one> -> tensor<32xf16>
  return
}

// -----

#all = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
#one = affine_set<(g) : (g == 0)>

func.func @set_shape(%x: tensor<8xf16>) attributes {grid = [4]} {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #all : tensor<8xf16> -> !ktdp.tile_future<tensor<8xf16>, groups = #one> {
  ^bb0(%gid: index):
    ktdp.yield_partial %x : tensor<8xf16>
  }
  // expected-error @+1 {{producer_dependency_per_consumer must be an integer set (p)[c] or (p)[c, g] over producer tile ids, got 1 dimension(s) and 0 symbol(s)}}
  %r = ktdp.inter_tile_consume(%f) consumer_tiles_per_group = #all, producer_dependency_per_consumer = affine_set<(p) : (p == 0)> : !ktdp.tile_future<tensor<8xf16>, groups = #one> -> tensor<8xf16>
  return
}
