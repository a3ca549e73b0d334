// C = A + B for 4096 x 4096 fp16 tensors (32 MiB per operand): a DRAM-streaming kernel.
// Work division (decided here, as a front end would): 32 compute tiles, tile p owns rows
// [128p, 128p + 128) and streams them in chunks of 16 rows (128 KiB per operand); each
// iteration loads a chunk of A and of B, adds them on the SFUs and stores the chunk of C.

#full  = affine_set<(d0, d1) : (d0 >= 0, -d0 + 4095 >= 0, d1 >= 0, -d1 + 4095 >= 0)>
#chunk = affine_set<(d0, d1) : (d0 >= 0, -d0 + 15 >= 0, d1 >= 0, -d1 + 4095 >= 0)>
#order = affine_map<(d0, d1) -> (d0, d1)>

module {
  func.func @add_4096x4096(%a_ptr: index, %b_ptr: index, %c_ptr: index)
      attributes {grid = [32]} {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %c128 = arith.constant 128 : index

    %p = ktdp.get_compute_tile_id : index
    %row0 = arith.muli %p, %c128 : index
    %row_end = arith.addi %row0, %c128 : index

    %A = ktdp.construct_memory_view %a_ptr, sizes: [4096, 4096], strides: [4096, 1] {
      coordinate_set = #full, memory_space = #ktdp.memory_space<global>
    } : memref<4096x4096xf16>
    %B = ktdp.construct_memory_view %b_ptr, sizes: [4096, 4096], strides: [4096, 1] {
      coordinate_set = #full, memory_space = #ktdp.memory_space<global>
    } : memref<4096x4096xf16>
    %C = ktdp.construct_memory_view %c_ptr, sizes: [4096, 4096], strides: [4096, 1] {
      coordinate_set = #full, memory_space = #ktdp.memory_space<global>
    } : memref<4096x4096xf16>

    scf.for %r = %row0 to %row_end step %c16 {
      %a_at = ktdp.construct_access_tile %A[%r, %c0] {
        access_tile_set = #chunk, access_tile_order = #order
      } : memref<4096x4096xf16> -> !ktdp.access_tile<16x4096xindex>
      %b_at = ktdp.construct_access_tile %B[%r, %c0] {
        access_tile_set = #chunk, access_tile_order = #order
      } : memref<4096x4096xf16> -> !ktdp.access_tile<16x4096xindex>
      %c_at = ktdp.construct_access_tile %C[%r, %c0] {
        access_tile_set = #chunk, access_tile_order = #order
      } : memref<4096x4096xf16> -> !ktdp.access_tile<16x4096xindex>
      %a = ktdp.load %a_at : !ktdp.access_tile<16x4096xindex> -> tensor<16x4096xf16>
      %b = ktdp.load %b_at : !ktdp.access_tile<16x4096xindex> -> tensor<16x4096xf16>
      %sum = arith.addf %a, %b : tensor<16x4096xf16>
      ktdp.store %sum, %c_at : tensor<16x4096xf16>, !ktdp.access_tile<16x4096xindex>
    }
    return
  }
}
