// A value used before its definition inside a region opened after the use. MLIR 19's
// parser crashes on this (llvm/llvm-project#127778) or, when a later parse error follows,
// corrupts the heap; dfir-opt, like ktir-opt, reports it at the use instead, with the
// definition as a note (ParseGuard.h, GuardedOptMain.h).
// RUN: dfir-opt %s -split-input-file -verify-diagnostics
// RUN: not dfir-opt %s 2>&1 | FileCheck %s

dfir.job @loop_bound {
  dfir.program unit = "load", cores = all, corelet = -1 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    // CHECK: dfir-forward-reference-invalid.mlir:[[#@LINE+2]]:25: error: use of '%n' before its definition, which is inside a region opened after it
    // expected-error @+1 {{use of '%n' before its definition, which is inside a region opened after it}}
    scf.for %i = %c0 to %n step %c1 {
      // CHECK: dfir-forward-reference-invalid.mlir:[[#@LINE+2]]:7: note: '%n' is defined here
      // expected-note @+1 {{'%n' is defined here}}
      %n = arith.constant 3 : index
      dfir.nop cycles = %n
    }
  }
}

// -----

// The definition in the region of a later op, then a parse error (the missing `}` of the
// scf.for): MLIR 19 frees that region while the first op still uses the value.
dfir.job @later_region {
  dfir.program unit = "load", cores = all, corelet = -1 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    // CHECK: dfir-forward-reference-invalid.mlir:[[#@LINE+2]]:21: error: use of '%m' before its definition
    // expected-error @+1 {{use of '%m' before its definition, which is inside a region opened after it}}
    %x = arith.addi %m, %c1 : index
    scf.for %j = %c0 to %c1 step %c1 {
      // CHECK: dfir-forward-reference-invalid.mlir:[[#@LINE+2]]:7: note: '%m' is defined here
      // expected-note @+1 {{'%m' is defined here}}
      %m = arith.constant 3 : index
  }
}
