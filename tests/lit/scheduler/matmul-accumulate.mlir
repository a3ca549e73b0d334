// A K loop accumulating linalg.matmul through iter_args (the kernel of
// models/kernels/matmul_gen.py, 256^3 on one tile, K in slices of 64): the loads are double
// buffered by the parity of the iteration, each 128x128 PT tile's product is staged on its
// corelet and added there (except in the first iteration, where the zero accumulator makes
// the product the result), and the store of the result moves into the last iteration in
// 64 KB row chunks.
// RUN: spyre-compile %s -o %t --dump-dir %t.d
// RUN: FileCheck %s --input-file %t.d/03-schedule.txt

// CHECK: #0 iter_arg 0 of loop 0: 262144 bytes at 0
// CHECK: #1 ktdp.load: 32768 bytes x2 by (div(i0, 64)) mod 2
// CHECK: #2 ktdp.load: 32768 bytes x2 by (div(i0, 64)) mod 2
// CHECK: #3 matmul product (corelet 0): 65536 bytes
// CHECK: #4 matmul product (corelet 1): 65536 bytes
// CHECK: for i0 = 0 to 256 step 64
// CHECK: dma_in: dma.load b+512*i0
// CHECK: dma_in: dma.loadb a+2*i0
// CHECK: compute0: pt.mm linalg.matmul tile 0 (corelet 0)
// CHECK: for i1 = 0 to min(1, i0) step 1  // matmul: not the first iteration
// CHECK-NEXT: load0: ld matmul accumulate tile 0
// CHECK-NEXT: compute0: add matmul accumulate tile 0
// CHECK: compute1: pt.mm linalg.matmul tile 1 (corelet 1)
// CHECK: compute0: pt.mm linalg.matmul tile 2 (corelet 0)
// CHECK: compute1: pt.mm linalg.matmul tile 3 (corelet 1)
// CHECK: // last iteration: store rows from 0
// CHECK-NEXT: dma_out: dma.store c+0 <-> buf0+0 run 65536
// CHECK: // last iteration: store rows from 192
// CHECK-NEXT: dma_out: dma.store c+196608 <-> buf0+196608 run 65536
// CHECK: {{^    end$}}
// CHECK-NOT: dma_out: dma.store

#a_set  = affine_set<(d0, d1) : (d0 >= 0, -d0 + 255 >= 0, d1 >= 0, -d1 + 255 >= 0)>
#b_set  = affine_set<(d0, d1) : (d0 >= 0, -d0 + 255 >= 0, d1 >= 0, -d1 + 255 >= 0)>
#c_set  = affine_set<(d0, d1) : (d0 >= 0, -d0 + 255 >= 0, d1 >= 0, -d1 + 255 >= 0)>
#a_tile = affine_set<(d0, d1) : (d0 >= 0, -d0 + 255 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#b_tile = affine_set<(d0, d1) : (d0 >= 0, -d0 + 63 >= 0, d1 >= 0, -d1 + 255 >= 0)>
#c_tile = affine_set<(d0, d1) : (d0 >= 0, -d0 + 255 >= 0, d1 >= 0, -d1 + 255 >= 0)>
#order  = affine_map<(d0, d1) -> (d0, d1)>

module {
  func.func @matmul_k_loop(%a_ptr: index, %b_ptr: index, %c_ptr: index)
      attributes {grid = [1, 1]} {
    %c0 = arith.constant 0 : index
    %c_bm = arith.constant 256 : index
    %c_bn = arith.constant 256 : index
    %c_tk = arith.constant 64 : index
    %c_k = arith.constant 256 : index
    %zero = arith.constant 0.0 : f32

    %ti, %tj = ktdp.get_compute_tile_id : index, index
    %m0 = arith.muli %ti, %c_bm : index
    %n0 = arith.muli %tj, %c_bn : index

    %A = ktdp.construct_memory_view %a_ptr, sizes: [256, 256], strides: [256, 1] {
      coordinate_set = #a_set, memory_space = #ktdp.memory_space<global>
    } : memref<256x256xf16>
    %B = ktdp.construct_memory_view %b_ptr, sizes: [256, 256], strides: [256, 1] {
      coordinate_set = #b_set, memory_space = #ktdp.memory_space<global>
    } : memref<256x256xf16>
    %C = ktdp.construct_memory_view %c_ptr, sizes: [256, 256], strides: [256, 1] {
      coordinate_set = #c_set, memory_space = #ktdp.memory_space<global>
    } : memref<256x256xf32>

    %empty = tensor.empty() : tensor<256x256xf32>
    %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<256x256xf32>) -> tensor<256x256xf32>
    %acc = scf.for %k = %c0 to %c_k step %c_tk iter_args(%part = %init) -> (tensor<256x256xf32>) {
      %a_at = ktdp.construct_access_tile %A[%m0, %k] {
        access_tile_set = #a_tile, access_tile_order = #order
      } : memref<256x256xf16> -> !ktdp.access_tile<256x64xindex>
      %b_at = ktdp.construct_access_tile %B[%k, %n0] {
        access_tile_set = #b_tile, access_tile_order = #order
      } : memref<256x256xf16> -> !ktdp.access_tile<64x256xindex>
      %b = ktdp.load %b_at : !ktdp.access_tile<64x256xindex> -> tensor<64x256xf16>
      %a = ktdp.load %a_at : !ktdp.access_tile<256x64xindex> -> tensor<256x64xf16>
      %p = linalg.matmul ins(%a, %b : tensor<256x64xf16>, tensor<64x256xf16>)
                         outs(%part : tensor<256x256xf32>) -> tensor<256x256xf32>
      scf.yield %p : tensor<256x256xf32>
    }
    %c_at = ktdp.construct_access_tile %C[%m0, %n0] {
      access_tile_set = #c_tile, access_tile_order = #order
    } : memref<256x256xf32> -> !ktdp.access_tile<256x256xindex>
    ktdp.store %acc, %c_at : tensor<256x256xf32>, !ktdp.access_tile<256x256xindex>
    return
  }
}
