// Tiles that reach past the end of a view sized at launch, as ktir-cpu's and Triton's
// masked accesses have them: the length `%n_elements: i32` is a plain argument
// (`--bound n_elements=4096`), each of the 4 tiles takes a 1024-element block, and the
// blocks past n are partly or wholly outside the view. A load leaves the tile's padding
// value there (0 for the sum that reads it), a store does not write there.
//   Y[i] = 2 X[i] for i < n;   S[t] = sum of X over tile t's block, i < n.
// X, Y: [n] f32; S: [4] f32. Grid [4].
#vec   = affine_set<(d0)[s0] : (d0 >= 0, -d0 + s0 - 1 >= 0)>
#all4  = affine_set<(d0) : (d0 >= 0, -d0 + 3 >= 0)>
#block = affine_set<(d0) : (d0 >= 0, -d0 + 1023 >= 0)>
#one   = affine_set<(d0) : (d0 >= 0, -d0 >= 0)>
#id1   = affine_map<(d0) -> (d0)>

module {
  func.func @masked_tail(%x_ptr: index, %y_ptr: index, %s_ptr: index, %n_elements: i32)
      attributes {grid = [4]} {
    %t = ktdp.get_compute_tile_id : index
    %c1024 = arith.constant 1024 : index
    %n = arith.index_cast %n_elements : i32 to index
    %off = arith.muli %t, %c1024 : index
    %X = ktdp.construct_memory_view %x_ptr, sizes: [%n], strides: [1] {
      coordinate_set = #vec, memory_space = #ktdp.memory_space<global>
    } : memref<?xf32>
    %Y = ktdp.construct_memory_view %y_ptr, sizes: [%n], strides: [1] {
      coordinate_set = #vec, memory_space = #ktdp.memory_space<global>
    } : memref<?xf32>
    %S = ktdp.construct_memory_view %s_ptr, sizes: [4], strides: [1] {
      coordinate_set = #all4, memory_space = #ktdp.memory_space<global>
    } : memref<4xf32>
    %xt = ktdp.construct_access_tile %X[%off] {
      access_tile_set = #block, access_tile_order = #id1
    } : memref<?xf32> -> !ktdp.access_tile<1024xindex>
    %x = ktdp.load %xt : !ktdp.access_tile<1024xindex> -> tensor<1024xf32>
    %two = arith.constant dense<2.0> : tensor<1024xf32>
    %y = arith.mulf %x, %two : tensor<1024xf32>
    %yt = ktdp.construct_access_tile %Y[%off] {
      access_tile_set = #block, access_tile_order = #id1
    } : memref<?xf32> -> !ktdp.access_tile<1024xindex>
    ktdp.store %y, %yt : tensor<1024xf32>, !ktdp.access_tile<1024xindex>
    %zero = arith.constant 0.0 : f32
    %init = tensor.splat %zero : tensor<f32>
    %sum = linalg.reduce { arith.addf } ins(%x : tensor<1024xf32>) outs(%init : tensor<f32>)
        dimensions = [0]
    %sum1 = tensor.expand_shape %sum [] output_shape [1] : tensor<f32> into tensor<1xf32>
    %st = ktdp.construct_access_tile %S[%t] {
      access_tile_set = #one, access_tile_order = #id1
    } : memref<4xf32> -> !ktdp.access_tile<1xindex>
    ktdp.store %sum1, %st : tensor<1xf32>, !ktdp.access_tile<1xindex>
    return
  }
}
