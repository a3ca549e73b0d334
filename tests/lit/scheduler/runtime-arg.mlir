// A runtime argument (!ktdp.runtime_arg) is a launch scalar: its value sizes the outermost
// dimension of the tensor arguments whose views it sizes (the job plan's shape names it),
// and loop bounds computed from it are evaluated at launch. --const fixes it when it
// keeps the type's contract (a multiple of the granularity, at most the upperbound);
// otherwise the contract goes into the plan, and the runtime refuses other values.
// RUN: spyre-compile %s -o %t --dump-dir %t.d
// RUN: FileCheck %s --input-file %t.d/02-arguments.txt
// RUN: FileCheck %s --check-prefix=DFIR --input-file %t.d/04-dataflow.mlir
// RUN: FileCheck %s --check-prefix=PLAN --input-file %t/job.plan
// RUN: spyre-sim run %t/job.plan --timing-only --scalar n=384 | FileCheck %s --check-prefix=SIM
// RUN: not spyre-sim run %t/job.plan --timing-only --scalar n=4224 2>&1 | FileCheck %s --check-prefix=BIG
// RUN: spyre-compile %s -o %t --dump-dir %t.c --const n=512
// RUN: FileCheck %s --check-prefix=CONST --input-file %t.c/02-arguments.txt
// RUN: not spyre-compile %s -o %t --const n=100 2>&1 | FileCheck %s --check-prefix=BAD

// CHECK: tensor a f16 [n (<= 4096)] input  <- argument 0
// CHECK: tensor c f16 [n (<= 4096)] output  <- argument 1
// CHECK: scalar n  <- argument 2, multiple of 128, min 0, max 4096
// DFIR: dfir.scalar_arg "n" multiple_of 128 min 0 max 4096
// PLAN: "shape": [
// PLAN-NEXT: "n"
// PLAN: "scalars": [
// PLAN-NEXT: {
// PLAN-NEXT: "max": 4096,
// PLAN-NEXT: "min": 0,
// PLAN-NEXT: "multiple_of": 128,
// PLAN-NEXT: "name": "n"
// SIM: simulated cycles
// BIG: spyre-sim: error: scalar 'n' of copy (from --scalar n) is 4224, above its maximum 4096 (the program accepts multiples of 128 from 0 to 4096)
// CONST: tensor a f16 [512] input  <- argument 0
// CONST-NOT: scalar
// BAD: runtime-arg.mlir:[[@LINE+3]]:{{[0-9]+}}: error: --const n=100: the value must be a multiple of 128 between 0 and 4096
module {
  func.func @copy(%a_ptr: index, %c_ptr: index,
                  %n: !ktdp.runtime_arg<index, granularity = 128, upperbound = 4096>)
      attributes {grid = [2]} {
    %c2 = arith.constant 2 : index
    %c128 = arith.constant 128 : index
    %id = ktdp.get_compute_tile_id : index
    %len = ktdp.runtime_arg_extract value from %n
        : !ktdp.runtime_arg<index, granularity = 128, upperbound = 4096> -> index
    %g = ktdp.runtime_arg_extract granularity from %n
        : !ktdp.runtime_arg<index, granularity = 128, upperbound = 4096> -> index
    %chunks = arith.divui %len, %g : index
    %a = ktdp.construct_memory_view %a_ptr, sizes: [%len], strides: [1] {
      memory_space = #ktdp.memory_space<global>
    } : memref<?xf16>
    %c = ktdp.construct_memory_view %c_ptr, sizes: [%len], strides: [1] {
      memory_space = #ktdp.memory_space<global>
    } : memref<?xf16>
    scf.for %i = %id to %chunks step %c2 {
      %off = arith.muli %i, %c128 : index
      %at = ktdp.construct_access_tile %a[%off] {
        access_tile_set = affine_set<(d0) : (d0 >= 0, -d0 + 127 >= 0)>,
        access_tile_order = affine_map<(d0) -> (d0)>
      } : memref<?xf16> -> !ktdp.access_tile<128xindex>
      %ct = ktdp.construct_access_tile %c[%off] {
        access_tile_set = affine_set<(d0) : (d0 >= 0, -d0 + 127 >= 0)>,
        access_tile_order = affine_map<(d0) -> (d0)>
      } : memref<?xf16> -> !ktdp.access_tile<128xindex>
      %v = ktdp.load %at : !ktdp.access_tile<128xindex> -> tensor<128xf16>
      ktdp.store %v, %ct : tensor<128xf16>, !ktdp.access_tile<128xindex>
    }
    return
  }
}
