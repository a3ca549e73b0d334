// A value used before its definition inside a region opened after the use. MLIR 19's
// parser crashes on this (llvm/llvm-project#127778) or, when a later parse error follows,
// corrupts the heap; ktir-opt, spyre-compile and tpu-compile report it at the use instead
// (ParseGuard.h). Found by tests/fuzz.
// RUN: ktir-opt %s -split-input-file -verify-diagnostics
// RUN: not ktir-opt %s 2>&1 | FileCheck %s
// CHECK: error: use of '%n' before its definition, which is inside a region opened after it
// CHECK: note: '%n' is defined here

func.func @loop_bound(%c0: index, %c1: index) {
  // expected-error @+1 {{use of '%n' before its definition, which is inside a region opened after it}}
  scf.for %i = %c0 to %n step %c1 {
    // expected-note @+1 {{'%n' is defined here}}
    %n = arith.constant 3 : index
  }
  return
}

// -----

// A definition deeper down counts too.
func.func @if_condition(%b: i1) {
  // expected-error @+1 {{use of '%c' before its definition}}
  scf.if %c {
    scf.if %b {
      // expected-note @+1 {{'%c' is defined here}}
      %c, %d = "test.pair"() : () -> (i1, i1)
    }
  }
  return
}

// -----

// A definition in the region of a later op: the parser frees that region while the
// first op still uses the value when parsing fails after it (here: the missing `}`).
func.func @later_region(%c0: index, %c1: index) {
  // expected-error @+1 {{use of '%m' before its definition, which is inside a region opened after it}}
  %x = arith.addi %m, %c1 : index
  scf.for %j = %c0 to %c1 step %c1 {
    // expected-note @+1 {{'%m' is defined here}}
    %m = arith.constant 3 : index
  return
}

// -----

// Forward references within one region, across blocks, are valid and untouched.
func.func @across_blocks(%c: i1) -> index {
  cf.br ^def
^use:
  %y = arith.addi %later, %later : index
  return %y : index
^def:
  %later = arith.constant 1 : index
  scf.if %c {
    %z = arith.constant 2 : index
  }
  cf.br ^use
}
