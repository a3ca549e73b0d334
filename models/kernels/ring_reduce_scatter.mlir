// Reduce-scatter across the ring: every tile contributes a partial P[t] of 64 x 512 f16
// (64 KB); the sum over all 32 partials is split by rows, and tile t receives rows
// [2t, 2t + 2) of it, which it stores into Y.
//
// P: [32, 64, 512] f16; Y: [64, 512] f16. Grid [32]. ktdp.inter_tile_reduce_scatter with
// scatter_dimensions = [0] over the 32 consumers: each gets 64 / 32 = 2 rows. The
// scheduler runs the first half of the ring all-reduce (31 reduce steps with
// add-on-arrival), arranged so that the slice that completes on core t is slice t: each
// core sends 31/32 of its partial over its outgoing link, half of an all-reduce.
//
//   spyre-compile models/kernels/ring_reduce_scatter.mlir -o out/ring_reduce_scatter
//   spyre-sim run out/ring_reduce_scatter/job.plan --input P=p.npy --output Y=y.npy

#all_set    = affine_set<(d0, d1, d2) : (d0 >= 0, -d0 + 31 >= 0, d1 >= 0, -d1 + 63 >= 0, d2 >= 0, -d2 + 511 >= 0)>
#part_set   = affine_set<(d0, d1, d2) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 63 >= 0, d2 >= 0, -d2 + 511 >= 0)>
#y_set      = affine_set<(d0, d1) : (d0 >= 0, -d0 + 63 >= 0, d1 >= 0, -d1 + 511 >= 0)>
#slice_set  = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 511 >= 0)>
#identity3  = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#identity   = affine_map<(d0, d1) -> (d0, d1)>
#all_tiles  = affine_set<(i)[g] : (i - 32*g >= 0, -i + 32*g + 31 >= 0)>

module {
  func.func @ring_reduce_scatter(%P_ptr: index, %Y_ptr: index) attributes {grid = [32]} {
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %pid = ktdp.get_compute_tile_id : index
    %row0 = arith.muli %pid, %c2 : index

    %P = ktdp.construct_memory_view %P_ptr, sizes: [32, 64, 512], strides: [32768, 512, 1] {
      coordinate_set = #all_set, memory_space = #ktdp.memory_space<global>
    } : memref<32x64x512xf16>
    %Y = ktdp.construct_memory_view %Y_ptr, sizes: [64, 512], strides: [512, 1] {
      coordinate_set = #y_set, memory_space = #ktdp.memory_space<global>
    } : memref<64x512xf16>

    %p_acc = ktdp.construct_access_tile %P[%pid, %c0, %c0] {
      access_tile_set = #part_set, access_tile_order = #identity3
    } : memref<32x64x512xf16> -> !ktdp.access_tile<1x64x512xindex>
    %p3 = ktdp.load %p_acc : !ktdp.access_tile<1x64x512xindex> -> tensor<1x64x512xf16>
    %partial = tensor.collapse_shape %p3 [[0, 1], [2]] : tensor<1x64x512xf16> into tensor<64x512xf16>

    %fut = ktdp.inter_tile_produce
        producer_tiles_per_group = #all_tiles
        : tensor<64x512xf16> -> !ktdp.tile_future<tensor<64x512xf16>, groups = affine_set<(g) : (g == 0)>>
    {
      ^bb0(%gid: index):
        ktdp.yield_partial %partial : tensor<64x512xf16>
    }

    %zero = arith.constant 0.0 : f16
    %id_empty = tensor.empty() : tensor<64x512xf16>
    %id = linalg.fill ins(%zero : f16) outs(%id_empty : tensor<64x512xf16>) -> tensor<64x512xf16>
    %slice = ktdp.inter_tile_reduce_scatter(%fut)
        consumer_tiles_per_group = #all_tiles,
        scatter_dimensions = [0],
        identity(%id : tensor<64x512xf16>)
        : !ktdp.tile_future<tensor<64x512xf16>, groups = affine_set<(g) : (g == 0)>> -> tensor<2x512xf16>
    {
      ^bb0(%lhs: tensor<64x512xf16>, %rhs: tensor<64x512xf16>):
        %s = arith.addf %lhs, %rhs : tensor<64x512xf16>
        ktdp.yield_reduced %s : tensor<64x512xf16>
    }

    %y_acc = ktdp.construct_access_tile %Y[%row0, %c0] {
      access_tile_set = #slice_set, access_tile_order = #identity
    } : memref<64x512xf16> -> !ktdp.access_tile<2x512xindex>
    ktdp.store %slice, %y_acc : tensor<2x512xf16>, !ktdp.access_tile<2x512xindex>
    return
  }
}
