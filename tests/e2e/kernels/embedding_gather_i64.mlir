// Embedding lookup with i64 token ids, as ktir-cpu's kernels declare index tensors:
// out[t, :] = table[ids[t], :]. The device has no i64: the ids are stored as i32 and the
// runtime narrows the host's int64 array, refusing a value that does not fit.
//
// table: [4096, 256] f16 (vocabulary x embedding width); ids: [256] i64 token ids;
// out: [256, 256] f16. Grid [32]: tile t looks up tokens [8t, 8t + 8). The indirect access
// tile names, for every (token m, column k) of the 8 x 256 tile, the element
// table[ids[tok0 + m], k]: the row subscript is read from the ids view, the column
// subscript is direct. The scheduler loads this tile's 8 ids into the scratchpad and
// issues one 512-byte DMA per token, its row address read from there (ld.scalar).
//

#table_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 4095 >= 0, d1 >= 0, -d1 + 255 >= 0)>
#ids_set   = affine_set<(d0) : (d0 >= 0, -d0 + 255 >= 0)>
#out_set   = affine_set<(d0, d1) : (d0 >= 0, -d0 + 255 >= 0, d1 >= 0, -d1 + 255 >= 0)>
#rows_set  = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 255 >= 0)>
#identity  = affine_map<(d0, d1) -> (d0, d1)>

module {
  func.func @embedding_gather(%table_ptr: index, %ids_ptr: index, %out_ptr: index)
      attributes {grid = [32]} {
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %pid = ktdp.get_compute_tile_id : index
    %tok0 = arith.muli %pid, %c8 : index

    %T = ktdp.construct_memory_view %table_ptr, sizes: [4096, 256], strides: [256, 1] {
      coordinate_set = #table_set, memory_space = #ktdp.memory_space<global>
    } : memref<4096x256xf16>
    %IDS = ktdp.construct_memory_view %ids_ptr, sizes: [256], strides: [1] {
      coordinate_set = #ids_set, memory_space = #ktdp.memory_space<global>
    } : memref<256xi64>
    %OUT = ktdp.construct_memory_view %out_ptr, sizes: [256, 256], strides: [256, 1] {
      coordinate_set = #out_set, memory_space = #ktdp.memory_space<global>
    } : memref<256x256xf16>

    // rows[m, k] = table[ids[tok0 + m], k]
    %rows_acc = ktdp.construct_indirect_access_tile
        intermediate_variables(%m, %k)
        %T[ind(%IDS[%m + %tok0]), (%k)] {
          variables_space_set = #rows_set,
          variables_space_order = #identity
        } : memref<4096x256xf16>, memref<256xi64> -> !ktdp.access_tile<8x256xindex>
    %rows = ktdp.load %rows_acc : !ktdp.access_tile<8x256xindex> -> tensor<8x256xf16>

    %out_acc = ktdp.construct_access_tile %OUT[%tok0, %c0] {
      access_tile_set = #rows_set, access_tile_order = #identity
    } : memref<256x256xf16> -> !ktdp.access_tile<8x256xindex>
    ktdp.store %rows, %out_acc : tensor<8x256xf16>, !ktdp.access_tile<8x256xindex>
    return
  }
}
