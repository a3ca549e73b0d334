// Branch lowering: scf.if is a conditional branch over the then region (and a jump over
// the else region); an arith.cmpi that only steers branches is folded into the branch
// (beq/bne/blt/bge, operands swapped for sgt and sle); other conditions are compared
// with 0. scf.if results and arith.select get one register, written on each path. A
// constant condition emits only the region that runs.
// RUN: rm -rf %t && dfir-opt %s --emit-spyrecode=%t -o /dev/null
// RUN: spyre-as -d %t/job.plan | FileCheck %s

dfir.job @branches {
  dfir.scalar_arg "N"

  // CHECK-LABEL: .program compute cores=all corelet=all
  dfir.program unit = "compute", cores = all, corelet = -1 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %n = dfir.symbol "N"
    %core = dfir.core_id
    %l = dfir.corelet_id

    // if (core < 2): branch over the body when core >= 2.
    // CHECK-NEXT:  bge core, 2, [[END1:L[0-9]+]]
    // CHECK-NEXT:  sfu.exp.f16 @N, out0, in0
    // CHECK-NEXT: [[END1]]:
    %lt = arith.cmpi slt, %core, %c2 : index
    scf.if %lt {
      dfir.sfu "exp" f16 n = %n, dst = "out0", a = "in0"
    }

    // The other predicates.
    // CHECK-NEXT:  bne corelet, 1, [[END2:L[0-9]+]]
    // CHECK-NEXT:  nop 1
    // CHECK-NEXT: [[END2]]:
    // CHECK-NEXT:  beq corelet, 1, [[END3:L[0-9]+]]
    // CHECK-NEXT:  nop 2
    // CHECK-NEXT: [[END3]]:
    // CHECK-NEXT:  blt @N, core, [[END4:L[0-9]+]]
    // CHECK-NEXT:  nop 3
    // CHECK-NEXT: [[END4]]:
    // CHECK-NEXT:  bge @N, core, [[END5:L[0-9]+]]
    // CHECK-NEXT:  nop 1
    // CHECK-NEXT: [[END5]]:
    // CHECK-NEXT:  blt core, @N, [[END6:L[0-9]+]]
    // CHECK-NEXT:  nop 2
    // CHECK-NEXT: [[END6]]:
    %eq = arith.cmpi eq, %l, %c1 : index
    scf.if %eq {
      dfir.nop cycles = %c1
    }
    %ne = arith.cmpi ne, %l, %c1 : index
    scf.if %ne {
      dfir.nop cycles = %c2
    }
    %le = arith.cmpi sle, %core, %n : index
    scf.if %le {
      dfir.nop cycles = %c3
    }
    %gt = arith.cmpi sgt, %core, %n : index
    scf.if %gt {
      dfir.nop cycles = %c1
    }
    %ge = arith.cmpi sge, %core, %n : index
    scf.if %ge {
      dfir.nop cycles = %c2
    }

    // if/else with a result: each region computes it in the result's register.
    // CHECK-NEXT:  bne corelet, 0, [[ELSE:L[0-9]+]]
    // CHECK-NEXT:  mul r0, @N, 3
    // CHECK-NEXT:  jmp [[JOIN:L[0-9]+]]
    // CHECK-NEXT: [[ELSE]]:
    // CHECK-NEXT:  li r0, @N+1
    // CHECK-NEXT: [[JOIN]]:
    // CHECK-NEXT:  sfu.exp.f16 r0, out0, in0
    %first = arith.cmpi eq, %l, %c0 : index
    %v = scf.if %first -> (index) {
      %x = arith.muli %n, %c3 : index
      scf.yield %x : index
    } else {
      %y = arith.addi %n, %c1 : index
      scf.yield %y : index
    }
    dfir.sfu "exp" f16 n = %v, dst = "out0", a = "in0"

    // select steered by a compare: the result is written on both paths.
    // CHECK-NEXT:  li r1, r0
    // CHECK-NEXT:  blt r0, @N, [[SEL:L[0-9]+]]
    // CHECK-NEXT:  li r1, @N
    // CHECK-NEXT: [[SEL]]:
    %small = arith.cmpi slt, %v, %n : index
    %m = arith.select %small, %v, %n : index

    // A condition that is also a value: 0 or 1 in a register, combined with xori, and
    // the branch compares it with 0.
    // CHECK-NEXT:  li r0, 1
    // CHECK-NEXT:  beq r1, 8, [[SET:L[0-9]+]]
    // CHECK-NEXT:  li r0, 0
    // CHECK-NEXT: [[SET]]:
    // CHECK-NEXT:  xor r0, r0, 1
    // CHECK-NEXT:  beq r0, 0, [[END7:L[0-9]+]]
    // CHECK-NEXT:  sfu.relu.f16 r1, out0, in0
    // CHECK-NEXT: [[END7]]:
    %c8 = arith.constant 8 : index
    %is8 = arith.cmpi eq, %m, %c8 : index
    %true = arith.constant true
    %not8 = arith.xori %is8, %true : i1
    scf.if %not8 {
      dfir.sfu "relu" f16 n = %m, dst = "out0", a = "in0"
    }

    // A constant condition: only the region that runs, no branch.
    // CHECK-NEXT:  sfu.neg.f16 4, out0, in0
    // CHECK-NEXT: .end
    %never = arith.cmpi sgt, %c1, %c2 : index
    %k = scf.if %never -> (index) {
      dfir.sfu "abs" f16 n = %c1, dst = "out0", a = "in0"
      scf.yield %c1 : index
    } else {
      %c4 = arith.constant 4 : index
      scf.yield %c4 : index
    }
    dfir.sfu "neg" f16 n = %k, dst = "out0", a = "in0"
  }

  // A branch inside a loop on a loop-carried value.
  // CHECK-LABEL: .program store cores=all corelet=all
  // CHECK-NEXT:  li r0, 0
  // CHECK-NEXT:  loop @N
  // CHECK-NEXT:    blt r0, 4, [[ELSE2:L[0-9]+]]
  // CHECK-NEXT:    li r0, 0
  // CHECK-NEXT:    jmp [[JOIN2:L[0-9]+]]
  // CHECK-NEXT: [[ELSE2]]:
  // CHECK-NEXT:    st.stream n0=1, fifo=out0, addr=r0 ;
  // CHECK-NEXT:    add r0, r0, 128
  // CHECK-NEXT: [[JOIN2]]:
  // CHECK-NEXT:  endloop
  // CHECK-NEXT: .end
  dfir.program unit = "store", cores = all, corelet = -1 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c128 = arith.constant 128 : index
    %n = dfir.symbol "N"
    scf.for %i = %c0 to %n step %c1 iter_args(%slot = %c0) -> (index) {
      %full = arith.cmpi sge, %slot, %c4 : index
      %next = scf.if %full -> (index) {
        scf.yield %c0 : index
      } else {
        dfir.st_stream n0 = %c1, fifo = "out0", addr = %slot
        %s = arith.addi %slot, %c128 : index
        scf.yield %s : index
      }
      scf.yield %next : index
    }
  }
}
