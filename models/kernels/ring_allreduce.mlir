// All-reduce across the ring: every tile contributes a partial P[t] of 16 x 512 f16
// (16 KB) and every tile receives the sum over all 32 partials, which it stores as its
// own copy Y[t].
//
// P, Y: [32, 16, 512] f16. Grid [32]. ktdp.inter_tile_produce names each tile's
// partial; ktdp.inter_tile_reduce with consumers == producers (all 32 tiles) and an add
// combiner is the all-reduce. The scheduler runs it as a ring reduce-scatter followed by
// a ring all-gather: each core sends 2 x 31/32 of the partial over its outgoing link.
//
//   spyre-compile models/kernels/ring_allreduce.mlir -o out/ring_allreduce
//   spyre-sim run out/ring_allreduce/job.plan --input P=p.npy --output Y=y.npy

#all_set    = affine_set<(d0, d1, d2) : (d0 >= 0, -d0 + 31 >= 0, d1 >= 0, -d1 + 15 >= 0, d2 >= 0, -d2 + 511 >= 0)>
#part_set   = affine_set<(d0, d1, d2) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 15 >= 0, d2 >= 0, -d2 + 511 >= 0)>
#identity   = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#all_tiles  = affine_set<(i)[g] : (i - 32*g >= 0, -i + 32*g + 31 >= 0)>

module {
  func.func @ring_allreduce(%P_ptr: index, %Y_ptr: index) attributes {grid = [32]} {
    %c0 = arith.constant 0 : index
    %pid = ktdp.get_compute_tile_id : index

    %P = ktdp.construct_memory_view %P_ptr, sizes: [32, 16, 512], strides: [8192, 512, 1] {
      coordinate_set = #all_set, memory_space = #ktdp.memory_space<global>
    } : memref<32x16x512xf16>
    %Y = ktdp.construct_memory_view %Y_ptr, sizes: [32, 16, 512], strides: [8192, 512, 1] {
      coordinate_set = #all_set, memory_space = #ktdp.memory_space<global>
    } : memref<32x16x512xf16>

    %p_acc = ktdp.construct_access_tile %P[%pid, %c0, %c0] {
      access_tile_set = #part_set, access_tile_order = #identity
    } : memref<32x16x512xf16> -> !ktdp.access_tile<1x16x512xindex>
    %p3 = ktdp.load %p_acc : !ktdp.access_tile<1x16x512xindex> -> tensor<1x16x512xf16>
    %partial = tensor.collapse_shape %p3 [[0, 1], [2]] : tensor<1x16x512xf16> into tensor<16x512xf16>

    %fut = ktdp.inter_tile_produce
        producer_tiles_per_group = #all_tiles
        : tensor<16x512xf16> -> !ktdp.tile_future<tensor<16x512xf16>, groups = affine_set<(g) : (g == 0)>>
    {
      ^bb0(%gid: index):
        ktdp.yield_partial %partial : tensor<16x512xf16>
    }

    %zero = arith.constant 0.0 : f16
    %id_empty = tensor.empty() : tensor<16x512xf16>
    %id = linalg.fill ins(%zero : f16) outs(%id_empty : tensor<16x512xf16>) -> tensor<16x512xf16>
    %sum = ktdp.inter_tile_reduce(%fut)
        consumer_tiles_per_group = #all_tiles,
        identity(%id : tensor<16x512xf16>)
        : !ktdp.tile_future<tensor<16x512xf16>, groups = affine_set<(g) : (g == 0)>> -> tensor<16x512xf16>
    {
      ^bb0(%lhs: tensor<16x512xf16>, %rhs: tensor<16x512xf16>):
        %init = tensor.empty() : tensor<16x512xf16>
        %s = linalg.add ins(%lhs, %rhs : tensor<16x512xf16>, tensor<16x512xf16>)
                        outs(%init : tensor<16x512xf16>) -> tensor<16x512xf16>
        ktdp.yield_reduced %s : tensor<16x512xf16>
    }

    %sum3 = tensor.expand_shape %sum [[0, 1], [2]] output_shape [1, 16, 512]
        : tensor<16x512xf16> into tensor<1x16x512xf16>
    %y_acc = ktdp.construct_access_tile %Y[%pid, %c0, %c0] {
      access_tile_set = #part_set, access_tile_order = #identity
    } : memref<32x16x512xf16> -> !ktdp.access_tile<1x16x512xindex>
    ktdp.store %sum3, %y_acc : tensor<1x16x512xf16>, !ktdp.access_tile<1x16x512xindex>
    return
  }
}
