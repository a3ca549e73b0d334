// Gathers across the ring: every tile t contributes rows [2t, 2t + 2) of X (2 x 64 f16,
// two sticks), scaled by 2 so the exchanged values are computed on the tile.
//   all-gather (consumers = producers): every tile receives all 64 rows, in tile order,
//     and stores its copy into Y[t];
//   gather to tile 5 (one consumer): tile 5 receives the same 64 rows and stores them in Z.
// X, Z: [64, 64] f16; Y: [32, 64, 64] f16. Grid [32]. The all-gather is the second half of
// the ring all-reduce (31 steps, each core forwarding one partial to its successor); the
// gather sends each partial straight to tile 5.
//
//   spyre-compile models/kernels/ring_gather.mlir -o out/ring_gather
//   spyre-sim run out/ring_gather/job.plan --input X=x.npy --output Y=y.npy --output Z=z.npy

#x_set     = affine_set<(d0, d1) : (d0 >= 0, -d0 + 63 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#y_set     = affine_set<(d0, d1, d2) : (d0 >= 0, -d0 + 31 >= 0, d1 >= 0, -d1 + 63 >= 0, d2 >= 0, -d2 + 63 >= 0)>
#rows_set  = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#copy_set  = affine_set<(d0, d1, d2) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 63 >= 0, d2 >= 0, -d2 + 63 >= 0)>
#identity  = affine_map<(d0, d1) -> (d0, d1)>
#identity3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#all_tiles = affine_set<(i)[g] : (i - 32*g >= 0, -i + 32*g + 31 >= 0)>
#tile5     = affine_set<(i)[g] : (i - 32*g - 5 == 0)>

module {
  func.func @ring_gather(%X_ptr: index, %Y_ptr: index, %Z_ptr: index) attributes {grid = [32]} {
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %c5 = arith.constant 5 : index
    %pid = ktdp.get_compute_tile_id : index
    %row0 = arith.muli %pid, %c2 : index

    %X = ktdp.construct_memory_view %X_ptr, sizes: [64, 64], strides: [64, 1] {
      coordinate_set = #x_set, memory_space = #ktdp.memory_space<global>
    } : memref<64x64xf16>
    %Y = ktdp.construct_memory_view %Y_ptr, sizes: [32, 64, 64], strides: [4096, 64, 1] {
      coordinate_set = #y_set, memory_space = #ktdp.memory_space<global>
    } : memref<32x64x64xf16>
    %Z = ktdp.construct_memory_view %Z_ptr, sizes: [64, 64], strides: [64, 1] {
      coordinate_set = #x_set, memory_space = #ktdp.memory_space<global>
    } : memref<64x64xf16>

    %x_acc = ktdp.construct_access_tile %X[%row0, %c0] {
      access_tile_set = #rows_set, access_tile_order = #identity
    } : memref<64x64xf16> -> !ktdp.access_tile<2x64xindex>
    %x = ktdp.load %x_acc : !ktdp.access_tile<2x64xindex> -> tensor<2x64xf16>
    %two = arith.constant 2.0 : f16
    %two_t = tensor.splat %two : tensor<2x64xf16>
    %part = arith.mulf %x, %two_t : tensor<2x64xf16>

    %all_fut = ktdp.inter_tile_produce producer_tiles_per_group = #all_tiles
        : tensor<2x64xf16> -> !ktdp.tile_future<tensor<2x64xf16>, groups = affine_set<(g) : (g == 0)>> {
      ^bb0(%gid: index):
        ktdp.yield_partial %part : tensor<2x64xf16>
    }
    %all = ktdp.inter_tile_gather(%all_fut)
        consumer_tiles_per_group = #all_tiles,
        gather_dimensions = [0]
        : !ktdp.tile_future<tensor<2x64xf16>, groups = affine_set<(g) : (g == 0)>> -> tensor<64x64xf16>
    %all3 = tensor.expand_shape %all [[0, 1], [2]] output_shape [1, 64, 64]
        : tensor<64x64xf16> into tensor<1x64x64xf16>
    %y_acc = ktdp.construct_access_tile %Y[%pid, %c0, %c0] {
      access_tile_set = #copy_set, access_tile_order = #identity3
    } : memref<32x64x64xf16> -> !ktdp.access_tile<1x64x64xindex>
    ktdp.store %all3, %y_acc : tensor<1x64x64xf16>, !ktdp.access_tile<1x64x64xindex>

    %one_fut = ktdp.inter_tile_produce producer_tiles_per_group = #all_tiles
        : tensor<2x64xf16> -> !ktdp.tile_future<tensor<2x64xf16>, groups = affine_set<(g) : (g == 0)>> {
      ^bb0(%gid: index):
        ktdp.yield_partial %part : tensor<2x64xf16>
    }
    %at5 = ktdp.inter_tile_gather(%one_fut)
        consumer_tiles_per_group = #tile5,
        gather_dimensions = [0]
        : !ktdp.tile_future<tensor<2x64xf16>, groups = affine_set<(g) : (g == 0)>> -> tensor<64x64xf16>
    %is5 = arith.cmpi eq, %pid, %c5 : index
    scf.if %is5 {
      %z_acc = ktdp.construct_access_tile %Z[%c0, %c0] {
        access_tile_set = #x_set, access_tile_order = #identity
      } : memref<64x64xf16> -> !ktdp.access_tile<64x64xindex>
      ktdp.store %at5, %z_acc : tensor<64x64xf16>, !ktdp.access_tile<64x64xindex>
    }
    return
  }
}
