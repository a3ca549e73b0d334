// Every public KTIR sample (%ktir_examples, ../shared/ktir-examples) parses, verifies and
// prints back to text that parses again and prints identically; so does its generic form.
// UNSUPPORTED (skipped) when the folder is absent.
//
// REQUIRES: ktir-examples
// RUN: for f in %ktir_examples/*.mlir %ktir_examples/*.ktir; do \
// RUN:   ktir-opt "$f" > %t.custom.mlir && \
// RUN:   ktir-opt %t.custom.mlir > %t.again.mlir && \
// RUN:   diff %t.custom.mlir %t.again.mlir && \
// RUN:   ktir-opt --mlir-print-op-generic "$f" > %t.generic.mlir && \
// RUN:   ktir-opt %t.generic.mlir > %t.from-generic.mlir && \
// RUN:   diff %t.custom.mlir %t.from-generic.mlir && \
// RUN:   echo "round-trips: $(basename $f)" || { echo "FAILED: $f"; exit 1; }; \
// RUN: done | FileCheck %s

// CHECK-DAG: round-trips: add-with-control-flow.mlir
// CHECK-DAG: round-trips: distributed-view-copy-dynamic.mlir
// CHECK-DAG: round-trips: distributed-view-copy-rowmerge-dynamic.mlir
// CHECK-DAG: round-trips: distributed-view-copy.mlir
// CHECK-DAG: round-trips: ffn_swiglu.mlir
// CHECK-DAG: round-trips: ffn_swiglu_4core.mlir
// CHECK-DAG: round-trips: indirect-access-copy.mlir
// CHECK-DAG: round-trips: indirect-scatter.mlir
// CHECK-DAG: round-trips: paged-tensor-copy.mlir
// CHECK-DAG: round-trips: paged-tensor-write.mlir
// CHECK-DAG: round-trips: reduce_generic.mlir
// CHECK-DAG: round-trips: reduce_multiop.mlir
// CHECK-DAG: round-trips: ring_reduce.mlir
// CHECK-DAG: round-trips: ring_reduce_inner_loop.mlir
// CHECK-DAG: round-trips: scalar_broadcast.mlir
// CHECK-DAG: round-trips: softmax_wide.mlir
// CHECK-DAG: round-trips: nested_yield.ktir
// CHECK-NOT: FAILED
