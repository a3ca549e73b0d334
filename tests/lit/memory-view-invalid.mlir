// ktdp.construct_memory_view: sizes, strides, memref rank and coordinate_set dimensions
// agree; constant sizes match the memref; nothing is negative; the memory space is a ktdp
// memory space of a tile the grid has.
// RUN: ktir-opt %s -split-input-file -verify-diagnostics --ktdp-strict

func.func @sizes_rank(%p: index) {
  // expected-error @+1 {{has 1 sizes but the memref has rank 2}}
  %v = ktdp.construct_memory_view %p, sizes: [4], strides: [4, 1] {memory_space = #ktdp.memory_space<global>} : memref<4x4xf16>
  return
}

// -----

func.func @strides_rank(%p: index) {
  // expected-error @+1 {{has 1 strides but the memref has rank 2}}
  %v = ktdp.construct_memory_view %p, sizes: [4, 4], strides: [1] {memory_space = #ktdp.memory_space<global>} : memref<4x4xf16>
  return
}

// -----

func.func @coordinate_set_rank(%p: index) {
  // expected-error @+1 {{coordinate_set has 1 dimensions but the memref has rank 2}}
  %v = ktdp.construct_memory_view %p, sizes: [4, 4], strides: [4, 1] {coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 3 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<4x4xf16>
  return
}

// -----

func.func @constant_size(%p: index) {
  // expected-error @+1 {{size #0 is 8 but the memref dimension is 4}}
  %v = ktdp.construct_memory_view %p, sizes: [8, 4], strides: [4, 1] {memory_space = #ktdp.memory_space<global>} : memref<4x4xf16>
  return
}

// -----

func.func @constant_size_value(%p: index) {
  %c8 = arith.constant 8 : index
  // expected-error @+1 {{size #1 is 8 but the memref dimension is 4}}
  %v = ktdp.construct_memory_view %p, sizes: [4, %c8], strides: [4, 1] {memory_space = #ktdp.memory_space<global>} : memref<4x4xf16>
  return
}

// -----

func.func @coordinate_set_extent(%p: index) {
  // expected-error @+1 {{coordinate_set spans 8 coordinates (0..7) along dimension 0 but the memref dimension is 4}}
  %v = ktdp.construct_memory_view %p, sizes: [4, 4], strides: [4, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 3 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<4x4xf16>
  return
}

// -----

func.func @negative_stride(%p: index) {
  // expected-error @+1 {{stride #0 is negative (-4)}}
  %v = ktdp.construct_memory_view %p, sizes: [4, 4], strides: [-4, 1] {memory_space = #ktdp.memory_space<global>} : memref<4x4xf16>
  return
}

// -----

func.func @unbound_symbols(%p: index, %n: index) {
  // expected-error @+1 {{coordinate_set has 2 symbols but only 1 dynamic sizes bind them}}
  %v = ktdp.construct_memory_view %p, sizes: [%n, 4], strides: [4, 1] {coordinate_set = affine_set<(d0, d1)[s0, s1] : (d0 >= 0, -d0 + s0 - 1 >= 0, d1 >= 0, -d1 + s1 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<?x4xf16>
  return
}

// -----

func.func @not_a_memory_space(%p: index) {
  // expected-error @+1 {{attribute 'memory_space' failed to satisfy constraint: ktdp memory space (#ktdp.memory_space or #ktdp.spyre_memory_space)}}
  %v = ktdp.construct_memory_view %p, sizes: [4], strides: [1] {memory_space = 1 : i64} : memref<4xf16>
  return
}

// -----

func.func @no_memory_space(%p: index) {
  // expected-error @+1 {{requires attribute 'memory_space'}}
  %v = ktdp.construct_memory_view %p, sizes: [4], strides: [1] : memref<4xf16>
  return
}

// -----

func.func @owner_outside_grid(%p: index) attributes {grid = [2]} {
  // expected-error @+1 {{memory space #ktdp.memory_space<ct_local, ct_id = 5> names tile 5 but the grid [2] has 2 tile(s)}}
  %v = ktdp.construct_memory_view %p, sizes: [4], strides: [1] {memory_space = #ktdp.memory_space<ct_local, ct_id = 5>} : memref<4xf16>
  return
}

// -----

func.func @memref_space_differs(%p: index) {
  // expected-error @+1 {{memory_space #ktdp.memory_space<global> differs from the memref's memory space #ktdp.memory_space<ct_local>}}
  %v = ktdp.construct_memory_view %p, sizes: [4], strides: [1] {memory_space = #ktdp.memory_space<global>} : memref<4xf16, #ktdp.memory_space<ct_local>>
  return
}
