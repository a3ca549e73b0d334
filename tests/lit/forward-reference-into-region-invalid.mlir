// A value used by an op before its definition inside that op's own region. MLIR 19's
// parser crashes on this (llvm/llvm-project#127778); ktir-opt, spyre-compile and
// tpu-compile report it at the use instead (ParseGuard.h). Found by tests/fuzz.
// RUN: ktir-opt %s -split-input-file -verify-diagnostics
// RUN: not ktir-opt %s 2>&1 | FileCheck %s
// CHECK: error: use of '%n' before its definition, which is inside a region nested in this op
// CHECK: note: '%n' is defined here

func.func @loop_bound(%c0: index, %c1: index) {
  // expected-error @+1 {{use of '%n' before its definition, which is inside a region nested in this op}}
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

// A definition in the region of a later op does not crash the parser (the first op exists
// by then); the verifier reports it.
func.func @sibling(%c0: index, %c1: index) {
  // expected-error @+1 {{operand #1 does not dominate this use}}
  scf.for %i = %c0 to %m step %c1 {
  }
  scf.for %j = %c0 to %c1 step %c1 {
    // expected-note @+1 {{operand defined here (op in a child region)}}
    %m = arith.constant 3 : index
  }
  return
}
