// Round trip of !ktdp.runtime_arg and ktdp.runtime_arg_extract.
// RUN: ktir-opt %s | ktir-opt | FileCheck %s
// RUN: ktir-opt %s --mlir-print-op-generic | ktir-opt | FileCheck %s

// CHECK-LABEL: func.func @runtime_args
// CHECK-SAME: %{{.*}}: !ktdp.runtime_arg<index, granularity=64, upperbound=4096>
// CHECK-SAME: %{{.*}}: !ktdp.runtime_arg<i32, upperbound=1024>
// CHECK-SAME: %{{.*}}: !ktdp.runtime_arg<index>
func.func @runtime_args(%n: !ktdp.runtime_arg<index, granularity=64, upperbound=4096>,
                        %m: !ktdp.runtime_arg<i32, upperbound = 1024>,
                        %k: !ktdp.runtime_arg<index>) -> (index, index, index, i32, index) {
  // CHECK: ktdp.runtime_arg_extract value from %{{.*}} : <index, granularity=64, upperbound=4096> -> index
  %v = ktdp.runtime_arg_extract value from %n : !ktdp.runtime_arg<index, granularity = 64, upperbound = 4096> -> index
  // CHECK: ktdp.runtime_arg_extract granularity from %{{.*}} : <index, granularity=64, upperbound=4096> -> index
  %g = ktdp.runtime_arg_extract granularity from %n : !ktdp.runtime_arg<index, granularity = 64, upperbound = 4096> -> index
  // CHECK: ktdp.runtime_arg_extract upperbound from %{{.*}} : <index, granularity=64, upperbound=4096> -> index
  %u = ktdp.runtime_arg_extract upperbound from %n : !ktdp.runtime_arg<index, granularity = 64, upperbound = 4096> -> index
  // CHECK: ktdp.runtime_arg_extract value from %{{.*}} : <i32, upperbound=1024> -> i32
  %mv = ktdp.runtime_arg_extract value from %m : !ktdp.runtime_arg<i32, upperbound = 1024> -> i32
  // CHECK: ktdp.runtime_arg_extract value from %{{.*}} : <index> -> index
  %kv = ktdp.runtime_arg_extract value from %k : !ktdp.runtime_arg<index> -> index
  return %v, %g, %u, %mv, %kv : index, index, index, i32, index
}

// The bounds may be given in either order.
// CHECK-LABEL: func.func @bound_order
// CHECK-SAME: !ktdp.runtime_arg<index, granularity=8, upperbound=256>
func.func @bound_order(%n: !ktdp.runtime_arg<index, upperbound = 256, granularity = 8>) {
  return
}
