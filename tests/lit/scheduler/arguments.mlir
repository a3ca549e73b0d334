// Tensor arguments come from the memory views: pointer arguments (named after the
// source, "_ptr" dropped) with their element type, shape and role; other integer
// arguments are launch scalars unless --const fixes them.
// RUN: spyre-compile %s -o %t --dump-dir %t.d
// RUN: FileCheck %s --input-file %t.d/02-arguments.txt
// RUN: spyre-compile %s -o %t --dump-dir %t.c --const n=2
// RUN: FileCheck %s --check-prefix=CONST --input-file %t.c/02-arguments.txt

// CHECK: tensor x f16 [4, 128] input  <- argument 0
// CHECK: tensor y f16 [4, 128] inout  <- argument 1
// CHECK: scalar n  <- argument 2
// CONST-NOT: scalar
module {
  func.func @args(%x_ptr: index, %y_ptr: index, %n: index) attributes {grid = [2]} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %id = ktdp.get_compute_tile_id : index
    %row = arith.muli %id, %c2 : index
    %x = ktdp.construct_memory_view %x_ptr, sizes: [4, 128], strides: [128, 1] {
      memory_space = #ktdp.memory_space<global>
    } : memref<4x128xf16>
    %y = ktdp.construct_memory_view %y_ptr, sizes: [4, 128], strides: [128, 1] {
      memory_space = #ktdp.memory_space<global>
    } : memref<4x128xf16>
    scf.for %i = %c0 to %n step %c1 {
      %xt = ktdp.construct_access_tile %x[%row, %c0] {
        access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 127 >= 0)>,
        access_tile_order = affine_map<(d0, d1) -> (d0, d1)>
      } : memref<4x128xf16> -> !ktdp.access_tile<2x128xindex>
      %yt = ktdp.construct_access_tile %y[%row, %c0] {
        access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 127 >= 0)>,
        access_tile_order = affine_map<(d0, d1) -> (d0, d1)>
      } : memref<4x128xf16> -> !ktdp.access_tile<2x128xindex>
      %a = ktdp.load %xt : !ktdp.access_tile<2x128xindex> -> tensor<2x128xf16>
      %b = ktdp.load %yt : !ktdp.access_tile<2x128xindex> -> tensor<2x128xf16>
      %s = arith.addf %a, %b : tensor<2x128xf16>
      ktdp.store %s, %yt : tensor<2x128xf16>, !ktdp.access_tile<2x128xindex>
    }
    return
  }
}
