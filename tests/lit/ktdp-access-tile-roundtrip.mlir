// Round trip of access tiles (plain and affine subscripts, base_map, symbols, transposed
// order, rank 0, dynamic shapes), loads and stores, in the custom and the generic form.
// RUN: ktir-opt %s | ktir-opt | FileCheck %s
// RUN: ktir-opt %s --mlir-print-op-generic | ktir-opt | FileCheck %s

#view = affine_set<(d0, d1) : (d0 >= 0, -d0 + 95 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#row = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#block = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 31 >= 0)>
#tri = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, d0 - d1 >= 0)>
#sym = affine_set<(d0, d1)[s0] : (d0 >= 0, -d0 + s0 - 1 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>

// CHECK-LABEL: func.func @tiles
func.func @tiles(%base: index, %i: index, %n: index) {
  %c0 = arith.constant 0 : index
  %v = ktdp.construct_memory_view %base, sizes: [96, 64], strides: [64, 1] {
    coordinate_set = #view, memory_space = #ktdp.memory_space<global>
  } : memref<96x64xf16>

  // CHECK: %[[T:.*]] = ktdp.construct_access_tile %{{.*}}[%{{.*}}, %{{.*}}] {access_tile_order = #{{.*}}, access_tile_set = #{{.*}}} : memref<96x64xf16> -> !ktdp.access_tile<1x64xindex>
  %t = ktdp.construct_access_tile %v[%i, %c0] {
    access_tile_set = #row, access_tile_order = #id
  } : memref<96x64xf16> -> !ktdp.access_tile<1x64xindex>
  // CHECK: ktdp.load %[[T]] : <1x64xindex> -> tensor<1x64xf16>
  %x = ktdp.load %t : !ktdp.access_tile<1x64xindex> -> tensor<1x64xf16>
  // CHECK: ktdp.store %{{.*}}, %[[T]] : tensor<1x64xf16>, <1x64xindex>
  ktdp.store %x, %t : tensor<1x64xf16>, !ktdp.access_tile<1x64xindex>

  // Affine subscripts are kept as base_map (printed inline); the order transposes.
  // CHECK: ktdp.construct_access_tile %{{.*}}[%[[I:.*]] * 8 + 16, %[[I]] floordiv 2] {access_tile_order = #{{.*}}, access_tile_set = #{{.*}}} : memref<96x64xf16> -> !ktdp.access_tile<32x8xindex>
  %b = ktdp.construct_access_tile %v[%i * 8 + 16, %i floordiv 2] {
    access_tile_set = #block, access_tile_order = #tr
  } : memref<96x64xf16> -> !ktdp.access_tile<32x8xindex>
  %bx = ktdp.load %b : !ktdp.access_tile<32x8xindex> -> tensor<32x8xf16>

  // A triangular set: the shape is not checked against a box.
  // CHECK: ktdp.construct_access_tile {{.*}} -> !ktdp.access_tile<8x8xindex>
  %tri = ktdp.construct_access_tile %v[%c0, %c0] {
    access_tile_set = #tri, access_tile_order = #id
  } : memref<96x64xf16> -> !ktdp.access_tile<8x8xindex>

  // Symbols of the set bind to symbols(...); a dynamic tile dimension.
  // CHECK: ktdp.construct_access_tile %{{.*}}[%{{.*}}, %{{.*}}] symbols(%{{.*}}) {{.*}} -> !ktdp.access_tile<?x64xindex>
  %s = ktdp.construct_access_tile %v[%c0, %c0] symbols(%n) {
    access_tile_set = #sym, access_tile_order = #id
  } : memref<96x64xf16> -> !ktdp.access_tile<?x64xindex>
  // CHECK: ktdp.load %{{.*}} : <?x64xindex> -> tensor<?x64xf16>
  %sx = ktdp.load %s : !ktdp.access_tile<?x64xindex> -> tensor<?x64xf16>
  return
}

// The short type spelling `<4xindex>` that the public tools print is accepted.
// CHECK-LABEL: func.func @short_type
// CHECK: ktdp.store %{{.*}}, %{{.*}} : tensor<4xf32>, <4xindex>
func.func @short_type(%out: index, %x: tensor<4xf32>) attributes {grid = [1]} {
  %c0 = arith.constant 0 : index
  %o = ktdp.construct_memory_view %out, sizes: [4], strides: [1] {memory_space = #ktdp.memory_space<global>} : memref<4xf32>
  %t = ktdp.construct_access_tile %o[%c0] {access_tile_order = affine_map<(d0) -> (d0)>, access_tile_set = affine_set<(d0) : (d0 >= 0, -d0 + 3 >= 0)>} : memref<4xf32> -> !ktdp.access_tile<4xindex>
  ktdp.store %x, %t : tensor<4xf32>, <4xindex>
  %y = ktdp.load %t : <4xindex> -> tensor<4xf32>
  return
}

// Rank 0: a single coordinate.
// CHECK-LABEL: func.func @scalar
// CHECK: ktdp.construct_access_tile %{{.*}}[] {{.*}} : memref<f16> -> !ktdp.access_tile<index>
// CHECK: ktdp.load %{{.*}} : <index> -> tensor<f16>
func.func @scalar(%p: index) {
  %v = ktdp.construct_memory_view %p, sizes: [], strides: [] {memory_space = #ktdp.memory_space<global>} : memref<f16>
  %t = ktdp.construct_access_tile %v[] {
    access_tile_set = affine_set<() : (0 == 0)>, access_tile_order = affine_map<() -> ()>
  } : memref<f16> -> !ktdp.access_tile<index>
  %x = ktdp.load %t : !ktdp.access_tile<index> -> tensor<f16>
  return
}
