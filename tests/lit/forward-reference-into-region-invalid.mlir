// A value used before its definition inside a region opened after the use. MLIR 19's
// parser crashes on this (llvm/llvm-project#127778) or, when a later parse error follows,
// corrupts the heap; ktir-opt, spyre-compile, tpu-compile and tpu-opt report it at the use
// instead (ParseGuard.h; tpu-opt-parse-guard-invalid.mlir). Found by tests/fuzz.
// RUN: ktir-opt %s -split-input-file -verify-diagnostics -allow-unregistered-dialect
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

// -----

// A forward reference a region leaves unresolved stays open in the enclosing region: the
// definition in the region of a later op, then a parse error, corrupts MLIR 19's heap.
func.func @unresolved_in_region(%t: tensor<4xf32>) {
  %a = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      outs(%t : tensor<4xf32>) {
    ^bb0(%o: f32):
      // expected-error @+1 {{use of '%sq' before its definition, which is inside a region opened after it}}
      %s = arith.addf %sq, %o : f32
      linalg.yield %s : f32
  } -> tensor<4xf32>
  scf.execute_region {
    // expected-note @+1 {{'%sq' is defined here}}
    %sq = arith.constant 1.0 : f32
    scf.yield
  }
  return
}

// -----

// MLIR 19's parsers of linalg.reduce, linalg.broadcast and linalg.transpose crash on a
// malformed integer list, their verifiers on an index beyond 32 bits.
func.func @reduce_dimensions(%a: tensor<4x2xf32>, %b: tensor<4xf32>) {
  %r = linalg.reduce { arith.addf } ins(%a : tensor<4x2xf32>) outs(%b : tensor<4xf32>)
      // expected-error @+1 {{expected a list of dimension indices '[...]' (integers from 0 to 2^31-1) after 'dimensions =' of linalg.reduce}}
      dimensions = }
  return
}

// -----

func.func @transpose_permutation(%a: tensor<4x2xf32>, %b: tensor<2x4xf32>) {
  // expected-error @+1 {{expected a list of dimension indices '[...]' (integers from 0 to 2^31-1) after 'permutation =' of linalg.transpose}}
  %t = linalg.transpose ins(%a : tensor<4x2xf32>) outs(%b : tensor<2x4xf32>) permutation = [1, 2147483648]
  return
}

// -----

func.func @broadcast_dimensions(%a: tensor<4xf32>, %b: tensor<4x2xf32>) {
  // expected-error @+1 {{expected a list of dimension indices '[...]' (integers from 0 to 2^31-1) after 'dimensions =' of linalg.broadcast}}
  %t = linalg.broadcast ins(%a : tensor<4xf32>) outs(%b : tensor<4x2xf32>) dimensions = [1, x]
  return
}

// -----

// Well-formed lists pass (and an attribute named `dimensions` elsewhere is not checked).
func.func @well_formed(%a: tensor<4x2xf32>, %b: tensor<4xf32>, %c: tensor<2x4xf32>) {
  %r = linalg.reduce { arith.addf } ins(%a : tensor<4x2xf32>) outs(%b : tensor<4xf32>) dimensions = [ 1 ]
  %t = linalg.transpose ins(%a : tensor<4x2xf32>) outs(%c : tensor<2x4xf32>) permutation = [1, 0]
  %u = "test.op"() {dimensions = array<i64: 0>} : () -> i1
  return
}

// -----

// Argument lists define their names however they are spaced (`%n : T` as well as `%n: T`),
// in functions and in block headers, so a later region may reuse a name without being
// taken for the definition of a forward reference. A value passed to a successor
// (`^bb1(%v : index)`) or written before a type in an operand list (`%v : index`) is a
// use, not a definition.
func.func @spaced_arguments(%M_symb : !ktdp.runtime_arg<index, upperbound=300>,
                            %n : index) -> index {
  %M = ktdp.runtime_arg_extract value from %M_symb : !ktdp.runtime_arg<index, upperbound = 300> -> index
  %s = arith.addi %M, %n : index
  return %s : index
}
func.func @reuses_the_names() -> index {
  %r = scf.execute_region -> index {
    %M_symb = arith.constant 1 : index
    %n = arith.constant 2 : index
    %s = arith.addi %M_symb, %n : index
    scf.yield %s : index
  }
  return %r : index
}
func.func @spaced_block_arguments(%t : tensor<4xf32>, %c : i1, %k : index) -> index {
  %a = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      outs(%t : tensor<4xf32>) {
    ^bb0(%o : f32):
      linalg.yield %o : f32
  } -> tensor<4xf32>
  cf.cond_br %c, ^next(%k : index), ^next(%k : index)
^next(%v : index):
  scf.execute_region {
    %o = arith.constant 1.0 : f32
    %v2 = arith.constant 3 : index
    scf.yield
  }
  return %v : index
}

// -----

// A use written `%v: type` (no space) in an operand list is a use, not a definition: here
// of a value defined in a later block, which a nested region may use.
func.func @unspaced_use(%c: i1) -> index {
  cf.br ^def
^use:
  %y = arith.addi %later, %later : index
  scf.if %c {
    %z = arith.addi %y, %later: index
  }
  return %y : index
^def:
  %later = arith.constant 1 : index
  cf.br ^use
}

// -----

// A region's arguments written after an op's other parts, `(%in: f32, %acc : f32) {` of
// linalg.reduce, are definitions too, however spaced; `ins(%x : T)` and `outs(%y : T)` use.
func.func @reduce_arguments(%x: tensor<4x8xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %r = linalg.reduce ins(%x : tensor<4x8xf32>) outs(%y : tensor<4xf32>) dimensions = [1]
    (%in: f32, %acc : f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %m = linalg.reduce ins(%x : tensor<4x8xf32>) outs(%r : tensor<4xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.maximumf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %m : tensor<4xf32>
}

// -----

// Line breaks and comments may stand between a definition's name and its `=` (or a
// result list's `,`): `%n` on one line, `= arith.constant 3` on the next (found by
// tests/fuzz/harness/fuzz_ktir.cpp; the guard took `%n` for a use and let the parser crash).
func.func @name_and_equals_on_two_lines(%c0: index, %c1: index) {
  // expected-error @+1 {{use of '%n' before its definition, which is inside a region opened after it}}
  scf.for %i = %c0 to %n step %c1 {
    // expected-note @+1 {{'%n' is defined here}}
    %n
      = arith.constant 3 : index
  }
  return
}

// -----

func.func @results_across_a_comment(%b: i1) {
  // expected-error @+1 {{use of '%c' before its definition}}
  scf.if %c {
    scf.if %b {
      // expected-note @+1 {{'%c' is defined here}}
      %c, // the first result
      %d = "test.pair"() : () -> (i1, i1)
    }
  }
  return
}
