// Views of the executing tile's own scratchpad (ct_local without ct_id) that cannot be
// read or written in place: an error at the view, access tile or op, with the reason.
// RUN: spyre-compile %s -o %t --split-input-file --verify-diagnostics

func.func @address_from_a_launch_scalar(%x_ptr: index, %n: index) attributes {grid = [2]} {
  %c0 = arith.constant 0 : index
  %t = ktdp.get_compute_tile_id : index
  %b = arith.addi %n, %c0 : index
  %x = ktdp.construct_memory_view %x_ptr, sizes: [4, 128], strides: [128, 1] {memory_space = #ktdp.memory_space<global>} : memref<4x128xf16>
  %xa = ktdp.construct_access_tile %x[%c0, %c0] {access_tile_order = affine_map<(d0, d1) -> (d0, d1)>, access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 127 >= 0)>} : memref<4x128xf16> -> !ktdp.access_tile<4x128xindex>
  %v = ktdp.load %xa : !ktdp.access_tile<4x128xindex> -> tensor<4x128xf16>
  // expected-error @+1 {{views the executing tile's own scratchpad (ct_local without ct_id) at an address that is not a constant}}
  %own = ktdp.construct_memory_view %b, sizes: [4, 128], strides: [128, 1] {memory_space = #ktdp.memory_space<ct_local>} : memref<4x128xf16>
  %oa = ktdp.construct_access_tile %own[%c0, %c0] {access_tile_order = affine_map<(d0, d1) -> (d0, d1)>, access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 127 >= 0)>} : memref<4x128xf16> -> !ktdp.access_tile<4x128xindex>
  ktdp.store %v, %oa : tensor<4x128xf16>, !ktdp.access_tile<4x128xindex>
  return
}

// -----

func.func @address_inside_a_stick(%x_ptr: index) attributes {grid = [2]} {
  %c0 = arith.constant 0 : index
  %t = ktdp.get_compute_tile_id : index
  %b = arith.constant 33 : index
  %x = ktdp.construct_memory_view %x_ptr, sizes: [4, 128], strides: [128, 1] {memory_space = #ktdp.memory_space<global>} : memref<4x128xf16>
  %xa = ktdp.construct_access_tile %x[%c0, %c0] {access_tile_order = affine_map<(d0, d1) -> (d0, d1)>, access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 127 >= 0)>} : memref<4x128xf16> -> !ktdp.access_tile<4x128xindex>
  %v = ktdp.load %xa : !ktdp.access_tile<4x128xindex> -> tensor<4x128xf16>
  // expected-error @+1 {{views bytes [66, 1090) of the tile's own scratchpad; they must start on a stick (128 bytes)}}
  %own = ktdp.construct_memory_view %b, sizes: [4, 128], strides: [128, 1] {memory_space = #ktdp.memory_space<ct_local>} : memref<4x128xf16>
  %oa = ktdp.construct_access_tile %own[%c0, %c0] {access_tile_order = affine_map<(d0, d1) -> (d0, d1)>, access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 127 >= 0)>} : memref<4x128xf16> -> !ktdp.access_tile<4x128xindex>
  ktdp.store %v, %oa : tensor<4x128xf16>, !ktdp.access_tile<4x128xindex>
  return
}

// -----

func.func @address_past_the_budget(%x_ptr: index) attributes {grid = [2]} {
  %c0 = arith.constant 0 : index
  %t = ktdp.get_compute_tile_id : index
  %b = arith.constant 1048576 : index
  %x = ktdp.construct_memory_view %x_ptr, sizes: [4, 128], strides: [128, 1] {memory_space = #ktdp.memory_space<global>} : memref<4x128xf16>
  %xa = ktdp.construct_access_tile %x[%c0, %c0] {access_tile_order = affine_map<(d0, d1) -> (d0, d1)>, access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 127 >= 0)>} : memref<4x128xf16> -> !ktdp.access_tile<4x128xindex>
  %v = ktdp.load %xa : !ktdp.access_tile<4x128xindex> -> tensor<4x128xf16>
  // expected-error @+1 {{views bytes [2097152, 2098176) of the tile's own scratchpad}}
  %own = ktdp.construct_memory_view %b, sizes: [4, 128], strides: [128, 1] {memory_space = #ktdp.memory_space<ct_local>} : memref<4x128xf16>
  %oa = ktdp.construct_access_tile %own[%c0, %c0] {access_tile_order = affine_map<(d0, d1) -> (d0, d1)>, access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 127 >= 0)>} : memref<4x128xf16> -> !ktdp.access_tile<4x128xindex>
  ktdp.store %v, %oa : tensor<4x128xf16>, !ktdp.access_tile<4x128xindex>
  return
}

// -----

func.func @rows_inside_a_stick(%x_ptr: index) attributes {grid = [2]} {
  %c0 = arith.constant 0 : index
  %t = ktdp.get_compute_tile_id : index
  %b = arith.constant 0 : index
  %x = ktdp.construct_memory_view %x_ptr, sizes: [4, 40], strides: [40, 1] {memory_space = #ktdp.memory_space<global>} : memref<4x40xf16>
  %xa = ktdp.construct_access_tile %x[%c0, %c0] {access_tile_order = affine_map<(d0, d1) -> (d0, d1)>, access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 39 >= 0)>} : memref<4x40xf16> -> !ktdp.access_tile<4x40xindex>
  %v = ktdp.load %xa : !ktdp.access_tile<4x40xindex> -> tensor<4x40xf16>
  %own = ktdp.construct_memory_view %b, sizes: [4, 40], strides: [64, 1] {memory_space = #ktdp.memory_space<ct_local>} : memref<4x40xf16>
  %oa = ktdp.construct_access_tile %own[%c0, %c0] {access_tile_order = affine_map<(d0, d1) -> (d0, d1)>, access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 39 >= 0)>} : memref<4x40xf16> -> !ktdp.access_tile<4x40xindex>
  // expected-error @+1 {{loads rows of 40 elements from the tile's own scratchpad, which end inside a stick of 64}}
  %w = ktdp.load %oa : !ktdp.access_tile<4x40xindex> -> tensor<4x40xf16>
  ktdp.store %w, %xa : tensor<4x40xf16>, !ktdp.access_tile<4x40xindex>
  return
}

// -----

func.func @big_position_from_a_launch_scalar(%x_ptr: index, %n: index) attributes {grid = [2]} {
  %c0 = arith.constant 0 : index
  %t = ktdp.get_compute_tile_id : index
  %b = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %r = arith.muli %n, %c4 : index
  %x = ktdp.construct_memory_view %x_ptr, sizes: [4, 128], strides: [128, 1] {memory_space = #ktdp.memory_space<global>} : memref<4x128xf16>
  %xa = ktdp.construct_access_tile %x[%c0, %c0] {access_tile_order = affine_map<(d0, d1) -> (d0, d1)>, access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 127 >= 0)>} : memref<4x128xf16> -> !ktdp.access_tile<4x128xindex>
  %v = ktdp.load %xa : !ktdp.access_tile<4x128xindex> -> tensor<4x128xf16>
  %own = ktdp.construct_memory_view %b, sizes: [8, 128], strides: [128, 1] {memory_space = #ktdp.memory_space<ct_local>} : memref<8x128xf16>
  // expected-error @+1 {{reaches the tile's own scratchpad at a position that is not a constant (in dimension 0)}}
  %oa = ktdp.construct_access_tile %own[%r, %c0] {access_tile_order = affine_map<(d0, d1) -> (d0, d1)>, access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 127 >= 0)>} : memref<8x128xf16> -> !ktdp.access_tile<4x128xindex>
  %w = ktdp.load %oa : !ktdp.access_tile<4x128xindex> -> tensor<4x128xf16>
  ktdp.store %w, %xa : tensor<4x128xf16>, !ktdp.access_tile<4x128xindex>
  return
}

// -----

func.func @overlapping_blocks(%x_ptr: index) attributes {grid = [2]} {
  %c0 = arith.constant 0 : index
  %t = ktdp.get_compute_tile_id : index
  %b = arith.constant 0 : index
  %b2 = arith.constant 256 : index
  %x = ktdp.construct_memory_view %x_ptr, sizes: [4, 128], strides: [128, 1] {memory_space = #ktdp.memory_space<global>} : memref<4x128xf16>
  %xa = ktdp.construct_access_tile %x[%c0, %c0] {access_tile_order = affine_map<(d0, d1) -> (d0, d1)>, access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 127 >= 0)>} : memref<4x128xf16> -> !ktdp.access_tile<4x128xindex>
  %v = ktdp.load %xa : !ktdp.access_tile<4x128xindex> -> tensor<4x128xf16>
  // expected-error @+1 {{keeps bytes [0, 1024) of the tile's own scratchpad, which overlap own scratchpad @512 at [512, 1536) on core 0}}
  %own = ktdp.construct_memory_view %b, sizes: [4, 128], strides: [128, 1] {memory_space = #ktdp.memory_space<ct_local>} : memref<4x128xf16>
  %oa = ktdp.construct_access_tile %own[%c0, %c0] {access_tile_order = affine_map<(d0, d1) -> (d0, d1)>, access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 127 >= 0)>} : memref<4x128xf16> -> !ktdp.access_tile<4x128xindex>
  ktdp.store %v, %oa : tensor<4x128xf16>, !ktdp.access_tile<4x128xindex>
  %own2 = ktdp.construct_memory_view %b2, sizes: [4, 128], strides: [128, 1] {memory_space = #ktdp.memory_space<ct_local>} : memref<4x128xf16>
  %ob = ktdp.construct_access_tile %own2[%c0, %c0] {access_tile_order = affine_map<(d0, d1) -> (d0, d1)>, access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 127 >= 0)>} : memref<4x128xf16> -> !ktdp.access_tile<4x128xindex>
  ktdp.store %v, %ob : tensor<4x128xf16>, !ktdp.access_tile<4x128xindex>
  return
}

// -----

func.func @rows_that_overlap(%x_ptr: index) attributes {grid = [2]} {
  %c0 = arith.constant 0 : index
  %t = ktdp.get_compute_tile_id : index
  %b = arith.constant 0 : index
  %x = ktdp.construct_memory_view %x_ptr, sizes: [4, 100], strides: [100, 1] {memory_space = #ktdp.memory_space<global>} : memref<4x100xf16>
  %xa = ktdp.construct_access_tile %x[%c0, %c0] {access_tile_order = affine_map<(d0, d1) -> (d0, d1)>, access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 99 >= 0)>} : memref<4x100xf16> -> !ktdp.access_tile<4x100xindex>
  %v = ktdp.load %xa : !ktdp.access_tile<4x100xindex> -> tensor<4x100xf16>
  // expected-error @+1 {{views the tile's own scratchpad in rows of 100 elements (2 sticks) only 64 elements apart; rows must not overlap}}
  %own = ktdp.construct_memory_view %b, sizes: [4, 100], strides: [64, 1] {memory_space = #ktdp.memory_space<ct_local>} : memref<4x100xf16>
  %oa = ktdp.construct_access_tile %own[%c0, %c0] {access_tile_order = affine_map<(d0, d1) -> (d0, d1)>, access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 99 >= 0)>} : memref<4x100xf16> -> !ktdp.access_tile<4x100xindex>
  %w = ktdp.load %oa : !ktdp.access_tile<4x100xindex> -> tensor<4x100xf16>
  ktdp.store %w, %xa : tensor<4x100xf16>, !ktdp.access_tile<4x100xindex>
  return
}
