// linalg.transpose of a 4 x 40 f16 tile: its result rows (4 elements) fit one stick, so it
// runs on the SFU with no job buffer: a 4 x 4 identity from lane positions (sfu.cvt of an
// i32 comparison), then per input row a lane broadcast (40 result sticks) and a select of
// lane r of every output row under the identity's row r, held in a register.
// RUN: spyre-compile %s -o %t --dump-dir %t.d
// RUN: FileCheck %s --input-file %t.d/04-dataflow.mlir
// RUN: FileCheck %s --check-prefix=ASM --input-file %t.d/05-spyrecode.s

// CHECK: dfir.job @transpose
// CHECK-NOT: dfir.buffer "transpose0"
// CHECK: dfir.program unit = "compute"
// CHECK: dfir.sfu "eq" i32
// CHECK: dfir.sfu_cvt f16
// CHECK-COUNT-4: dfir.sfu "lane.bcast" f16 n = %c40
// CHECK: dfir.sfu "select" f16

// ASM-NOT: .buffer transpose0
// ASM: sfu.lane.bcast.f16 40, out0, v0
// ASM: sfu.select.f16
module {
  func.func @transpose(%x_ptr: index, %y_ptr: index) {
    %c0 = arith.constant 0 : index
    %x = ktdp.construct_memory_view %x_ptr, sizes: [4, 40], strides: [40, 1] {
      memory_space = #ktdp.memory_space<global>
    } : memref<4x40xf16>
    %y = ktdp.construct_memory_view %y_ptr, sizes: [40, 4], strides: [4, 1] {
      memory_space = #ktdp.memory_space<global>
    } : memref<40x4xf16>
    %xt = ktdp.construct_access_tile %x[%c0, %c0] {
      access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 39 >= 0)>,
      access_tile_order = affine_map<(d0, d1) -> (d0, d1)>
    } : memref<4x40xf16> -> !ktdp.access_tile<4x40xindex>
    %v = ktdp.load %xt : !ktdp.access_tile<4x40xindex> -> tensor<4x40xf16>
    %e = tensor.empty() : tensor<40x4xf16>
    %t = linalg.transpose ins(%v : tensor<4x40xf16>) outs(%e : tensor<40x4xf16>) permutation = [1, 0]
    %yt = ktdp.construct_access_tile %y[%c0, %c0] {
      access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 39 >= 0, d1 >= 0, -d1 + 3 >= 0)>,
      access_tile_order = affine_map<(d0, d1) -> (d0, d1)>
    } : memref<40x4xf16> -> !ktdp.access_tile<40x4xindex>
    ktdp.store %t, %yt : tensor<40x4xf16>, !ktdp.access_tile<40x4xindex>
    return
  }
}
