// A view of the executing tile's own scratchpad (`ct_local` without `ct_id`) at a constant
// address is no tensor argument: it becomes a buffer at that address, kept through the
// whole kernel; a load from it is read in place (no DMA), a store into it is a copy through
// the corelets (load, SFU mov, store). Only x and y are arguments of the plan.
// RUN: spyre-compile %s -o %t --dump-dir %t.d
// RUN: FileCheck %s --input-file %t.d/02-arguments.txt --check-prefix=ARGS
// RUN: FileCheck %s --input-file %t.d/03-schedule.txt

// ARGS: tensor x f16 [8, 128] input
// ARGS-NEXT: tensor y f16 [8, 128] output
// ARGS-NOT: tensor

// CHECK-LABEL: core 0:
// CHECK: own scratchpad @8192: 1024 bytes at 8192  resident (the whole kernel)
// CHECK: dma.load x+0
// CHECK-NOT: dma.load
// CHECK: st copy to buf[[OWN:[0-9]+]]
// CHECK-NOT: dma.load
// CHECK: dma.store y+0
// CHECK-LABEL: core 1:
// CHECK: own scratchpad @8192: 1024 bytes at 8192  resident (the whole kernel)
// CHECK: dma.load x+1024

#set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 127 >= 0)>
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @own(%x_ptr: index, %y_ptr: index) attributes {grid = [2]} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %t = ktdp.get_compute_tile_id : index
  %r = arith.muli %t, %c4 : index
  %x = ktdp.construct_memory_view %x_ptr, sizes: [8, 128], strides: [128, 1] {memory_space = #ktdp.memory_space<global>} : memref<8x128xf16>
  %y = ktdp.construct_memory_view %y_ptr, sizes: [8, 128], strides: [128, 1] {memory_space = #ktdp.memory_space<global>} : memref<8x128xf16>
  %base = arith.constant 4096 : index
  %own = ktdp.construct_memory_view %base, sizes: [4, 128], strides: [128, 1] {memory_space = #ktdp.memory_space<ct_local>} : memref<4x128xf16>
  %xa = ktdp.construct_access_tile %x[%r, %c0] {access_tile_order = #map, access_tile_set = #set} : memref<8x128xf16> -> !ktdp.access_tile<4x128xindex>
  %v = ktdp.load %xa : !ktdp.access_tile<4x128xindex> -> tensor<4x128xf16>
  %e = math.exp %v : tensor<4x128xf16>
  %oa = ktdp.construct_access_tile %own[%c0, %c0] {access_tile_order = #map, access_tile_set = #set} : memref<4x128xf16> -> !ktdp.access_tile<4x128xindex>
  ktdp.store %e, %oa : tensor<4x128xf16>, !ktdp.access_tile<4x128xindex>
  %w = ktdp.load %oa : !ktdp.access_tile<4x128xindex> -> tensor<4x128xf16>
  %z = arith.addf %w, %v : tensor<4x128xf16>
  %ya = ktdp.construct_access_tile %y[%r, %c0] {access_tile_order = #map, access_tile_set = #set} : memref<8x128xf16> -> !ktdp.access_tile<4x128xindex>
  ktdp.store %z, %ya : tensor<4x128xf16>, !ktdp.access_tile<4x128xindex>
  return
}
