// SPMD specialisation: one copy of the function per tile of the grid, the tile id folded
// into constants (row-major over a multi-dimensional grid), then canonicalised.
// RUN: spyre-compile %s -o %t --dump-dir %t.d
// RUN: FileCheck %s --input-file %t.d/01-specialized.mlir
// RUN: spyre-compile %s -o %t --dump-dir %t.g --grid 1,2
// RUN: FileCheck %s --check-prefix=GRID --input-file %t.g/01-specialized.mlir

// CHECK-LABEL: func.func @spmd_tile0
// CHECK-NOT: ktdp.get_compute_tile_id
// CHECK: ktdp.construct_memory_view %arg0, sizes: [4, 64]
// CHECK-LABEL: func.func @spmd_tile3
// CHECK: %[[C3:.*]] = arith.constant 3 : index
// CHECK-NOT: func.func @spmd_tile4
// GRID: func.func @spmd_tile1
// GRID-NOT: func.func @spmd_tile2
module {
  func.func @spmd(%x_ptr: index) attributes {grid = [2, 2]} {
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %i, %j = ktdp.get_compute_tile_id : index, index
    %r0 = arith.muli %i, %c2 : index
    %row = arith.addi %r0, %j : index
    %v = ktdp.construct_memory_view %x_ptr, sizes: [4, 64], strides: [64, 1] {
      memory_space = #ktdp.memory_space<global>
    } : memref<4x64xf16>
    %t = ktdp.construct_access_tile %v[%row, %c0] {
      access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 63 >= 0)>,
      access_tile_order = affine_map<(d0, d1) -> (d0, d1)>
    } : memref<4x64xf16> -> !ktdp.access_tile<1x64xindex>
    %d = ktdp.load %t : !ktdp.access_tile<1x64xindex> -> tensor<1x64xf16>
    %e = math.exp %d : tensor<1x64xf16>
    ktdp.store %e, %t : tensor<1x64xf16>, !ktdp.access_tile<1x64xindex>
    return
  }
}
