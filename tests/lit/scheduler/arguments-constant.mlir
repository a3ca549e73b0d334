// Kernels that address global memory with constants get one tensor argument per disjoint
// footprint of one element type, named after the constant.
// RUN: spyre-compile %s -o %t --dump-dir %t.d
// RUN: FileCheck %s --input-file %t.d/02-arguments.txt

// CHECK: tensor src f16 [2, 64] input  <- constant addresses [256, 384)
// CHECK: tensor dst f16 [2, 64] output  <- constant addresses [4096, 4224)
module {
  func.func @copy() {
    %c0 = arith.constant 0 : index
    %src_addr = arith.constant 256 : index
    %dst_addr = arith.constant 4096 : index
    %s = ktdp.construct_memory_view %src_addr, sizes: [2, 64], strides: [64, 1] {
      memory_space = #ktdp.memory_space<global>
    } : memref<2x64xf16>
    %d = ktdp.construct_memory_view %dst_addr, sizes: [2, 64], strides: [64, 1] {
      memory_space = #ktdp.memory_space<global>
    } : memref<2x64xf16>
    %st = ktdp.construct_access_tile %s[%c0, %c0] {
      access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 63 >= 0)>,
      access_tile_order = affine_map<(d0, d1) -> (d0, d1)>
    } : memref<2x64xf16> -> !ktdp.access_tile<2x64xindex>
    %dt = ktdp.construct_access_tile %d[%c0, %c0] {
      access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 63 >= 0)>,
      access_tile_order = affine_map<(d0, d1) -> (d0, d1)>
    } : memref<2x64xf16> -> !ktdp.access_tile<2x64xindex>
    %v = ktdp.load %st : !ktdp.access_tile<2x64xindex> -> tensor<2x64xf16>
    ktdp.store %v, %dt : tensor<2x64xf16>, !ktdp.access_tile<2x64xindex>
    return
  }
}
