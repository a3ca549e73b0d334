// Deliveries over per-consumer producer sets (inter_tile_reduce and inter_tile_gather with
// producer_dependency_per_consumer): tile t's partial is rows [2t, 2t + 2) of X (2 x 64
// f16), and every tile is a consumer, each with its own set of producers:
//   S: tile t sums the partials of tiles t - 1, t, t + 1 (those that exist): a 3-point
//      stencil across tiles, stored into S rows [2t, 2t + 2);
//   M: tile t takes the elementwise max over the other pair of its quad (tiles 0 and 1
//      fold 2 and 3, tiles 2 and 3 fold 0 and 1, ...), not its own partial: its result
//      starts as the identity. Stored into M rows [2t, 2t + 2);
//   G: tile t gathers the partials of its quad (tiles 4 floor(t / 4) .. + 3), stacked in
//      tile order: 8 rows, stored into G[t].
// X, S, M: [64, 64] f16; G: [32, 8, 64] f16. Grid [32]. Each dependency is one
// point-to-point send into the consumer's buffer over the ring (adding, for the reductions,
// as the data arrives).
//
//   spyre-compile models/kernels/ring_window.mlir -o out/ring_window
//   spyre-sim run out/ring_window/job.plan --input X=x.npy --output S=s.npy --output M=m.npy \
//     --output G=g.npy

#x_set     = affine_set<(d0, d1) : (d0 >= 0, -d0 + 63 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#rows_set  = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#identity  = affine_map<(d0, d1) -> (d0, d1)>
#all_tiles = affine_set<(i)[g] : (i - 32*g >= 0, -i + 32*g + 31 >= 0)>
#window    = affine_set<(p)[c] : (p - c + 1 >= 0, -p + c + 1 >= 0)>
#other_pair = affine_set<(p)[c] : (p floordiv 2 - c floordiv 2 - 1 + 2 * ((c floordiv 2) mod 2) == 0)>
#quad      = affine_set<(p)[c] : (p - (c floordiv 4) * 4 >= 0, -p + (c floordiv 4) * 4 + 3 >= 0)>
#g_set     = affine_set<(d0, d1, d2) : (d0 >= 0, -d0 + 31 >= 0, d1 >= 0, -d1 + 7 >= 0, d2 >= 0, -d2 + 63 >= 0)>
#g_tile    = affine_set<(d0, d1, d2) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 7 >= 0, d2 >= 0, -d2 + 63 >= 0)>
#identity3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#one       = affine_set<(g) : (g == 0)>

module {
  func.func @ring_window(%X_ptr: index, %S_ptr: index, %M_ptr: index, %G_ptr: index)
      attributes {grid = [32]} {
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %pid = ktdp.get_compute_tile_id : index
    %row0 = arith.muli %pid, %c2 : index

    %X = ktdp.construct_memory_view %X_ptr, sizes: [64, 64], strides: [64, 1] {
      coordinate_set = #x_set, memory_space = #ktdp.memory_space<global>
    } : memref<64x64xf16>
    %S = ktdp.construct_memory_view %S_ptr, sizes: [64, 64], strides: [64, 1] {
      coordinate_set = #x_set, memory_space = #ktdp.memory_space<global>
    } : memref<64x64xf16>
    %M = ktdp.construct_memory_view %M_ptr, sizes: [64, 64], strides: [64, 1] {
      coordinate_set = #x_set, memory_space = #ktdp.memory_space<global>
    } : memref<64x64xf16>

    %x_acc = ktdp.construct_access_tile %X[%row0, %c0] {
      access_tile_set = #rows_set, access_tile_order = #identity
    } : memref<64x64xf16> -> !ktdp.access_tile<2x64xindex>
    %x = ktdp.load %x_acc : !ktdp.access_tile<2x64xindex> -> tensor<2x64xf16>

    %zero = arith.constant 0.0 : f16
    %zeros = tensor.splat %zero : tensor<2x64xf16>
    %sum_fut = ktdp.inter_tile_produce producer_tiles_per_group = #all_tiles
        : tensor<2x64xf16> -> !ktdp.tile_future<tensor<2x64xf16>, groups = #one> {
      ^bb0(%gid: index):
        ktdp.yield_partial %x : tensor<2x64xf16>
    }
    %sum = ktdp.inter_tile_reduce(%sum_fut) consumer_tiles_per_group = #all_tiles,
        producer_dependency_per_consumer = #window, identity(%zeros : tensor<2x64xf16>)
        : !ktdp.tile_future<tensor<2x64xf16>, groups = #one> -> tensor<2x64xf16> {
      ^bb0(%l: tensor<2x64xf16>, %r: tensor<2x64xf16>):
        %s = arith.addf %l, %r : tensor<2x64xf16>
        ktdp.yield_reduced %s : tensor<2x64xf16>
    }
    %s_acc = ktdp.construct_access_tile %S[%row0, %c0] {
      access_tile_set = #rows_set, access_tile_order = #identity
    } : memref<64x64xf16> -> !ktdp.access_tile<2x64xindex>
    ktdp.store %sum, %s_acc : tensor<2x64xf16>, !ktdp.access_tile<2x64xindex>

    %ninf = arith.constant 0xFC00 : f16
    %ninfs = tensor.splat %ninf : tensor<2x64xf16>
    %max_fut = ktdp.inter_tile_produce producer_tiles_per_group = #all_tiles
        : tensor<2x64xf16> -> !ktdp.tile_future<tensor<2x64xf16>, groups = #one> {
      ^bb0(%gid: index):
        ktdp.yield_partial %x : tensor<2x64xf16>
    }
    %max = ktdp.inter_tile_reduce(%max_fut) consumer_tiles_per_group = #all_tiles,
        producer_dependency_per_consumer = #other_pair, identity(%ninfs : tensor<2x64xf16>)
        : !ktdp.tile_future<tensor<2x64xf16>, groups = #one> -> tensor<2x64xf16> {
      ^bb0(%l: tensor<2x64xf16>, %r: tensor<2x64xf16>):
        %m = arith.maximumf %l, %r : tensor<2x64xf16>
        ktdp.yield_reduced %m : tensor<2x64xf16>
    }
    %m_acc = ktdp.construct_access_tile %M[%row0, %c0] {
      access_tile_set = #rows_set, access_tile_order = #identity
    } : memref<64x64xf16> -> !ktdp.access_tile<2x64xindex>
    ktdp.store %max, %m_acc : tensor<2x64xf16>, !ktdp.access_tile<2x64xindex>

    %G = ktdp.construct_memory_view %G_ptr, sizes: [32, 8, 64], strides: [512, 64, 1] {
      coordinate_set = #g_set, memory_space = #ktdp.memory_space<global>
    } : memref<32x8x64xf16>
    %quad_fut = ktdp.inter_tile_produce producer_tiles_per_group = #all_tiles
        : tensor<2x64xf16> -> !ktdp.tile_future<tensor<2x64xf16>, groups = #one> {
      ^bb0(%gid: index):
        ktdp.yield_partial %x : tensor<2x64xf16>
    }
    %quad = ktdp.inter_tile_gather(%quad_fut) consumer_tiles_per_group = #all_tiles,
        producer_dependency_per_consumer = #quad, gather_dimensions = [0]
        : !ktdp.tile_future<tensor<2x64xf16>, groups = #one> -> tensor<8x64xf16>
    %quad3 = tensor.expand_shape %quad [[0, 1], [2]] output_shape [1, 8, 64]
        : tensor<8x64xf16> into tensor<1x8x64xf16>
    %g_acc = ktdp.construct_access_tile %G[%pid, %c0, %c0] {
      access_tile_set = #g_tile, access_tile_order = #identity3
    } : memref<32x8x64xf16> -> !ktdp.access_tile<1x8x64xindex>
    ktdp.store %quad3, %g_acc : tensor<1x8x64xf16>, !ktdp.access_tile<1x8x64xindex>
    return
  }
}
