// Round trip of tile ids, memory views (static, dynamic, both memory-space spellings)
// and distributed views, in the custom and the generic form.
// RUN: ktir-opt %s | ktir-opt | FileCheck %s
// RUN: ktir-opt %s --mlir-print-op-generic | ktir-opt | FileCheck %s

#rows = affine_set<(d0, d1) : (d0 >= 0, -d0 + 95 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#top = affine_set<(d0, d1) : (d0 >= 0, -d0 + 31 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#bottom = affine_set<(d0, d1) : (d0 >= 32, -d0 + 63 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#dyn = affine_set<(d0, d1)[s0] : (d0 >= 0, -d0 + 63 >= 0, d1 >= 0, -d1 + s0 - 1 >= 0)>

// CHECK-LABEL: func.func @tile_ids
// CHECK: ktdp.get_compute_tile_id : index
// CHECK: ktdp.get_compute_tile_id : index, index
// CHECK: ktdp.get_compute_tile_id : index, index, index
func.func @tile_ids() -> (index, index, index) attributes {grid = [2, 2, 8]} {
  %id = ktdp.get_compute_tile_id : index
  %x, %y = ktdp.get_compute_tile_id : index, index
  %a, %b, %c = ktdp.get_compute_tile_id : index, index, index
  return %id, %y, %c : index, index, index
}

// CHECK-LABEL: func.func @views
// CHECK: ktdp.construct_memory_view %{{.*}}, sizes: [96, 64], strides: [64, 1] {coordinate_set = #{{.*}}, memory_space = #ktdp.memory_space<global>} : memref<96x64xf16>
// CHECK: ktdp.construct_memory_view %{{.*}}, sizes: [64, %{{.*}}], strides: [%{{.*}}, 1] {coordinate_set = #{{.*}}, memory_space = #ktdp.memory_space<global>} : memref<64x?xf16>
// CHECK: ktdp.construct_memory_view %{{.*}}, sizes: [4], strides: [1] {memory_space = #ktdp.memory_space<ct_local>} : memref<4xf32>
// CHECK: ktdp.construct_memory_view %{{.*}}, sizes: [32, 64], strides: [1, 32] {coordinate_set = #{{.*}}, memory_space = #ktdp.memory_space<ct_local, ct_id = 1>} : memref<32x64xf16>
// CHECK: ktdp.construct_memory_view %{{.*}}, sizes: [8], strides: [1] {memory_space = #ktdp.spyre_memory_space<HBM>} : memref<8xf16>
// CHECK: ktdp.construct_memory_view %{{.*}}, sizes: [8], strides: [1] {memory_space = #ktdp.spyre_memory_space<LX, core = 3>} : memref<8xf16>
// CHECK: ktdp.construct_memory_view %{{.*}}, sizes: [], strides: [] {memory_space = #ktdp.memory_space<global>} : memref<f16>
func.func @views(%base: index, %n_in: i32) attributes {grid = [4]} {
  %n = arith.index_cast %n_in : i32 to index
  %a = ktdp.construct_memory_view %base, sizes: [96, 64], strides: [64, 1] {
    coordinate_set = #rows, memory_space = #ktdp.memory_space<global>
  } : memref<96x64xf16>
  %d = ktdp.construct_memory_view %base, sizes : [64, %n], strides : [%n, 1] {
    coordinate_set = #dyn, memory_space = #ktdp.memory_space<global>
  } : memref<64x?xf16>
  %l = ktdp.construct_memory_view %base, sizes: [4], strides: [1] {memory_space = #ktdp.memory_space<ct_local>} : memref<4xf32>
  %c = ktdp.construct_memory_view %base, sizes: [32, 64], strides: [1, 32] {
    coordinate_set = #bottom, memory_space = #ktdp.memory_space<ct_local, ct_id = 1>
  } : memref<32x64xf16>
  %h = ktdp.construct_memory_view %base, sizes: [8], strides: [1] {memory_space = #ktdp.spyre_memory_space<HBM>} : memref<8xf16>
  %x = ktdp.construct_memory_view %base, sizes: [8], strides: [1] {memory_space = #ktdp.spyre_memory_space<LX, core = 3>} : memref<8xf16>
  %s = ktdp.construct_memory_view %base, sizes: [], strides: [] {memory_space = #ktdp.memory_space<global>} : memref<f16>
  return
}

// CHECK-LABEL: func.func @distributed
// CHECK: ktdp.construct_distributed_memory_view(%{{.*}}, %{{.*}} : memref<32x64xf16>, memref<32x64xf16>) : memref<64x64xf16>
// CHECK: ktdp.construct_distributed_memory_view(%{{.*}}, %{{.*}} : memref<64x?xf16>, memref<64x?xf16>) : memref<64x?xf16>
func.func @distributed(%p0: index, %p1: index, %n: index) attributes {grid = [2]} {
  %top = ktdp.construct_memory_view %p0, sizes: [32, 64], strides: [64, 1] {
    coordinate_set = #top, memory_space = #ktdp.memory_space<ct_local, ct_id = 0>
  } : memref<32x64xf16>
  %bottom = ktdp.construct_memory_view %p1, sizes: [32, 64], strides: [64, 1] {
    coordinate_set = #bottom, memory_space = #ktdp.memory_space<ct_local, ct_id = 1>
  } : memref<32x64xf16>
  %all = ktdp.construct_distributed_memory_view
      (%top, %bottom : memref<32x64xf16>, memref<32x64xf16>) : memref<64x64xf16>
  %d0 = ktdp.construct_memory_view %p0, sizes: [64, %n], strides: [%n, 1] {
    coordinate_set = #dyn, memory_space = #ktdp.memory_space<global>
  } : memref<64x?xf16>
  %d1 = ktdp.construct_memory_view %p1, sizes: [64, %n], strides: [%n, 1] {
    coordinate_set = #dyn, memory_space = #ktdp.memory_space<global>
  } : memref<64x?xf16>
  %dall = ktdp.construct_distributed_memory_view(%d0, %d1 : memref<64x?xf16>, memref<64x?xf16>) : memref<64x?xf16>
  return
}
