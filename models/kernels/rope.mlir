// Rotary position embedding (rotate-half form) of one head:
//   Y[s, 0:64]   = X[s, 0:64] * cos[s, :] - X[s, 64:128] * sin[s, :]
//   Y[s, 64:128] = X[s, 64:128] * cos[s, :] + X[s, 0:64] * sin[s, :]
//
// X, Y: [512, 128] f16 (sequence x head dimension); cos, sin: [512, 64] f16, the
// per-position tables for the 64 frequencies. Grid [32]: tile t owns positions
// [16t, 16t + 16). Each half of a row is one stick; the halves are loaded and stored
// through their own access tiles on the same views.
//
//   spyre-compile models/kernels/rope.mlir -o out/rope
//   spyre-sim run out/rope/job.plan --input X=x.npy --input cos=c.npy --input sin=s.npy \
//     --output Y=y.npy

#half_set  = affine_set<(d0, d1) : (d0 >= 0, -d0 + 15 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#x_set     = affine_set<(d0, d1) : (d0 >= 0, -d0 + 511 >= 0, d1 >= 0, -d1 + 127 >= 0)>
#tab_set   = affine_set<(d0, d1) : (d0 >= 0, -d0 + 511 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#identity  = affine_map<(d0, d1) -> (d0, d1)>

module {
  func.func @rope(%X_ptr: index, %cos_ptr: index, %sin_ptr: index, %Y_ptr: index)
      attributes {grid = [32]} {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %c64 = arith.constant 64 : index
    %pid = ktdp.get_compute_tile_id : index
    %pos0 = arith.muli %pid, %c16 : index

    %X = ktdp.construct_memory_view %X_ptr, sizes: [512, 128], strides: [128, 1] {
      coordinate_set = #x_set, memory_space = #ktdp.memory_space<global>
    } : memref<512x128xf16>
    %Y = ktdp.construct_memory_view %Y_ptr, sizes: [512, 128], strides: [128, 1] {
      coordinate_set = #x_set, memory_space = #ktdp.memory_space<global>
    } : memref<512x128xf16>
    %COS = ktdp.construct_memory_view %cos_ptr, sizes: [512, 64], strides: [64, 1] {
      coordinate_set = #tab_set, memory_space = #ktdp.memory_space<global>
    } : memref<512x64xf16>
    %SIN = ktdp.construct_memory_view %sin_ptr, sizes: [512, 64], strides: [64, 1] {
      coordinate_set = #tab_set, memory_space = #ktdp.memory_space<global>
    } : memref<512x64xf16>

    // The two halves of this tile's rows, and its rows of the tables.
    %x1_tile = ktdp.construct_access_tile %X[%pos0, %c0] {
      access_tile_set = #half_set, access_tile_order = #identity
    } : memref<512x128xf16> -> !ktdp.access_tile<16x64xindex>
    %x2_tile = ktdp.construct_access_tile %X[%pos0, %c64] {
      access_tile_set = #half_set, access_tile_order = #identity
    } : memref<512x128xf16> -> !ktdp.access_tile<16x64xindex>
    %cos_tile = ktdp.construct_access_tile %COS[%pos0, %c0] {
      access_tile_set = #half_set, access_tile_order = #identity
    } : memref<512x64xf16> -> !ktdp.access_tile<16x64xindex>
    %sin_tile = ktdp.construct_access_tile %SIN[%pos0, %c0] {
      access_tile_set = #half_set, access_tile_order = #identity
    } : memref<512x64xf16> -> !ktdp.access_tile<16x64xindex>
    %x1 = ktdp.load %x1_tile : !ktdp.access_tile<16x64xindex> -> tensor<16x64xf16>
    %x2 = ktdp.load %x2_tile : !ktdp.access_tile<16x64xindex> -> tensor<16x64xf16>
    %cos = ktdp.load %cos_tile : !ktdp.access_tile<16x64xindex> -> tensor<16x64xf16>
    %sin = ktdp.load %sin_tile : !ktdp.access_tile<16x64xindex> -> tensor<16x64xf16>

    %init = tensor.empty() : tensor<16x64xf16>
    %y1 = linalg.generic {indexing_maps = [#identity, #identity, #identity, #identity, #identity],
                          iterator_types = ["parallel", "parallel"]}
        ins(%x1, %x2, %cos, %sin : tensor<16x64xf16>, tensor<16x64xf16>, tensor<16x64xf16>, tensor<16x64xf16>)
        outs(%init : tensor<16x64xf16>) {
    ^bb0(%a: f16, %b: f16, %c: f16, %s: f16, %o: f16):
      %ac = arith.mulf %a, %c : f16
      %bs = arith.mulf %b, %s : f16
      %r = arith.subf %ac, %bs : f16
      linalg.yield %r : f16
    } -> tensor<16x64xf16>
    %y2 = linalg.generic {indexing_maps = [#identity, #identity, #identity, #identity, #identity],
                          iterator_types = ["parallel", "parallel"]}
        ins(%x1, %x2, %cos, %sin : tensor<16x64xf16>, tensor<16x64xf16>, tensor<16x64xf16>, tensor<16x64xf16>)
        outs(%init : tensor<16x64xf16>) {
    ^bb0(%a: f16, %b: f16, %c: f16, %s: f16, %o: f16):
      %bc = arith.mulf %b, %c : f16
      %as = arith.mulf %a, %s : f16
      %r = arith.addf %bc, %as : f16
      linalg.yield %r : f16
    } -> tensor<16x64xf16>

    %y1_tile = ktdp.construct_access_tile %Y[%pos0, %c0] {
      access_tile_set = #half_set, access_tile_order = #identity
    } : memref<512x128xf16> -> !ktdp.access_tile<16x64xindex>
    %y2_tile = ktdp.construct_access_tile %Y[%pos0, %c64] {
      access_tile_set = #half_set, access_tile_order = #identity
    } : memref<512x128xf16> -> !ktdp.access_tile<16x64xindex>
    ktdp.store %y1, %y1_tile : tensor<16x64xf16>, !ktdp.access_tile<16x64xindex>
    ktdp.store %y2, %y2_tile : tensor<16x64xf16>, !ktdp.access_tile<16x64xindex>
    return
  }
}
