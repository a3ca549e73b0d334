// Register allocation: linear scan over live intervals onto r0..r15. A value used inside a
// loop but defined before it stays live to the end of the loop; a register is reused once
// the last use of its value has passed; loop-carried values share one register with their
// initial and yielded values when lifetimes allow; dead scalar code costs nothing.
// RUN: rm -rf %t && dfir-opt %s --emit-spyrecode=%t -o /dev/null
// RUN: spyre-as -d %t/job.plan | FileCheck %s

dfir.job @registers {
  dfir.scalar_arg "N"
  dfir.tensor_arg "X" role = input, dtype = f16, shape = ["N"]
  // A value defined before a loop and used in it stays in its register through the
  // whole loop; a value whose last use has passed gives its register to the next one.
  // CHECK-LABEL: .program dma_in cores=all
  // CHECK-NEXT:  mul r0, @N, 4
  // CHECK-NEXT:  mul r0, r0, core
  // CHECK-NEXT:  mul r1, @N, @N
  // CHECK-NEXT:  li r2, 0
  // CHECK-NEXT:  loop 4
  // CHECK-NEXT:    mul r3, r2, r0
  // CHECK-NEXT:    dma.load sp=0, mem=r3+@X+4, bytes=r1, done=1
  // CHECK-NEXT:    add r2, r2, 1
  // CHECK-NEXT:  endloop
  // CHECK-NEXT:  nop @N
  // CHECK-NEXT: .end
  dfir.program unit = "dma_in", cores = all, corelet = -1 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %n = dfir.symbol "N"
    %x = dfir.symbol "X"
    %core = dfir.core_id
    %a = arith.muli %n, %c4 : index
    %b = arith.muli %a, %core : index
    %c = arith.muli %n, %n : index
    scf.for %i = %c0 to %c4 step %c1 {
      %t = arith.muli %i, %b : index
      %mem = arith.addi %x, %t : index
      %mem64 = arith.addi %mem, %c4 : index
      dfir.dma_load sp = %c0, mem = %mem64, bytes = %c, done = %c1
    }
    %d = arith.muli %n, %c1 : index
    dfir.nop cycles = %d
  }
  // Sixteen values live at once fit r0..r15.
  // CHECK-LABEL: .program dma_out cores=all
  // CHECK-NEXT:  mul r0, @N, @N
  // CHECK-NEXT:  mul r1, r0, @N
  // CHECK-COUNT-13: mul
  // CHECK-NEXT:  mul r15, r14, @N
  // CHECK-NEXT:  nop r0
  // CHECK-COUNT-14: nop
  // CHECK-NEXT:  nop r15
  // CHECK-NEXT: .end
  dfir.program unit = "dma_out", cores = all, corelet = -1 {
    %n = dfir.symbol "N"
    %v0 = arith.muli %n, %n : index
    %v1 = arith.muli %v0, %n : index
    %v2 = arith.muli %v1, %n : index
    %v3 = arith.muli %v2, %n : index
    %v4 = arith.muli %v3, %n : index
    %v5 = arith.muli %v4, %n : index
    %v6 = arith.muli %v5, %n : index
    %v7 = arith.muli %v6, %n : index
    %v8 = arith.muli %v7, %n : index
    %v9 = arith.muli %v8, %n : index
    %v10 = arith.muli %v9, %n : index
    %v11 = arith.muli %v10, %n : index
    %v12 = arith.muli %v11, %n : index
    %v13 = arith.muli %v12, %n : index
    %v14 = arith.muli %v13, %n : index
    %v15 = arith.muli %v14, %n : index
    dfir.nop cycles = %v0
    dfir.nop cycles = %v1
    dfir.nop cycles = %v2
    dfir.nop cycles = %v3
    dfir.nop cycles = %v4
    dfir.nop cycles = %v5
    dfir.nop cycles = %v6
    dfir.nop cycles = %v7
    dfir.nop cycles = %v8
    dfir.nop cycles = %v9
    dfir.nop cycles = %v10
    dfir.nop cycles = %v11
    dfir.nop cycles = %v12
    dfir.nop cycles = %v13
    dfir.nop cycles = %v14
    dfir.nop cycles = %v15
  }
  // Loop-carried values: the initial value and the value yielded are computed in the
  // carried register itself; a swap needs one spare register.
  // CHECK-LABEL: .program ring cores=all
  // CHECK-NEXT:  mul r0, core, 128
  // CHECK-NEXT:  li r1, @N
  // CHECK-NEXT:  li r2, 0
  // CHECK-NEXT:  loop @N
  // CHECK-NEXT:    ring.send core=1, src=r0, dst=r1, bytes=r2
  // CHECK-NEXT:    mul r0, r0, 128
  // CHECK-NEXT:    li r3, r1
  // CHECK-NEXT:    li r1, r2
  // CHECK-NEXT:    li r2, r3
  // CHECK-NEXT:  endloop
  // CHECK-NEXT:  nop r0
  // CHECK-NEXT:  nop r1
  // CHECK-NEXT:  nop r2
  // CHECK-NEXT: .end
  dfir.program unit = "ring", cores = all, corelet = -1 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %n = dfir.symbol "N"
    %core = dfir.core_id
    %start = arith.muli %core, %c128 : index
    %r:3 = scf.for %i = %c0 to %n step %c1 iter_args(%p = %start, %q = %n, %s = %c0) -> (index, index, index) {
      dfir.ring_send core = %c1, src = %p, dst = %q, bytes = %s
      %p2 = arith.muli %p, %c128 : index
      %s2 = arith.addi %s, %c128 : index
      scf.yield %p2, %s, %q : index, index, index
    }
    dfir.nop cycles = %r#0
    dfir.nop cycles = %r#1
    dfir.nop cycles = %r#2
  }
  // Dead scalar code costs nothing.
  // CHECK-LABEL: .program load cores=all corelet=all
  // CHECK-NEXT:  twait @N
  // CHECK-NEXT: .end
  dfir.program unit = "load", cores = all, corelet = -1 {
    %n = dfir.symbol "N"
    %unused = arith.muli %n, %n : index
    %unused2 = arith.muli %unused, %n : index
    dfir.token_wait token = %n
  }
}
