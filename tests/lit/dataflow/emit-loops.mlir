// Loop lowering: scf.for with lower bound 0 and step 1 is `loop UB ... endloop` with the
// upper bound as the count operand; other bounds get a computed trip count
// ceil((ub - lb) / step) (one or two instructions, none when every bound is constant);
// the induction variable gets a register only when it is used; loop-carried values are
// copied at the end of the body.
// RUN: rm -rf %t && dfir-opt %s --emit-spyrecode=%t -o /dev/null
// RUN: spyre-as -d %t/job.plan | FileCheck %s

dfir.job @loops {
  dfir.scalar_arg "N"
  dfir.tensor_arg "X" role = input, dtype = f16, shape = ["N"]

  // CHECK-LABEL: .program dma_in cores=0-3
  dfir.program unit = "dma_in", cores = [0, 3], corelet = -1 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c5 = arith.constant 5 : index
    %c8 = arith.constant 8 : index
    %c10 = arith.constant 10 : index
    %n = dfir.symbol "N"
    %core = dfir.core_id

    // The count is an operand expression: no instruction, no register.
    // CHECK-NEXT:  loop @N+8
    // CHECK-NEXT:    tsend 0
    // CHECK-NEXT:  endloop
    %n8 = arith.addi %n, %c8 : index
    scf.for %i = %c0 to %n8 step %c1 {
      dfir.token_send token = %c0
    }

    // Constant lower bound and step: one division; the induction variable counts from 2.
    // CHECK-NEXT:  li r0, 2
    // CHECK-NEXT:  div r1, @N, 3
    // CHECK-NEXT:  loop r1
    // CHECK-NEXT:    nop r0
    // CHECK-NEXT:    add r0, r0, 3
    // CHECK-NEXT:  endloop
    scf.for %i = %c2 to %n step %c3 {
      dfir.nop cycles = %i
    }

    // A lower bound in a register: ub - lb.
    // CHECK-NEXT:  mul r0, core, 2
    // CHECK-NEXT:  sub r1, @N, r0
    // CHECK-NEXT:  loop r1
    // CHECK-NEXT:    tsend 1
    // CHECK-NEXT:  endloop
    %lb = arith.muli %core, %c2 : index
    scf.for %i = %lb to %n step %c1 {
      dfir.token_send token = %c1
    }

    // A step in a register: (ub - lb + step - 1) / step.
    // CHECK-NEXT:  mul r0, core+1, core+1
    // CHECK-NEXT:  add r1, @N-1, r0
    // CHECK-NEXT:  div r1, r1, r0
    // CHECK-NEXT:  loop r1
    // CHECK-NEXT:    tsend 2
    // CHECK-NEXT:  endloop
    %st = arith.addi %core, %c1 : index
    %step = arith.muli %st, %st : index
    scf.for %i = %c0 to %n step %step {
      dfir.token_send token = %c2
    }

    // Constant bounds: a constant count, 0 when the range is empty.
    // CHECK-NEXT:  loop 4
    // CHECK-NEXT:    nop 1
    // CHECK-NEXT:  endloop
    // CHECK-NEXT:  loop 0
    // CHECK-NEXT:    nop 1
    // CHECK-NEXT:  endloop
    scf.for %i = %c3 to %c10 step %c2 {
      dfir.nop
    }
    scf.for %i = %c5 to %c2 step %c1 {
      dfir.nop
    }

    // Nested loops: the outer induction variable and a value computed before the inner
    // loop stay live through it; the inner loop's values reuse free registers.
    // CHECK-NEXT:  li r0, 0
    // CHECK-NEXT:  loop @N
    // CHECK-NEXT:    mul r1, r0, 128
    // CHECK-NEXT:    li r2, 0
    // CHECK-NEXT:    loop 5
    // CHECK-NEXT:      mul r3, r2, r1
    // CHECK-NEXT:      add r3, r3, r0
    // CHECK-NEXT:      nop r3
    // CHECK-NEXT:      add r2, r2, 1
    // CHECK-NEXT:    endloop
    // CHECK-NEXT:    add r0, r0, 1
    // CHECK-NEXT:  endloop
    %c128 = arith.constant 128 : index
    scf.for %i = %c0 to %n step %c1 {
      %row = arith.muli %i, %c128 : index
      scf.for %j = %c0 to %c5 step %c1 {
        %p = arith.muli %j, %row : index
        %q = arith.addi %p, %i : index
        dfir.nop cycles = %q
      }
    }

    // A loop-carried address that advances by a constant: one add per iteration, and
    // the result after the loop is in the same register.
    // CHECK-NEXT:  mul r0, core, 4096
    // CHECK-NEXT:  loop 8
    // CHECK-NEXT:    dma.load sp=r0, mem=r0+@X, bytes=128
    // CHECK-NEXT:    add r0, r0, 128
    // CHECK-NEXT:  endloop
    // CHECK-NEXT:  nop r0
    // CHECK-NEXT: .end
    %c4096 = arith.constant 4096 : index
    %first = arith.muli %core, %c4096 : index
    %x = dfir.symbol "X"
    %last = scf.for %i = %c0 to %c8 step %c1 iter_args(%off = %first) -> (index) {
      %mem = arith.addi %x, %off : index
      dfir.dma_load sp = %off, mem = %mem, bytes = %c128
      %next = arith.addi %off, %c128 : index
      scf.yield %next : index
    }
    dfir.nop cycles = %last
  }
}
