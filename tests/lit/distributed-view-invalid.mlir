// ktdp.construct_distributed_memory_view: partitions share the result's rank and element
// type, and their coordinate sets span the result's extents.
// RUN: ktir-opt %s -split-input-file -verify-diagnostics --ktdp-strict

func.func @rank(%p: index) {
  %a = ktdp.construct_memory_view %p, sizes: [4], strides: [1] {memory_space = #ktdp.memory_space<global>} : memref<4xf16>
  // expected-error @+1 {{partition #0 has rank 1 but the distributed view has rank 2}}
  %d = ktdp.construct_distributed_memory_view(%a : memref<4xf16>) : memref<4x4xf16>
  return
}

// -----

func.func @element_type(%p: index) {
  %a = ktdp.construct_memory_view %p, sizes: [4], strides: [1] {memory_space = #ktdp.memory_space<global>} : memref<4xf32>
  // expected-error @+1 {{partition #0 has element type 'f32' but the distributed view has 'f16'}}
  %d = ktdp.construct_distributed_memory_view(%a : memref<4xf32>) : memref<4xf16>
  return
}

// -----

func.func @union_extent(%p: index, %q: index) {
  %a = ktdp.construct_memory_view %p, sizes: [32, 64], strides: [64, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 31 >= 0, d1 >= 0, -d1 + 63 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<32x64xf16>
  %b = ktdp.construct_memory_view %q, sizes: [32, 64], strides: [64, 1] {coordinate_set = affine_set<(d0, d1) : (d0 - 32 >= 0, -d0 + 63 >= 0, d1 >= 0, -d1 + 63 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<32x64xf16>
  // expected-error @+1 {{partitions cover coordinates 0..63 of dimension 0 but the distributed view has 128}}
  %d = ktdp.construct_distributed_memory_view(%a, %b : memref<32x64xf16>, memref<32x64xf16>) : memref<128x64xf16>
  return
}
