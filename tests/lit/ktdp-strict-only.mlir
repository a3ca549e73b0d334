// One case of each kind of rule that only the strict legality stage checks
// (ktir-opt --ktdp-strict; spyre-compile always runs it): the verifiers accept every case,
// as upstream KTIR's do, and the strict stage rejects each at its op.
// RUN: ktir-opt %s -split-input-file > /dev/null
// RUN: ktir-opt %s -split-input-file -verify-diagnostics --ktdp-strict
// RUN: rm -rf %t && spyre-compile %s --split-input-file --verify-diagnostics -o %t && not ls %t

func.func @tile_id_beyond_the_grid() -> (index, index) attributes {grid = [4]} {
  // expected-error @+1 {{asks for 2 tile coordinates but the grid [4] has 1 dimension(s)}}
  %x, %y = ktdp.get_compute_tile_id : index, index
  return %x, %y : index, index
}

// -----

func.func @size_not_the_memref_dimension(%p: index) {
  // expected-error @+1 {{size #0 is 8 but the memref dimension is 4}}
  %v = ktdp.construct_memory_view %p, sizes: [8, 64], strides: [64, 1] {memory_space = #ktdp.memory_space<global>} : memref<4x64xf16>
  return
}

// -----

// Upstream's test/Ktdp/basic.mlir: one 64-row view from the same 32-row partition twice.
#rows = affine_set<(d0, d1) : (d0 >= 0, -d0 + 31 >= 0, d1 >= 0, -d1 + 63 >= 0)>
func.func @partitions_do_not_cover(%p: index) {
  %a = ktdp.construct_memory_view %p, sizes: [32, 64], strides: [64, 1] {coordinate_set = #rows, memory_space = #ktdp.spyre_memory_space<HBM>} : memref<32x64xf16>
  // expected-error @+1 {{partitions cover coordinates 0..31 of dimension 0 but the distributed view has 64}}
  %d = ktdp.construct_distributed_memory_view(%a, %a : memref<32x64xf16>, memref<32x64xf16>) : memref<64x64xf16>
  return
}

// -----

// Upstream's test/Ktdp/construct-access-tile.mlir: a [32, 16] tile over a [16, 32] set.
#set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 15 >= 0, d1 >= 0, -d1 + 31 >= 0)>
func.func @tile_shape_not_the_set(%p: index, %i: index, %j: index) {
  %v = ktdp.construct_memory_view %p, sizes: [32, 64], strides: [64, 1] {memory_space = #ktdp.spyre_memory_space<HBM>} : memref<32x64xf16>
  // expected-error @+1 {{result access tile shape [32, 16] does not match access_tile_set in its order, which spans [16, 32]}}
  %t = ktdp.construct_access_tile %v[%i * 2, %j + 4] {access_tile_set = #set, access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<32x64xf16> -> !ktdp.access_tile<32x16xindex>
  return
}

// -----

func.func @order_not_a_permutation(%p: index, %i: index) {
  %v = ktdp.construct_memory_view %p, sizes: [32, 64], strides: [64, 1] {memory_space = #ktdp.memory_space<global>} : memref<32x64xf16>
  // expected-error @+1 {{access_tile_order affine_map<(d0, d1) -> (d0, d0)> must be a permutation of the 2 tile dimensions}}
  %t = ktdp.construct_access_tile %v[%i, %i] {access_tile_set = affine_set<(d0, d1) : (d0 == 0, d1 == 0)>, access_tile_order = affine_map<(d0, d1) -> (d0, d0)>} : memref<32x64xf16> -> !ktdp.access_tile<1x1xindex>
  return
}

// -----

// Upstream's test/Ktdp/construct-indirect-access-tile.mlir: a rank-0 tile on a rank-2 view.
func.func @indirect_tile_rank(%p: index, %q: index, %o: index) {
  %idx = ktdp.construct_memory_view %q, sizes: [4, 8], strides: [8, 1] {memory_space = #ktdp.spyre_memory_space<HBM>} : memref<4x8xi32>
  %x = ktdp.construct_memory_view %p, sizes: [100, 100], strides: [100, 1] {memory_space = #ktdp.spyre_memory_space<HBM>} : memref<100x100xf16>
  // expected-error @+1 {{result access tile has rank 0 but the view has rank 2}}
  %t = ktdp.construct_indirect_access_tile intermediate_variables() %x[ind(%idx[%o, 0]), (%o)] {variables_space_set = affine_set<() : ()>, variables_space_order = affine_map<() -> ()>} : memref<100x100xf16>, memref<4x8xi32> -> !ktdp.access_tile<index>
  return
}

// -----

func.func @load_element_type(%p: index, %i: index) -> tensor<1x64xf32> {
  %v = ktdp.construct_memory_view %p, sizes: [4, 64], strides: [64, 1] {memory_space = #ktdp.memory_space<global>} : memref<4x64xf16>
  %t = ktdp.construct_access_tile %v[%i, %i] {access_tile_set = affine_set<(d0, d1) : (d0 == 0, d1 >= 0, -d1 + 63 >= 0)>, access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<4x64xf16> -> !ktdp.access_tile<1x64xindex>
  // expected-error @+1 {{result element type 'f32' does not match the element type 'f16' of the view the tile addresses}}
  %x = ktdp.load %t : <1x64xindex> -> tensor<1x64xf32>
  return %x : tensor<1x64xf32>
}

// -----

#first = affine_set<(i)[g] : (i - 4*g == 0)>
#one = affine_set<(g) : (g == 0)>
func.func @future_without_a_user(%x: tensor<8xf16>) attributes {grid = [4]} {
  // expected-error @+1 {{tile future must have exactly one user (its delivery op), but it has 0}}
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #first -> <(tensor<8xf16>), groups = #one> {
  ^bb0(%gid: index):
    ktdp.yield_partial %x : tensor<8xf16>
  }
  return
}

// -----

// With the grid's four tiles, tile 2 consumes but produces nothing for the reduction.
#two = affine_set<(i)[g] : (i >= 0, -i + 1 >= 0)>
#three = affine_set<(i)[g] : (i >= 0, -i + 2 >= 0)>
#one = affine_set<(g) : (g == 0)>
func.func @reduce_to_a_non_producer(%x: tensor<8xf16>) -> tensor<8xf16> attributes {grid = [4]} {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #two -> <(tensor<8xf16>), groups = #one> {
  ^bb0(%gid: index):
    ktdp.yield_partial %x : tensor<8xf16>
  }
  // expected-error @+1 {{consumer 2 of group 0 is not one of its producers {0, 1}; consumers must be a subset of producers}}
  %r = ktdp.inter_tile_reduce(%f) consumer_tiles_per_group = #three, identity(%x : tensor<8xf16>) : <(tensor<8xf16>), groups = #one> -> tensor<8xf16> {
  ^bb0(%a: tensor<8xf16>, %b: tensor<8xf16>):
    %s = arith.addf %a, %b : tensor<8xf16>
    ktdp.yield_reduced %s : tensor<8xf16>
  }
  return %r : tensor<8xf16>
}
