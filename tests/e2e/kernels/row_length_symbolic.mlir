// y = 2 x + 1 over x [64, n] f16, where the row length n is a launch value: the views'
// row stride is %n (the strides follow the sizes), each of two tiles takes 32 rows and
// walks them 32 columns at a time. Compiled once with --bound n_in=MAX/32.
#tile = affine_set<(d0, d1) : (d0 >= 0, -d0 + 31 >= 0, d1 >= 0, -d1 + 31 >= 0)>
#order = affine_map<(d0, d1) -> (d0, d1)>
func.func @row_length(%x_ptr: index, %y_ptr: index, %n_in: i32) attributes {grid = [2]} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %t = ktdp.get_compute_tile_id : index
  %row = arith.muli %t, %c32 : index
  %n = arith.index_cast %n_in : i32 to index
  %x = ktdp.construct_memory_view %x_ptr, sizes: [64, %n], strides: [%n, 1] {memory_space = #ktdp.memory_space<global>} : memref<64x?xf16>
  %y = ktdp.construct_memory_view %y_ptr, sizes: [64, %n], strides: [%n, 1] {memory_space = #ktdp.memory_space<global>} : memref<64x?xf16>
  %two = arith.constant 2.0 : f16
  %one = arith.constant 1.0 : f16
  scf.for %off = %c0 to %n step %c32 {
    %xa = ktdp.construct_access_tile %x[%row, %off] {access_tile_set = #tile, access_tile_order = #order} : memref<64x?xf16> -> !ktdp.access_tile<32x32xindex>
    %ya = ktdp.construct_access_tile %y[%row, %off] {access_tile_set = #tile, access_tile_order = #order} : memref<64x?xf16> -> !ktdp.access_tile<32x32xindex>
    %v = ktdp.load %xa : !ktdp.access_tile<32x32xindex> -> tensor<32x32xf16>
    %s2 = tensor.splat %two : tensor<32x32xf16>
    %s1 = tensor.splat %one : tensor<32x32xf16>
    %m = arith.mulf %v, %s2 : tensor<32x32xf16>
    %w = arith.addf %m, %s1 : tensor<32x32xf16>
    ktdp.store %w, %ya : tensor<32x32xf16>, !ktdp.access_tile<32x32xindex>
  }
  return
}
