// An f32 scale and an f16 shift bound at launch, as ktir-cpu's attention kernel takes its
// softmax scale (`%scale: f32`): Y = X * scale + shift, in f32, over a [256, 512] f32
// tensor. Grid [32]: tile t owns rows [8t, 8t + 8). The shift is used through a
// linalg.generic body that captures it from the function.
#all   = affine_set<(d0, d1) : (d0 >= 0, -d0 + 255 >= 0, d1 >= 0, -d1 + 511 >= 0)>
#block = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 511 >= 0)>
#id    = affine_map<(d0, d1) -> (d0, d1)>

module {
  func.func @scale_shift(%X_ptr: index, %scale: f32, %shift: f32, %Y_ptr: index)
      attributes {grid = [32]} {
    %pid = ktdp.get_compute_tile_id : index
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %row = arith.muli %pid, %c8 : index
    %X = ktdp.construct_memory_view %X_ptr, sizes: [256, 512], strides: [512, 1] {
      coordinate_set = #all, memory_space = #ktdp.memory_space<global>
    } : memref<256x512xf32>
    %Y = ktdp.construct_memory_view %Y_ptr, sizes: [256, 512], strides: [512, 1] {
      coordinate_set = #all, memory_space = #ktdp.memory_space<global>
    } : memref<256x512xf32>
    %xt = ktdp.construct_access_tile %X[%row, %c0] {
      access_tile_set = #block, access_tile_order = #id
    } : memref<256x512xf32> -> !ktdp.access_tile<8x512xindex>
    %x = ktdp.load %xt : !ktdp.access_tile<8x512xindex> -> tensor<8x512xf32>
    %s = tensor.splat %scale : tensor<8x512xf32>
    %xs = arith.mulf %x, %s : tensor<8x512xf32>
    %out = tensor.empty() : tensor<8x512xf32>
    %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%xs : tensor<8x512xf32>) outs(%out : tensor<8x512xf32>) {
    ^bb0(%v: f32, %o: f32):
      %w = arith.addf %v, %shift : f32
      linalg.yield %w : f32
    } -> tensor<8x512xf32>
    %yt = ktdp.construct_access_tile %Y[%row, %c0] {
      access_tile_set = #block, access_tile_order = #id
    } : memref<256x512xf32> -> !ktdp.access_tile<8x512xindex>
    ktdp.store %y, %yt : tensor<8x512xf32>, !ktdp.access_tile<8x512xindex>
    return
  }
}
