// A tile future has exactly one user, the delivery op that consumes it.
// RUN: ktir-opt %s -split-input-file -verify-diagnostics --ktdp-strict

#all = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
#first = affine_set<(i)[g] : (i - 4*g == 0)>
#one = affine_set<(g) : (g == 0)>

func.func @two_users(%x: tensor<8xf16>) attributes {grid = [4]} {
  // expected-error @+1 {{tile future must have exactly one user (its delivery op), but it has 2}}
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #first : tensor<8xf16> -> !ktdp.tile_future<tensor<8xf16>, groups = #one> {
  ^bb0(%gid: index):
    ktdp.yield_partial %x : tensor<8xf16>
  }
  // expected-note @+1 {{used here}}
  %a = ktdp.inter_tile_consume(%f) consumer_tiles_per_group = #all : !ktdp.tile_future<tensor<8xf16>, groups = #one> -> tensor<8xf16>
  // expected-note @+1 {{used here}}
  %b = ktdp.inter_tile_consume(%f) consumer_tiles_per_group = #all : !ktdp.tile_future<tensor<8xf16>, groups = #one> -> tensor<8xf16>
  return
}

// -----

#first = affine_set<(i)[g] : (i - 4*g == 0)>
#one = affine_set<(g) : (g == 0)>

func.func @no_user(%x: tensor<8xf16>) attributes {grid = [4]} {
  // expected-error @+1 {{tile future must have exactly one user (its delivery op), but it has 0}}
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #first : tensor<8xf16> -> !ktdp.tile_future<tensor<8xf16>, groups = #one> {
  ^bb0(%gid: index):
    ktdp.yield_partial %x : tensor<8xf16>
  }
  return
}

// -----

#first = affine_set<(i)[g] : (i - 4*g == 0)>
#one = affine_set<(g) : (g == 0)>

func.func @not_a_delivery(%x: tensor<8xf16>) -> !ktdp.tile_future<tensor<8xf16>, groups = #one> attributes {grid = [4]} {
  // expected-error @+1 {{tile future must be consumed by a ktdp delivery op, not by 'func.return'}}
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #first : tensor<8xf16> -> !ktdp.tile_future<tensor<8xf16>, groups = #one> {
  ^bb0(%gid: index):
    ktdp.yield_partial %x : tensor<8xf16>
  }
  return %f : !ktdp.tile_future<tensor<8xf16>, groups = #one>
}
