// Rotary position embedding (rotate-half form) of 40 heads x 4096 positions x 128, the shape
// of issue 9's RoPE comparison (32 query + 8 key heads of a LLaMA-3-8B-like model):
//   Y[h, s, 0:64]   = X[h, s, 0:64] * cos[s, :] - X[h, s, 64:128] * sin[s, :]
//   Y[h, s, 64:128] = X[h, s, 64:128] * cos[s, :] + X[h, s, 0:64] * sin[s, :]
//
// X, Y: [163840, 128] f16 (head-major: row h * 4096 + s); cos, sin: [4096, 64] f16. Grid [32]:
// tile t owns positions [128t, 128t + 128) of every head; it loads its rows of the tables
// once and loops over the 40 heads (16 KB per half-tile). 80 MiB in, 40 MiB out: DRAM-bound.
//
//   spyre-compile bench/kernels/rope_heads.mlir -o out/rope_heads
//   spyre-sim run out/rope_heads/job.plan --input X=x.npy --input cos=c.npy --input sin=s.npy \
//     --output Y=y.npy

#half_set  = affine_set<(d0, d1) : (d0 >= 0, -d0 + 127 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#x_set     = affine_set<(d0, d1) : (d0 >= 0, -d0 + 163839 >= 0, d1 >= 0, -d1 + 127 >= 0)>
#tab_set   = affine_set<(d0, d1) : (d0 >= 0, -d0 + 4095 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#identity  = affine_map<(d0, d1) -> (d0, d1)>

module {
  func.func @rope_heads(%X_ptr: index, %cos_ptr: index, %sin_ptr: index, %Y_ptr: index)
      attributes {grid = [32]} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c40 = arith.constant 40 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %c4096 = arith.constant 4096 : index
    %pid = ktdp.get_compute_tile_id : index
    %pos0 = arith.muli %pid, %c128 : index

    %X = ktdp.construct_memory_view %X_ptr, sizes: [163840, 128], strides: [128, 1] {
      coordinate_set = #x_set, memory_space = #ktdp.memory_space<global>
    } : memref<163840x128xf16>
    %Y = ktdp.construct_memory_view %Y_ptr, sizes: [163840, 128], strides: [128, 1] {
      coordinate_set = #x_set, memory_space = #ktdp.memory_space<global>
    } : memref<163840x128xf16>
    %COS = ktdp.construct_memory_view %cos_ptr, sizes: [4096, 64], strides: [64, 1] {
      coordinate_set = #tab_set, memory_space = #ktdp.memory_space<global>
    } : memref<4096x64xf16>
    %SIN = ktdp.construct_memory_view %sin_ptr, sizes: [4096, 64], strides: [64, 1] {
      coordinate_set = #tab_set, memory_space = #ktdp.memory_space<global>
    } : memref<4096x64xf16>

    // This tile's rows of the tables, loaded once for every head.
    %cos_tile = ktdp.construct_access_tile %COS[%pos0, %c0] {
      access_tile_set = #half_set, access_tile_order = #identity
    } : memref<4096x64xf16> -> !ktdp.access_tile<128x64xindex>
    %sin_tile = ktdp.construct_access_tile %SIN[%pos0, %c0] {
      access_tile_set = #half_set, access_tile_order = #identity
    } : memref<4096x64xf16> -> !ktdp.access_tile<128x64xindex>
    %cos = ktdp.load %cos_tile : !ktdp.access_tile<128x64xindex> -> tensor<128x64xf16>
    %sin = ktdp.load %sin_tile : !ktdp.access_tile<128x64xindex> -> tensor<128x64xf16>

    scf.for %h = %c0 to %c40 step %c1 {
      %head0 = arith.muli %h, %c4096 : index
      %row = arith.addi %head0, %pos0 : index
      %x1_tile = ktdp.construct_access_tile %X[%row, %c0] {
        access_tile_set = #half_set, access_tile_order = #identity
      } : memref<163840x128xf16> -> !ktdp.access_tile<128x64xindex>
      %x2_tile = ktdp.construct_access_tile %X[%row, %c64] {
        access_tile_set = #half_set, access_tile_order = #identity
      } : memref<163840x128xf16> -> !ktdp.access_tile<128x64xindex>
      %x1 = ktdp.load %x1_tile : !ktdp.access_tile<128x64xindex> -> tensor<128x64xf16>
      %x2 = ktdp.load %x2_tile : !ktdp.access_tile<128x64xindex> -> tensor<128x64xf16>

      %init = tensor.empty() : tensor<128x64xf16>
      %y1 = linalg.generic {indexing_maps = [#identity, #identity, #identity, #identity, #identity],
                            iterator_types = ["parallel", "parallel"]}
          ins(%x1, %x2, %cos, %sin : tensor<128x64xf16>, tensor<128x64xf16>, tensor<128x64xf16>, tensor<128x64xf16>)
          outs(%init : tensor<128x64xf16>) {
      ^bb0(%a: f16, %b: f16, %c: f16, %s: f16, %o: f16):
        %ac = arith.mulf %a, %c : f16
        %bs = arith.mulf %b, %s : f16
        %r = arith.subf %ac, %bs : f16
        linalg.yield %r : f16
      } -> tensor<128x64xf16>
      %y2 = linalg.generic {indexing_maps = [#identity, #identity, #identity, #identity, #identity],
                            iterator_types = ["parallel", "parallel"]}
          ins(%x1, %x2, %cos, %sin : tensor<128x64xf16>, tensor<128x64xf16>, tensor<128x64xf16>, tensor<128x64xf16>)
          outs(%init : tensor<128x64xf16>) {
      ^bb0(%a: f16, %b: f16, %c: f16, %s: f16, %o: f16):
        %bc = arith.mulf %b, %c : f16
        %as = arith.mulf %a, %s : f16
        %r = arith.addf %bc, %as : f16
        linalg.yield %r : f16
      } -> tensor<128x64xf16>

      %y1_tile = ktdp.construct_access_tile %Y[%row, %c0] {
        access_tile_set = #half_set, access_tile_order = #identity
      } : memref<163840x128xf16> -> !ktdp.access_tile<128x64xindex>
      %y2_tile = ktdp.construct_access_tile %Y[%row, %c64] {
        access_tile_set = #half_set, access_tile_order = #identity
      } : memref<163840x128xf16> -> !ktdp.access_tile<128x64xindex>
      ktdp.store %y1, %y1_tile : tensor<128x64xf16>, !ktdp.access_tile<128x64xindex>
      ktdp.store %y2, %y2_tile : tensor<128x64xf16>, !ktdp.access_tile<128x64xindex>
    }
    return
  }
}
