// Two reduce groups of strided tiles, as ktir-cpu's split-K attention (sdsc/sdpa_pv_ksplit)
// groups them: on a grid of 4, group g sums the rows of tiles g and g + 2
// ((i - g) mod 2 == 0), and tile g writes its group's sum to out[g]. The group set is
// written inline with `>=` inside !ktdp.tile_future, as that kernel writes it. Adapted from
// the public sample ring_reduce.mlir (../shared/ktir-examples, Apache-2.0).
//
// in: [4, 128] f16, one row per tile; out: [2, 128] f16.

#row_set    = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 127 >= 0)>
#identity   = affine_map<(d0, d1) -> (d0, d1)>

#all_tiles  = affine_set<(i)[g] : ((i - g) mod 2 == 0, i - g >= 0, -i + g + 2 >= 0)>
#one_group  = affine_set<(g) : (g == 0)>

module {
  func.func @strided_groups_reduce(%in_ptr: index, %out_ptr: index)
      attributes {grid = [4]} {

    %c0   = arith.constant 0 : index
    %row_elems = arith.constant 128 : index

    %pid = ktdp.get_compute_tile_id : index

    %offs = arith.muli %pid, %row_elems : index
    %row_ptr = arith.addi %in_ptr, %offs : index

    %row_view = ktdp.construct_memory_view %row_ptr,
                  sizes: [1, 128], strides: [128, 1] {
      coordinate_set = #row_set,
      memory_space   = #ktdp.memory_space<global>
    } : memref<1x128xf16>

    %row_acc = ktdp.construct_access_tile %row_view[%c0, %c0] {
      access_tile_set   = #row_set,
      access_tile_order = #identity
    } : memref<1x128xf16> -> !ktdp.access_tile<1x128xindex>

    %partial = ktdp.load %row_acc
                : !ktdp.access_tile<1x128xindex> -> tensor<1x128xf16>

    %fut = ktdp.inter_tile_produce
        producer_tiles_per_group = #all_tiles
        : tensor<1x128xf16> -> !ktdp.tile_future<tensor<1x128xf16>, groups = affine_set<(g) : (g >= 0, -g + 1 >= 0)>>
    {
      ^bb0(%gid: index):
        ktdp.yield_partial %partial : tensor<1x128xf16>
    }

    %c_zero    = arith.constant 0.0 : f16
    %id_init   = tensor.empty() : tensor<1x128xf16>
    %add_id    = linalg.fill ins(%c_zero : f16) outs(%id_init : tensor<1x128xf16>)
                   -> tensor<1x128xf16>

    %reduced = ktdp.inter_tile_reduce(%fut)
        consumer_tiles_per_group = #all_tiles,
        identity(%add_id : tensor<1x128xf16>)
        : !ktdp.tile_future<tensor<1x128xf16>, groups = affine_set<(g) : (g >= 0, -g + 1 >= 0)>> -> tensor<128xf16>
    {
      ^bb0(%lhs: tensor<1x128xf16>, %rhs: tensor<1x128xf16>):
        %init = tensor.empty() : tensor<1x128xf16>
        %sum  = linalg.add ins(%lhs, %rhs : tensor<1x128xf16>, tensor<1x128xf16>)
                           outs(%init : tensor<1x128xf16>) -> tensor<1x128xf16>
        ktdp.yield_reduced %sum : tensor<1x128xf16>
    }

    %c2w = arith.constant 2 : index
    %is_writer = arith.cmpi ult, %pid, %c2w : index
    scf.if %is_writer {
      %reduced_2d = tensor.expand_shape %reduced [[0, 1]] output_shape [1, 128]
                      : tensor<128xf16> into tensor<1x128xf16>

      %out_row = arith.addi %out_ptr, %offs : index
      %out_view = ktdp.construct_memory_view %out_row,
                    sizes: [1, 128], strides: [128, 1] {
        coordinate_set = #row_set,
        memory_space   = #ktdp.memory_space<global>
      } : memref<1x128xf16>

      %out_acc = ktdp.construct_access_tile %out_view[%c0, %c0] {
        access_tile_set   = #row_set,
        access_tile_order = #identity
      } : memref<1x128xf16> -> !ktdp.access_tile<1x128xindex>

      ktdp.store %reduced_2d, %out_acc
        : tensor<1x128xf16>, !ktdp.access_tile<1x128xindex>
    }

    return
  }
}
