// The combiner of inter_tile_reduce / inter_tile_reduce_scatter takes 2N arguments of the
// partial types (lhs then rhs per role), yields N values of the partial types, and is pure;
// there is one identity per role, of its partial type.
// RUN: ktir-opt %s -split-input-file -verify-diagnostics --ktdp-strict

#all = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
#one = affine_set<(g) : (g == 0)>

func.func @arity(%x: tensor<4xf16>, %zero: tensor<4xf16>) attributes {grid = [4]} {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #all : tensor<4xf16> -> !ktdp.tile_future<tensor<4xf16>, groups = #one> {
  ^bb0(%gid: index):
    ktdp.yield_partial %x : tensor<4xf16>
  }
  // expected-error @+1 {{combiner must take 2 arguments (lhs then rhs of each partial role) of types {tensor<4xf16>, tensor<4xf16>}, got {tensor<4xf16>}}}
  %r = ktdp.inter_tile_reduce(%f) consumer_tiles_per_group = #all, identity(%zero : tensor<4xf16>) : !ktdp.tile_future<tensor<4xf16>, groups = #one> -> tensor<4xf16> {
  ^bb0(%l: tensor<4xf16>):
    ktdp.yield_reduced %l : tensor<4xf16>
  }
  return
}

// -----

#all = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
#one = affine_set<(g) : (g == 0)>

func.func @argument_types(%x: tensor<4xf16>, %zero: tensor<4xf16>) attributes {grid = [4]} {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #all : tensor<4xf16> -> !ktdp.tile_future<tensor<4xf16>, groups = #one> {
  ^bb0(%gid: index):
    ktdp.yield_partial %x : tensor<4xf16>
  }
  // expected-error @+1 {{combiner must take 2 arguments (lhs then rhs of each partial role) of types {tensor<4xf16>, tensor<4xf16>}, got {tensor<4xf32>, tensor<4xf32>}}}
  %r = ktdp.inter_tile_reduce(%f) consumer_tiles_per_group = #all, identity(%zero : tensor<4xf16>) : !ktdp.tile_future<tensor<4xf16>, groups = #one> -> tensor<4xf16> {
  ^bb0(%l: tensor<4xf32>, %r2: tensor<4xf32>):
    %t = arith.truncf %l : tensor<4xf32> to tensor<4xf16>
    ktdp.yield_reduced %t : tensor<4xf16>
  }
  return
}

// -----

#all = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
#one = affine_set<(g) : (g == 0)>

func.func @yield_types(%x: tensor<4xf16>, %zero: tensor<4xf16>) attributes {grid = [4]} {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #all : tensor<4xf16> -> !ktdp.tile_future<tensor<4xf16>, groups = #one> {
  ^bb0(%gid: index):
    ktdp.yield_partial %x : tensor<4xf16>
  }
  // expected-error @+1 {{yield_reduced yields {tensor<4xf32>} but the partial types are {tensor<4xf16>}}}
  %r = ktdp.inter_tile_reduce(%f) consumer_tiles_per_group = #all, identity(%zero : tensor<4xf16>) : !ktdp.tile_future<tensor<4xf16>, groups = #one> -> tensor<4xf16> {
  ^bb0(%l: tensor<4xf16>, %r2: tensor<4xf16>):
    %e = arith.extf %l : tensor<4xf16> to tensor<4xf32>
    ktdp.yield_reduced %e : tensor<4xf32>
  }
  return
}

// -----

#all = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
#one = affine_set<(g) : (g == 0)>

func.func @impure(%x: tensor<4xf16>, %zero: tensor<4xf16>, %m: memref<4xf16>) attributes {grid = [4]} {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #all : tensor<4xf16> -> !ktdp.tile_future<tensor<4xf16>, groups = #one> {
  ^bb0(%gid: index):
    ktdp.yield_partial %x : tensor<4xf16>
  }
  %r = ktdp.inter_tile_reduce(%f) consumer_tiles_per_group = #all, identity(%zero : tensor<4xf16>) : !ktdp.tile_future<tensor<4xf16>, groups = #one> -> tensor<4xf16> {
  ^bb0(%l: tensor<4xf16>, %r2: tensor<4xf16>):
    %s = arith.addf %l, %r2 : tensor<4xf16>
    // expected-error @+1 {{has memory effects; a combiner must be pure}}
    bufferization.materialize_in_destination %s in writable %m : (tensor<4xf16>, memref<4xf16>) -> ()
    ktdp.yield_reduced %s : tensor<4xf16>
  }
  return
}

// -----

#all = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
#one = affine_set<(g) : (g == 0)>

func.func @identity_count(%x: tensor<4xf16>) attributes {grid = [4]} {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #all : tensor<4xf16> -> !ktdp.tile_future<tensor<4xf16>, groups = #one> {
  ^bb0(%gid: index):
    ktdp.yield_partial %x : tensor<4xf16>
  }
  // expected-error @+1 {{needs one identity per partial role (1), got 0}}
  %r = ktdp.inter_tile_reduce(%f) consumer_tiles_per_group = #all, identity() : !ktdp.tile_future<tensor<4xf16>, groups = #one> -> tensor<4xf16> {
  ^bb0(%l: tensor<4xf16>, %r2: tensor<4xf16>):
    %s = arith.addf %l, %r2 : tensor<4xf16>
    ktdp.yield_reduced %s : tensor<4xf16>
  }
  return
}

// -----

#all = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
#one = affine_set<(g) : (g == 0)>

func.func @identity_type(%x: tensor<4xf16>, %zero: tensor<1x4xf16>) attributes {grid = [4]} {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #all : tensor<4xf16> -> !ktdp.tile_future<tensor<4xf16>, groups = #one> {
  ^bb0(%gid: index):
    ktdp.yield_partial %x : tensor<4xf16>
  }
  // expected-error @+1 {{identity #0 has type 'tensor<1x4xf16>' but the partial type is 'tensor<4xf16>'}}
  %r = ktdp.inter_tile_reduce(%f) consumer_tiles_per_group = #all, identity(%zero : tensor<1x4xf16>) : !ktdp.tile_future<tensor<4xf16>, groups = #one> -> tensor<4xf16> {
  ^bb0(%l: tensor<4xf16>, %r2: tensor<4xf16>):
    %s = arith.addf %l, %r2 : tensor<4xf16>
    ktdp.yield_reduced %s : tensor<4xf16>
  }
  return
}

// -----

#all = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
#one = affine_set<(g) : (g == 0)>

func.func @identity_missing(%x: tensor<4xf16>) attributes {grid = [4]} {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #all : tensor<4xf16> -> !ktdp.tile_future<tensor<4xf16>, groups = #one> {
  ^bb0(%gid: index):
    ktdp.yield_partial %x : tensor<4xf16>
  }
  // expected-error @+1 {{expected 'identity(...)'}}
  %r = ktdp.inter_tile_reduce(%f) consumer_tiles_per_group = #all : !ktdp.tile_future<tensor<4xf16>, groups = #one> -> tensor<4xf16> {
  ^bb0(%l: tensor<4xf16>, %r2: tensor<4xf16>):
    %s = arith.addf %l, %r2 : tensor<4xf16>
    ktdp.yield_reduced %s : tensor<4xf16>
  }
  return
}
