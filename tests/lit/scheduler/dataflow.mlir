// The DataflowIR a small kernel becomes: per engine one program on its core; whole
// sticks move with dma.load/dma.store, short rows with the byte-granular dma.loadb and
// dma.storeb; elementwise ops stream through the load unit, the SFU and the store unit;
// engines wait on tokens for the data they need.
// RUN: spyre-compile %s -o %t --dump-dir %t.d
// RUN: FileCheck %s --input-file %t.d/04-dataflow.mlir
// RUN: FileCheck %s --check-prefix=ASM --input-file %t.d/05-spyrecode.s

// CHECK: dfir.job @relu6
// CHECK: dfir.tensor_arg "x" role = input, dtype = f16, shape = [2, 64], layout = "row_major"
// CHECK: dfir.tensor_arg "y" role = output, dtype = f16, shape = [2, 40], layout = "row_major"
// CHECK: dfir.program unit = "dma_in", cores = [0, 0], corelet = -1
// CHECK: dfir.dma_load sp = %{{.*}}, mem = %{{.*}}, bytes = %{{.*}}, done = %{{.*}}
// CHECK: dfir.program unit = "dma_out", cores = [0, 0], corelet = -1
// CHECK: dfir.dma_storeb
// CHECK: dfir.program unit = "load", cores = [0, 0], corelet = 0
// CHECK: dfir.token_wait
// CHECK: dfir.ld_stream
// CHECK: dfir.program unit = "compute", cores = [0, 0], corelet = 0
// CHECK: dfir.sfu_splat f16 dst = "v0", value = 0.000000e+00
// CHECK: dfir.sfu "max" f16
// CHECK: dfir.sfu_splat f16 dst = "v0", value = 6.000000e+00
// CHECK: dfir.sfu "min" f16
// CHECK: dfir.program unit = "store", cores = [0, 0], corelet = 0
// CHECK: dfir.st_stream

// ASM: .input x f16 [2, 64] row_major
// ASM: dma.load sp=0, mem=@x, bytes=256
// ASM: dma.storeb sp={{[0-9]+}}, mem=@y, bytes=80, n1=2, ms1=80, ss1=128
module {
  func.func @relu6(%x_ptr: index, %y_ptr: index) {
    %c0 = arith.constant 0 : index
    %zero = arith.constant dense<0.0> : tensor<2x64xf16>
    %six = arith.constant dense<6.0> : tensor<2x64xf16>
    %x = ktdp.construct_memory_view %x_ptr, sizes: [2, 64], strides: [64, 1] {
      memory_space = #ktdp.memory_space<global>
    } : memref<2x64xf16>
    %y = ktdp.construct_memory_view %y_ptr, sizes: [2, 40], strides: [40, 1] {
      memory_space = #ktdp.memory_space<global>
    } : memref<2x40xf16>
    %xt = ktdp.construct_access_tile %x[%c0, %c0] {
      access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 63 >= 0)>,
      access_tile_order = affine_map<(d0, d1) -> (d0, d1)>
    } : memref<2x64xf16> -> !ktdp.access_tile<2x64xindex>
    %v = ktdp.load %xt : !ktdp.access_tile<2x64xindex> -> tensor<2x64xf16>
    %a = arith.maximumf %v, %zero : tensor<2x64xf16>
    %b = arith.minimumf %a, %six : tensor<2x64xf16>
    %s = tensor.extract_slice %b[0, 0] [2, 40] [1, 1] : tensor<2x64xf16> to tensor<2x40xf16>
    %yt = ktdp.construct_access_tile %y[%c0, %c0] {
      access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 39 >= 0)>,
      access_tile_order = affine_map<(d0, d1) -> (d0, d1)>
    } : memref<2x40xf16> -> !ktdp.access_tile<2x40xindex>
    ktdp.store %s, %yt : tensor<2x40xf16>, !ktdp.access_tile<2x40xindex>
    return
  }
}
