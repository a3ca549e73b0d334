// linalg.transpose of a 70 x 40 f16 tile (more rows than a stick has lanes, so not on the
// SFU): the DMA out engine writes it, rows packed (80-byte runs, byte-granular), into a job
// buffer in device memory; the DMA in engine reads it back with one dma.loadb of 2-byte
// runs: 40 rows (stride 2 bytes in memory, two sticks in the scratchpad) of 70 elements
// (stride 80 bytes in memory, 2 in the scratchpad).
// RUN: spyre-compile %s -o %t --dump-dir %t.d
// RUN: FileCheck %s --input-file %t.d/04-dataflow.mlir
// RUN: FileCheck %s --check-prefix=ASM --input-file %t.d/05-spyrecode.s

// CHECK: dfir.job @transpose
// CHECK: dfir.buffer "transpose0" size = 5632
// CHECK: dfir.program unit = "dma_in"
// CHECK: dfir.dma_loadb
// CHECK: dfir.program unit = "dma_out"
// CHECK: dfir.dma_storeb
// CHECK: dfir.dma_storeb

// ASM: .buffer transpose0 5632
// ASM: dma.loadb sp={{[0-9]+}}, mem=@transpose0, bytes=2, n1=70, ms1=80, ss1=2, n2=40, ms2=2, ss2=256
// ASM: dma.storeb sp={{[0-9]+}}, mem=@transpose0, bytes=80, n1=70, ms1=80, ss1=128
module {
  func.func @transpose(%x_ptr: index, %y_ptr: index) {
    %c0 = arith.constant 0 : index
    %x = ktdp.construct_memory_view %x_ptr, sizes: [70, 40], strides: [40, 1] {
      memory_space = #ktdp.memory_space<global>
    } : memref<70x40xf16>
    %y = ktdp.construct_memory_view %y_ptr, sizes: [40, 70], strides: [70, 1] {
      memory_space = #ktdp.memory_space<global>
    } : memref<40x70xf16>
    %xt = ktdp.construct_access_tile %x[%c0, %c0] {
      access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 69 >= 0, d1 >= 0, -d1 + 39 >= 0)>,
      access_tile_order = affine_map<(d0, d1) -> (d0, d1)>
    } : memref<70x40xf16> -> !ktdp.access_tile<70x40xindex>
    %v = ktdp.load %xt : !ktdp.access_tile<70x40xindex> -> tensor<70x40xf16>
    %e = tensor.empty() : tensor<40x70xf16>
    %t = linalg.transpose ins(%v : tensor<70x40xf16>) outs(%e : tensor<40x70xf16>) permutation = [1, 0]
    %yt = ktdp.construct_access_tile %y[%c0, %c0] {
      access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 39 >= 0, d1 >= 0, -d1 + 69 >= 0)>,
      access_tile_order = affine_map<(d0, d1) -> (d0, d1)>
    } : memref<40x70xf16> -> !ktdp.access_tile<40x70xindex>
    ktdp.store %t, %yt : tensor<40x70xf16>, !ktdp.access_tile<40x70xindex>
    return
  }
}
