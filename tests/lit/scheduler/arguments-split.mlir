// Names come from the text that was parsed: each --split-input-file chunk is named from its
// own lines (the file's lines at the chunk's line numbers are another kernel's).
// RUN: spyre-compile %s --split-input-file -o %t --dump-dir %t.d
// RUN: FileCheck %s --input-file %t.d/02-arguments.txt

// The dumps are the last chunk's.
// CHECK: tensor Q f16 [4, 128] input  <- argument 0
// CHECK: tensor R f16 [4, 128] output  <- argument 1
// CHECK-NOT: arg0
module {
  func.func @first(%x_ptr: index, %y_ptr: index) attributes {grid = [1]} {
    %c0 = arith.constant 0 : index
    %x = ktdp.construct_memory_view %x_ptr, sizes: [4, 128], strides: [128, 1] {
      memory_space = #ktdp.memory_space<global>
    } : memref<4x128xf16>
    %y = ktdp.construct_memory_view %y_ptr, sizes: [4, 128], strides: [128, 1] {
      memory_space = #ktdp.memory_space<global>
    } : memref<4x128xf16>
    %xt = ktdp.construct_access_tile %x[%c0, %c0] {
      access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 127 >= 0)>,
      access_tile_order = affine_map<(d0, d1) -> (d0, d1)>
    } : memref<4x128xf16> -> !ktdp.access_tile<4x128xindex>
    %v = ktdp.load %xt : !ktdp.access_tile<4x128xindex> -> tensor<4x128xf16>
    %yt = ktdp.construct_access_tile %y[%c0, %c0] {
      access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 127 >= 0)>,
      access_tile_order = affine_map<(d0, d1) -> (d0, d1)>
    } : memref<4x128xf16> -> !ktdp.access_tile<4x128xindex>
    ktdp.store %v, %yt : tensor<4x128xf16>, !ktdp.access_tile<4x128xindex>
    return
  }
}

// -----

module {
  func.func @second(%Q_ptr: index, %R_ptr: index) attributes {grid = [1]} {
    %c0 = arith.constant 0 : index
    %q = ktdp.construct_memory_view %Q_ptr, sizes: [4, 128], strides: [128, 1] {
      memory_space = #ktdp.memory_space<global>
    } : memref<4x128xf16>
    %r = ktdp.construct_memory_view %R_ptr, sizes: [4, 128], strides: [128, 1] {
      memory_space = #ktdp.memory_space<global>
    } : memref<4x128xf16>
    %qt = ktdp.construct_access_tile %q[%c0, %c0] {
      access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 127 >= 0)>,
      access_tile_order = affine_map<(d0, d1) -> (d0, d1)>
    } : memref<4x128xf16> -> !ktdp.access_tile<4x128xindex>
    %v = ktdp.load %qt : !ktdp.access_tile<4x128xindex> -> tensor<4x128xf16>
    %rt = ktdp.construct_access_tile %r[%c0, %c0] {
      access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 127 >= 0)>,
      access_tile_order = affine_map<(d0, d1) -> (d0, d1)>
    } : memref<4x128xf16> -> !ktdp.access_tile<4x128xindex>
    ktdp.store %v, %rt : tensor<4x128xf16>, !ktdp.access_tile<4x128xindex>
    return
  }
}
