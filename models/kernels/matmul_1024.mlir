// C = A x B, A 1024 x 1024, B 1024 x 1024: fp16 operands (row-major), fp32 accumulation
// and result. Written by models/kernels/matmul_gen.py (1024 1024 1024 --grid 4 8 --tk 256).
// Work division (decided here, as a front end would): the 32 compute tiles form a
// 4 x 8 grid; tile (i, j) owns the 256 x 128 block of C at rows 256i, columns 128j. It
// streams K in slices of 256: each step loads a 256 x 128 slice of B and a 256 x 256 slice
// of A (B first: every product needs all of it, but only some rows of A) and accumulates
// their product (linalg.matmul on tiles, carried by iter_args).

#a_set  = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1023 >= 0, d1 >= 0, -d1 + 1023 >= 0)>
#b_set  = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1023 >= 0, d1 >= 0, -d1 + 1023 >= 0)>
#c_set  = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1023 >= 0, d1 >= 0, -d1 + 1023 >= 0)>
#a_tile = affine_set<(d0, d1) : (d0 >= 0, -d0 + 255 >= 0, d1 >= 0, -d1 + 255 >= 0)>
#b_tile = affine_set<(d0, d1) : (d0 >= 0, -d0 + 255 >= 0, d1 >= 0, -d1 + 127 >= 0)>
#c_tile = affine_set<(d0, d1) : (d0 >= 0, -d0 + 255 >= 0, d1 >= 0, -d1 + 127 >= 0)>
#order  = affine_map<(d0, d1) -> (d0, d1)>

module {
  func.func @matmul_1024(%a_ptr: index, %b_ptr: index, %c_ptr: index)
      attributes {grid = [4, 8]} {
    %c0 = arith.constant 0 : index
    %c_bm = arith.constant 256 : index
    %c_bn = arith.constant 128 : index
    %c_tk = arith.constant 256 : index
    %c_k = arith.constant 1024 : index
    %zero = arith.constant 0.0 : f32

    %ti, %tj = ktdp.get_compute_tile_id : index, index
    %m0 = arith.muli %ti, %c_bm : index
    %n0 = arith.muli %tj, %c_bn : index

    %A = ktdp.construct_memory_view %a_ptr, sizes: [1024, 1024], strides: [1024, 1] {
      coordinate_set = #a_set, memory_space = #ktdp.memory_space<global>
    } : memref<1024x1024xf16>
    %B = ktdp.construct_memory_view %b_ptr, sizes: [1024, 1024], strides: [1024, 1] {
      coordinate_set = #b_set, memory_space = #ktdp.memory_space<global>
    } : memref<1024x1024xf16>
    %C = ktdp.construct_memory_view %c_ptr, sizes: [1024, 1024], strides: [1024, 1] {
      coordinate_set = #c_set, memory_space = #ktdp.memory_space<global>
    } : memref<1024x1024xf32>

    %empty = tensor.empty() : tensor<256x128xf32>
    %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<256x128xf32>) -> tensor<256x128xf32>
    %acc = scf.for %k = %c0 to %c_k step %c_tk iter_args(%part = %init) -> (tensor<256x128xf32>) {
      %a_at = ktdp.construct_access_tile %A[%m0, %k] {
        access_tile_set = #a_tile, access_tile_order = #order
      } : memref<1024x1024xf16> -> !ktdp.access_tile<256x256xindex>
      %b_at = ktdp.construct_access_tile %B[%k, %n0] {
        access_tile_set = #b_tile, access_tile_order = #order
      } : memref<1024x1024xf16> -> !ktdp.access_tile<256x128xindex>
      %b = ktdp.load %b_at : !ktdp.access_tile<256x128xindex> -> tensor<256x128xf16>
      %a = ktdp.load %a_at : !ktdp.access_tile<256x256xindex> -> tensor<256x256xf16>
      %p = linalg.matmul ins(%a, %b : tensor<256x256xf16>, tensor<256x128xf16>)
                         outs(%part : tensor<256x128xf32>) -> tensor<256x128xf32>
      scf.yield %p : tensor<256x128xf32>
    }
    %c_at = ktdp.construct_access_tile %C[%m0, %n0] {
      access_tile_set = #c_tile, access_tile_order = #order
    } : memref<1024x1024xf32> -> !ktdp.access_tile<256x128xindex>
    ktdp.store %acc, %c_at : tensor<256x128xf32>, !ktdp.access_tile<256x128xindex>
    return
  }
}
