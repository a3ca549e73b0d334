// tpu-opt checks its input with the ParseGuard (ParseGuard.h) as ktir-opt does: graphs that
// would crash MLIR 19's parser (each chunk below crashed tpu-opt before) get located errors.
// See forward-reference-into-region-invalid.mlir for the patterns.
// RUN: tpu-opt %s -split-input-file -verify-diagnostics
// RUN: not tpu-opt %s 2>&1 | FileCheck %s
// CHECK: tpu-opt-parse-guard-invalid.mlir:[[@LINE+7]]:36: error: use of '%init' before its definition, which is inside a region opened after it
// CHECK: note: '%init' is defined here

// A linalg.generic's init defined inside its own body.
func.func @init_in_body(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+2 {{use of '%init' before its definition, which is inside a region opened after it}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%init : tensor<8xf32>) {
    ^bb0(%a: f32, %o: f32):
      // expected-note @+1 {{'%init' is defined here}}
      %init = tensor.empty() : tensor<8xf32>
      linalg.yield %a : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// A row sum whose `dimensions =` list is missing.
func.func @reduce_dimensions(%x: tensor<8x128xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %r = linalg.reduce { arith.addf } ins(%x : tensor<8x128xf32>) outs(%e : tensor<8xf32>)
      // expected-error @+1 {{expected a list of dimension indices '[...]' (integers from 0 to 2^31-1) after 'dimensions =' of linalg.reduce}}
      dimensions = }
  return %r : tensor<8xf32>
}

// -----

// A transpose whose permutation holds an index beyond 32 bits.
func.func @transpose_permutation(%a: tensor<8x128xf32>, %b: tensor<128x8xf32>) -> tensor<128x8xf32> {
  // expected-error @+1 {{expected a list of dimension indices '[...]' (integers from 0 to 2^31-1) after 'permutation =' of linalg.transpose}}
  %t = linalg.transpose ins(%a : tensor<8x128xf32>) outs(%b : tensor<128x8xf32>) permutation = [1, 4294967296]
  return %t : tensor<128x8xf32>
}

// -----

// A well-formed graph passes the check and is parsed and printed as before.
func.func @well_formed(%x: tensor<8x128xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %r = linalg.reduce { arith.addf } ins(%x : tensor<8x128xf32>) outs(%e : tensor<8xf32>) dimensions = [1]
  return %r : tensor<8xf32>
}
