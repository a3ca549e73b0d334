// ktdp.load / ktdp.store: the tensor matches the access tile one to one (rank and shape)
// and has the element type of the view the tile addresses.
// RUN: ktir-opt %s -split-input-file -verify-diagnostics --ktdp-strict

#row = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#id = affine_map<(d0, d1) -> (d0, d1)>

func.func @load_shape(%p: index) {
  %c0 = arith.constant 0 : index
  %v = ktdp.construct_memory_view %p, sizes: [4, 64], strides: [64, 1] {memory_space = #ktdp.memory_space<global>} : memref<4x64xf16>
  %t = ktdp.construct_access_tile %v[%c0, %c0] {access_tile_set = #row, access_tile_order = #id} : memref<4x64xf16> -> !ktdp.access_tile<1x64xindex>
  // expected-error @+1 {{result shape [64, 1] does not match the access tile shape [1, 64]}}
  %x = ktdp.load %t : !ktdp.access_tile<1x64xindex> -> tensor<64x1xf16>
  return
}

// -----

#row = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#id = affine_map<(d0, d1) -> (d0, d1)>

func.func @load_rank(%p: index) {
  %c0 = arith.constant 0 : index
  %v = ktdp.construct_memory_view %p, sizes: [4, 64], strides: [64, 1] {memory_space = #ktdp.memory_space<global>} : memref<4x64xf16>
  %t = ktdp.construct_access_tile %v[%c0, %c0] {access_tile_set = #row, access_tile_order = #id} : memref<4x64xf16> -> !ktdp.access_tile<1x64xindex>
  // expected-error @+1 {{result has rank 1 but the access tile has rank 2}}
  %x = ktdp.load %t : !ktdp.access_tile<1x64xindex> -> tensor<64xf16>
  return
}

// -----

#row = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#id = affine_map<(d0, d1) -> (d0, d1)>

func.func @load_element_type(%p: index) {
  %c0 = arith.constant 0 : index
  %v = ktdp.construct_memory_view %p, sizes: [4, 64], strides: [64, 1] {memory_space = #ktdp.memory_space<global>} : memref<4x64xf16>
  %t = ktdp.construct_access_tile %v[%c0, %c0] {access_tile_set = #row, access_tile_order = #id} : memref<4x64xf16> -> !ktdp.access_tile<1x64xindex>
  // expected-error @+1 {{result element type 'f32' does not match the element type 'f16' of the view the tile addresses}}
  %x = ktdp.load %t : !ktdp.access_tile<1x64xindex> -> tensor<1x64xf32>
  return
}

// -----

#row = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#id = affine_map<(d0, d1) -> (d0, d1)>

func.func @store_shape(%p: index, %x: tensor<2x64xf16>) {
  %c0 = arith.constant 0 : index
  %v = ktdp.construct_memory_view %p, sizes: [4, 64], strides: [64, 1] {memory_space = #ktdp.memory_space<global>} : memref<4x64xf16>
  %t = ktdp.construct_access_tile %v[%c0, %c0] {access_tile_set = #row, access_tile_order = #id} : memref<4x64xf16> -> !ktdp.access_tile<1x64xindex>
  // expected-error @+1 {{stored value shape [2, 64] does not match the access tile shape [1, 64]}}
  ktdp.store %x, %t : tensor<2x64xf16>, !ktdp.access_tile<1x64xindex>
  return
}

// -----

func.func @store_element_type(%x: tensor<64x64xf32>, %y: memref<64x64xf16>, %i: memref<64xi32>) {
  %t = ktdp.construct_indirect_access_tile intermediate_variables(%m, %k) %y[ind(%i[%m]), (%k)] {variables_space_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 63 >= 0, d1 >= 0, -d1 + 63 >= 0)>, variables_space_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<64x64xf16>, memref<64xi32> -> !ktdp.access_tile<64x64xindex>
  // expected-error @+1 {{stored value element type 'f32' does not match the element type 'f16' of the view the tile addresses}}
  ktdp.store %x, %t : tensor<64x64xf32>, !ktdp.access_tile<64x64xindex>
  return
}

// -----

func.func @store_rank(%x: tensor<64xf16>, %t: !ktdp.access_tile<1x64xindex>) {
  // expected-error @+1 {{stored value has rank 1 but the access tile has rank 2}}
  ktdp.store %x, %t : tensor<64xf16>, !ktdp.access_tile<1x64xindex>
  return
}
