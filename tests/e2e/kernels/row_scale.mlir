// A per-row vector broadcast along the rows, as ktir-cpu's attention kernels write it: a
// [rows] vector read through `affine_map<(d0, d1) -> (d0)>` in a linalg.generic, and the
// same vector through `linalg.broadcast dimensions = [1]`:
//   Y[r, :] = X[r, :] * S[r] + B[r]
// X, Y: [400, 256] f16; S, B: [400] f16. Grid [4]: tile t owns rows [100t, 100t + 100)
// (100 values: more than one stick, not a whole number of them).
#all   = affine_set<(d0, d1) : (d0 >= 0, -d0 + 399 >= 0, d1 >= 0, -d1 + 255 >= 0)>
#block = affine_set<(d0, d1) : (d0 >= 0, -d0 + 99 >= 0, d1 >= 0, -d1 + 255 >= 0)>
#vec   = affine_set<(d0) : (d0 >= 0, -d0 + 399 >= 0)>
#vblk  = affine_set<(d0) : (d0 >= 0, -d0 + 99 >= 0)>
#id    = affine_map<(d0, d1) -> (d0, d1)>
#id1   = affine_map<(d0) -> (d0)>
#rows  = affine_map<(d0, d1) -> (d0)>

module {
  func.func @row_scale(%X_ptr: index, %S_ptr: index, %B_ptr: index, %Y_ptr: index)
      attributes {grid = [4]} {
    %pid = ktdp.get_compute_tile_id : index
    %c0 = arith.constant 0 : index
    %c100 = arith.constant 100 : index
    %r0 = arith.muli %pid, %c100 : index
    %X = ktdp.construct_memory_view %X_ptr, sizes: [400, 256], strides: [256, 1] {
      coordinate_set = #all, memory_space = #ktdp.memory_space<global>
    } : memref<400x256xf16>
    %Y = ktdp.construct_memory_view %Y_ptr, sizes: [400, 256], strides: [256, 1] {
      coordinate_set = #all, memory_space = #ktdp.memory_space<global>
    } : memref<400x256xf16>
    %S = ktdp.construct_memory_view %S_ptr, sizes: [400], strides: [1] {
      coordinate_set = #vec, memory_space = #ktdp.memory_space<global>
    } : memref<400xf16>
    %B = ktdp.construct_memory_view %B_ptr, sizes: [400], strides: [1] {
      coordinate_set = #vec, memory_space = #ktdp.memory_space<global>
    } : memref<400xf16>
    %xt = ktdp.construct_access_tile %X[%r0, %c0] {
      access_tile_set = #block, access_tile_order = #id
    } : memref<400x256xf16> -> !ktdp.access_tile<100x256xindex>
    %st = ktdp.construct_access_tile %S[%r0] {
      access_tile_set = #vblk, access_tile_order = #id1
    } : memref<400xf16> -> !ktdp.access_tile<100xindex>
    %bt = ktdp.construct_access_tile %B[%r0] {
      access_tile_set = #vblk, access_tile_order = #id1
    } : memref<400xf16> -> !ktdp.access_tile<100xindex>
    %x = ktdp.load %xt : !ktdp.access_tile<100x256xindex> -> tensor<100x256xf16>
    %s = ktdp.load %st : !ktdp.access_tile<100xindex> -> tensor<100xf16>
    %b = ktdp.load %bt : !ktdp.access_tile<100xindex> -> tensor<100xf16>
    %empty = tensor.empty() : tensor<100x256xf16>
    %xs = linalg.generic {indexing_maps = [#id, #rows, #id],
                          iterator_types = ["parallel", "parallel"]}
        ins(%x, %s : tensor<100x256xf16>, tensor<100xf16>) outs(%empty : tensor<100x256xf16>) {
    ^bb0(%v: f16, %k: f16, %o: f16):
      %m = arith.mulf %v, %k : f16
      linalg.yield %m : f16
    } -> tensor<100x256xf16>
    %bb = linalg.broadcast ins(%b : tensor<100xf16>) outs(%empty : tensor<100x256xf16>)
        dimensions = [1]
    %y = arith.addf %xs, %bb : tensor<100x256xf16>
    %yt = ktdp.construct_access_tile %Y[%r0, %c0] {
      access_tile_set = #block, access_tile_order = #id
    } : memref<400x256xf16> -> !ktdp.access_tile<100x256xindex>
    ktdp.store %y, %yt : tensor<100x256xf16>, !ktdp.access_tile<100x256xindex>
    return
  }
}
