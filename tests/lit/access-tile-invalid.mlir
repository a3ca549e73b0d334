// ktdp.construct_access_tile: subscripts = access_tile_set dimensions = order dimensions =
// tile rank (the verifier's rules, upstream's); with --ktdp-strict also = view rank, the
// order is a permutation, and a constant box, in the order, gives the tile shape.
// RUN: ktir-opt %s -split-input-file -verify-diagnostics --ktdp-strict

#box = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#id = affine_map<(d0, d1) -> (d0, d1)>

func.func @subscripts(%p: index, %i: index) {
  %v = ktdp.construct_memory_view %p, sizes: [4, 64], strides: [64, 1] {memory_space = #ktdp.memory_space<global>} : memref<4x64xf16>
  // expected-error @+1 {{has 1 subscripts but the view has rank 2}}
  %t = ktdp.construct_access_tile %v[%i] {access_tile_set = affine_set<(d0) : (d0 >= 0, -d0 + 63 >= 0)>, access_tile_order = affine_map<(d0) -> (d0)>} : memref<4x64xf16> -> !ktdp.access_tile<64xindex>
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

func.func @set_rank(%p: index, %i: index) {
  %v = ktdp.construct_memory_view %p, sizes: [4, 64], strides: [64, 1] {memory_space = #ktdp.memory_space<global>} : memref<4x64xf16>
  // expected-error @+1 {{access_tile_set has 1 dimensions but there are 2 subscripts}}
  %t = ktdp.construct_access_tile %v[%i, %i] {access_tile_set = affine_set<(d0) : (d0 >= 0, -d0 + 63 >= 0)>, access_tile_order = #id} : memref<4x64xf16> -> !ktdp.access_tile<1x64xindex>
  return
}

// -----

#box = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#id = affine_map<(d0, d1) -> (d0, d1)>

func.func @tile_rank(%p: index, %i: index) {
  %v = ktdp.construct_memory_view %p, sizes: [4, 64], strides: [64, 1] {memory_space = #ktdp.memory_space<global>} : memref<4x64xf16>
  // expected-error @+1 {{result access tile has rank 1 but access_tile_set has 2 dimensions}}
  %t = ktdp.construct_access_tile %v[%i, %i] {access_tile_set = #box, access_tile_order = #id} : memref<4x64xf16> -> !ktdp.access_tile<64xindex>
  return
}

// -----

#box = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 63 >= 0)>

func.func @order_not_permutation(%p: index, %i: index) {
  %v = ktdp.construct_memory_view %p, sizes: [4, 64], strides: [64, 1] {memory_space = #ktdp.memory_space<global>} : memref<4x64xf16>
  // expected-error @+1 {{access_tile_order affine_map<(d0, d1) -> (d0, d0)> must be a permutation of the 2 tile dimensions}}
  %t = ktdp.construct_access_tile %v[%i, %i] {access_tile_set = #box, access_tile_order = affine_map<(d0, d1) -> (d0, d0)>} : memref<4x64xf16> -> !ktdp.access_tile<1x64xindex>
  return
}

// -----

#box = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#id = affine_map<(d0, d1) -> (d0, d1)>

func.func @shape(%p: index, %i: index) {
  %v = ktdp.construct_memory_view %p, sizes: [4, 64], strides: [64, 1] {memory_space = #ktdp.memory_space<global>} : memref<4x64xf16>
  // expected-error @+1 {{result access tile shape [2, 64] does not match access_tile_set in its order, which spans [1, 64]}}
  %t = ktdp.construct_access_tile %v[%i, %i] {access_tile_set = #box, access_tile_order = #id} : memref<4x64xf16> -> !ktdp.access_tile<2x64xindex>
  return
}

// -----

#block = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 31 >= 0)>

func.func @transposed_shape(%p: index, %i: index) {
  %v = ktdp.construct_memory_view %p, sizes: [64, 64], strides: [64, 1] {memory_space = #ktdp.memory_space<global>} : memref<64x64xf16>
  // expected-error @+1 {{result access tile shape [8, 32] does not match access_tile_set in its order, which spans [32, 8]}}
  %t = ktdp.construct_access_tile %v[%i, %i] {access_tile_set = #block, access_tile_order = affine_map<(d0, d1) -> (d1, d0)>} : memref<64x64xf16> -> !ktdp.access_tile<8x32xindex>
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

func.func @symbols(%p: index, %i: index) {
  %v = ktdp.construct_memory_view %p, sizes: [4, 64], strides: [64, 1] {memory_space = #ktdp.memory_space<global>} : memref<4x64xf16>
  // expected-error @+1 {{access_tile_set has 1 symbols but 0 symbol values are given}}
  %t = ktdp.construct_access_tile %v[%i, %i] {access_tile_set = affine_set<(d0, d1)[s0] : (d0 >= 0, -d0 + s0 >= 0, d1 >= 0, -d1 + 63 >= 0)>, access_tile_order = #id} : memref<4x64xf16> -> !ktdp.access_tile<?x64xindex>
  return
}

// -----

#box = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#id = affine_map<(d0, d1) -> (d0, d1)>

func.func @base_map_attribute(%p: index, %i: index) {
  %v = ktdp.construct_memory_view %p, sizes: [4, 64], strides: [64, 1] {memory_space = #ktdp.memory_space<global>} : memref<4x64xf16>
  // expected-error @+1 {{'base_map' is given by the subscripts, not as an attribute}}
  %t = ktdp.construct_access_tile %v[%i, %i] {base_map = #id, access_tile_set = #box, access_tile_order = #id} : memref<4x64xf16> -> !ktdp.access_tile<1x64xindex>
  return
}
