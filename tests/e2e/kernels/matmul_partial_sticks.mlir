// A matmul whose K (32) and N (48) are not whole 64-element sticks, as ktir-cpu's small
// matmul and attention kernels have them (K = 32, N = 32 or 16), then a row sum over the 48
// columns and an elementwise scale on the partial sticks:
//   C = A @ B,  R[r] = sum_j C[r, j],  D = C * 0.5
// A: [64, 32], B: [32, 48], C, D: [64, 48], R: [64], all f16. Grid [2]: tile t owns rows
// [32t, 32t + 32).
#a_all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 63 >= 0, d1 >= 0, -d1 + 31 >= 0)>
#a_blk = affine_set<(d0, d1) : (d0 >= 0, -d0 + 31 >= 0, d1 >= 0, -d1 + 31 >= 0)>
#b_all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 31 >= 0, d1 >= 0, -d1 + 47 >= 0)>
#c_all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 63 >= 0, d1 >= 0, -d1 + 47 >= 0)>
#c_blk = affine_set<(d0, d1) : (d0 >= 0, -d0 + 31 >= 0, d1 >= 0, -d1 + 47 >= 0)>
#r_all = affine_set<(d0) : (d0 >= 0, -d0 + 63 >= 0)>
#r_blk = affine_set<(d0) : (d0 >= 0, -d0 + 31 >= 0)>
#id    = affine_map<(d0, d1) -> (d0, d1)>
#id1   = affine_map<(d0) -> (d0)>

module {
  func.func @matmul_partial(%A_ptr: index, %B_ptr: index, %C_ptr: index, %D_ptr: index,
                            %R_ptr: index) attributes {grid = [2]} {
    %pid = ktdp.get_compute_tile_id : index
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %r0 = arith.muli %pid, %c32 : index
    %A = ktdp.construct_memory_view %A_ptr, sizes: [64, 32], strides: [32, 1] {
      coordinate_set = #a_all, memory_space = #ktdp.memory_space<global>
    } : memref<64x32xf16>
    %B = ktdp.construct_memory_view %B_ptr, sizes: [32, 48], strides: [48, 1] {
      coordinate_set = #b_all, memory_space = #ktdp.memory_space<global>
    } : memref<32x48xf16>
    %C = ktdp.construct_memory_view %C_ptr, sizes: [64, 48], strides: [48, 1] {
      coordinate_set = #c_all, memory_space = #ktdp.memory_space<global>
    } : memref<64x48xf16>
    %D = ktdp.construct_memory_view %D_ptr, sizes: [64, 48], strides: [48, 1] {
      coordinate_set = #c_all, memory_space = #ktdp.memory_space<global>
    } : memref<64x48xf16>
    %R = ktdp.construct_memory_view %R_ptr, sizes: [64], strides: [1] {
      coordinate_set = #r_all, memory_space = #ktdp.memory_space<global>
    } : memref<64xf16>
    %at = ktdp.construct_access_tile %A[%r0, %c0] {
      access_tile_set = #a_blk, access_tile_order = #id
    } : memref<64x32xf16> -> !ktdp.access_tile<32x32xindex>
    %bt = ktdp.construct_access_tile %B[%c0, %c0] {
      access_tile_set = #b_all, access_tile_order = #id
    } : memref<32x48xf16> -> !ktdp.access_tile<32x48xindex>
    %a = ktdp.load %at : !ktdp.access_tile<32x32xindex> -> tensor<32x32xf16>
    %b = ktdp.load %bt : !ktdp.access_tile<32x48xindex> -> tensor<32x48xf16>
    %zero = arith.constant 0.0 : f16
    %init = tensor.splat %zero : tensor<32x48xf16>
    %c = linalg.matmul ins(%a, %b : tensor<32x32xf16>, tensor<32x48xf16>)
        outs(%init : tensor<32x48xf16>) -> tensor<32x48xf16>
    %rinit = tensor.splat %zero : tensor<32xf16>
    %r = linalg.reduce { arith.addf } ins(%c : tensor<32x48xf16>)
        outs(%rinit : tensor<32xf16>) dimensions = [1]
    %half = arith.constant dense<0.5> : tensor<32x48xf16>
    %d = arith.mulf %c, %half : tensor<32x48xf16>
    %ct = ktdp.construct_access_tile %C[%r0, %c0] {
      access_tile_set = #c_blk, access_tile_order = #id
    } : memref<64x48xf16> -> !ktdp.access_tile<32x48xindex>
    ktdp.store %c, %ct : tensor<32x48xf16>, !ktdp.access_tile<32x48xindex>
    %dt = ktdp.construct_access_tile %D[%r0, %c0] {
      access_tile_set = #c_blk, access_tile_order = #id
    } : memref<64x48xf16> -> !ktdp.access_tile<32x48xindex>
    ktdp.store %d, %dt : tensor<32x48xf16>, !ktdp.access_tile<32x48xindex>
    %rt = ktdp.construct_access_tile %R[%r0] {
      access_tile_set = #r_blk, access_tile_order = #id1
    } : memref<64xf16> -> !ktdp.access_tile<32xindex>
    ktdp.store %r, %rt : tensor<32xf16>, !ktdp.access_tile<32xindex>
    return
  }
}
