// Vector add of a length known only at launch: C = A + B, n elements.
//
// A, B, C: [n] f16, n a runtime argument: a multiple of 4096 up to 4 Mi elements. The
// compiled program is the same for every n: the tensor arguments' shape is the scalar n
// (bound from the inputs' shape, or with --scalar n=...), and the loop over chunks runs
// n / 4096 times in all. Grid [32]: tile t takes chunks t, t + 32, t + 64, ... of 4096
// elements (8 KB).
//
//   spyre-compile models/kernels/vadd_dynamic.mlir -o out/vadd_dynamic
//   spyre-sim run out/vadd_dynamic/job.plan --input A=a.npy --input B=b.npy --output C=c.npy
//     (a.npy of 65536 elements binds n = 65536; --scalar n=65536 says the same)

#chunk_set = affine_set<(d0) : (d0 >= 0, -d0 + 4095 >= 0)>
#vec_set   = affine_set<(d0)[n] : (d0 >= 0, -d0 + n - 1 >= 0)>
#id1       = affine_map<(d0) -> (d0)>

module {
  func.func @vadd_dynamic(%A_ptr: index, %B_ptr: index, %C_ptr: index,
                          %n: !ktdp.runtime_arg<index, granularity = 4096, upperbound = 4194304>)
      attributes {grid = [32]} {
    %c32 = arith.constant 32 : index
    %chunk = arith.constant 4096 : index
    %pid = ktdp.get_compute_tile_id : index
    %len = ktdp.runtime_arg_extract value from %n
        : !ktdp.runtime_arg<index, granularity = 4096, upperbound = 4194304> -> index
    %chunks = arith.divui %len, %chunk : index

    %A = ktdp.construct_memory_view %A_ptr, sizes: [%len], strides: [1] {
      coordinate_set = #vec_set, memory_space = #ktdp.memory_space<global>
    } : memref<?xf16>
    %B = ktdp.construct_memory_view %B_ptr, sizes: [%len], strides: [1] {
      coordinate_set = #vec_set, memory_space = #ktdp.memory_space<global>
    } : memref<?xf16>
    %C = ktdp.construct_memory_view %C_ptr, sizes: [%len], strides: [1] {
      coordinate_set = #vec_set, memory_space = #ktdp.memory_space<global>
    } : memref<?xf16>

    scf.for %i = %pid to %chunks step %c32 {
      %off = arith.muli %i, %chunk : index
      %a_tile = ktdp.construct_access_tile %A[%off] {
        access_tile_set = #chunk_set, access_tile_order = #id1
      } : memref<?xf16> -> !ktdp.access_tile<4096xindex>
      %b_tile = ktdp.construct_access_tile %B[%off] {
        access_tile_set = #chunk_set, access_tile_order = #id1
      } : memref<?xf16> -> !ktdp.access_tile<4096xindex>
      %c_tile = ktdp.construct_access_tile %C[%off] {
        access_tile_set = #chunk_set, access_tile_order = #id1
      } : memref<?xf16> -> !ktdp.access_tile<4096xindex>
      %a = ktdp.load %a_tile : !ktdp.access_tile<4096xindex> -> tensor<4096xf16>
      %b = ktdp.load %b_tile : !ktdp.access_tile<4096xindex> -> tensor<4096xf16>
      %c = arith.addf %a, %b : tensor<4096xf16>
      ktdp.store %c, %c_tile : tensor<4096xf16>, !ktdp.access_tile<4096xindex>
    }
    return
  }
}
