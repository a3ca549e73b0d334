// Round trip of indirect (gather/scatter) access tiles: ind(...) and direct subscripts,
// captured values, symbols; the generic form holds the intermediate variables as the
// arguments of a body ended by ktdp.region_terminator.
// RUN: ktir-opt %s | ktir-opt | FileCheck %s
// RUN: ktir-opt %s --mlir-print-op-generic | ktir-opt | FileCheck %s
// RUN: ktir-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

#sq = affine_set<(d0, d1) : (d0 >= 0, -d0 + 63 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#vars4 = affine_set<(d0, d1, d2, d3) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 7 >= 0, d2 >= 0, -d2 + 2047 >= 0, d3 >= 0, -d3 + 127 >= 0)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// CHECK-LABEL: func.func @gather
func.func @gather(%x: index, %i1: index, %i2: index, %off: index) {
  %X = ktdp.construct_memory_view %x, sizes: [64, 64], strides: [64, 1] {
    coordinate_set = #sq, memory_space = #ktdp.memory_space<global>} : memref<64x64xf16>
  %IDX1 = ktdp.construct_memory_view %i1, sizes: [64, 64], strides: [64, 1] {
    coordinate_set = #sq, memory_space = #ktdp.memory_space<global>} : memref<64x64xi32>
  %IDX2 = ktdp.construct_memory_view %i2, sizes: [64, 64], strides: [64, 1] {
    coordinate_set = #sq, memory_space = #ktdp.memory_space<global>} : memref<64x64xi32>

  // CHECK: ktdp.construct_indirect_access_tile intermediate_variables(%[[M:.*]], %[[K:.*]]) %{{.*}}[ind(%{{.*}}[%[[M]], %[[K]]]), ind(%{{.*}}[%[[M]], %[[K]]])] {variables_space_order = #{{.*}}, variables_space_set = #{{.*}}} : memref<64x64xf16>, memref<64x64xi32>, memref<64x64xi32> -> !ktdp.access_tile<64x64xindex>
  %t = ktdp.construct_indirect_access_tile
      intermediate_variables(%m, %k)
      %X[ind(%IDX1[%m, %k]), ind(%IDX2[%m, %k])] {
        variables_space_set = #sq, variables_space_order = #id
      } : memref<64x64xf16>, memref<64x64xi32>, memref<64x64xi32> -> !ktdp.access_tile<64x64xindex>
  %data = ktdp.load %t : !ktdp.access_tile<64x64xindex> -> tensor<64x64xf16>

  // A direct subscript using a captured value, and an indirect one.
  // CHECK: ktdp.construct_indirect_access_tile intermediate_variables(%[[A:.*]], %[[B:.*]]) %{{.*}}[(%[[OFF:.*]] + %[[A]]), ind(%{{.*}}[%[[A]], %[[B]]])]
  %u = ktdp.construct_indirect_access_tile
      intermediate_variables(%a, %b)
      %X[(%a + %off), ind(%IDX2[%a, %b])] {
        variables_space_set = #sq, variables_space_order = #id
      } : memref<64x64xf16>, memref<64x64xi32> -> !ktdp.access_tile<64x64xindex>
  // CHECK: ktdp.store %{{.*}}, %{{.*}} : tensor<64x64xf16>, <64x64xindex>
  ktdp.store %data, %u : tensor<64x64xf16>, !ktdp.access_tile<64x64xindex>
  return
}

// GENERIC: "ktdp.construct_indirect_access_tile"
// GENERIC: per_dim_subscript_kinds = [true, true]
// GENERIC: ^bb0(%{{.*}}: index, %{{.*}}: index):
// GENERIC-NEXT: "ktdp.region_terminator"() : () -> ()

// Paged access: one indirect dimension through a page table, three direct ones.
// CHECK-LABEL: func.func @paged
// CHECK: intermediate_variables(%[[B:.*]], %[[H:.*]], %[[T:.*]], %[[D:.*]]) %{{.*}}[ind(%{{.*}}[%[[B]], %[[T]] floordiv 64]), (%[[H]]), (%[[T]] mod 64), (%[[D]])]
func.func @paged(%x: index, %idx: index) {
  %P = ktdp.construct_memory_view %x, sizes: [10000, 8, 64, 128], strides: [65536, 8192, 128, 1] {
    memory_space = #ktdp.memory_space<global>} : memref<10000x8x64x128xf16>
  %I = ktdp.construct_memory_view %idx, sizes: [4, 32], strides: [32, 1] {
    memory_space = #ktdp.memory_space<global>} : memref<4x32xi32>
  %t = ktdp.construct_indirect_access_tile
      intermediate_variables(%b, %h, %tkv, %dkv)
      %P[ind(%I[%b, %tkv floordiv 64]), (%h), (%tkv mod 64), (%dkv)] {
        variables_space_set = #vars4, variables_space_order = #id4
      } : memref<10000x8x64x128xf16>,memref<4x32xi32> -> !ktdp.access_tile<4x8x2048x128xindex>
  return
}

// Symbols of the variable space bind to symbols(...).
// CHECK-LABEL: func.func @symbolic
// CHECK: symbols(%{{.*}}) {{.*}} -> !ktdp.access_tile<?x64xindex>
func.func @symbolic(%x: index, %i: index, %n: index) {
  %X = ktdp.construct_memory_view %x, sizes: [64, 64], strides: [64, 1] {
    memory_space = #ktdp.memory_space<global>} : memref<64x64xf16>
  %IDX = ktdp.construct_memory_view %i, sizes: [64], strides: [1] {
    memory_space = #ktdp.memory_space<global>} : memref<64xindex>
  %t = ktdp.construct_indirect_access_tile
      intermediate_variables(%m, %k)
      %X[ind(%IDX[%m]), (%k)] symbols(%n) {
        variables_space_set = affine_set<(d0, d1)[s0] : (d0 >= 0, -d0 + s0 - 1 >= 0, d1 >= 0, -d1 + 63 >= 0)>,
        variables_space_order = #id
      } : memref<64x64xf16>, memref<64xindex> -> !ktdp.access_tile<?x64xindex>
  return
}
