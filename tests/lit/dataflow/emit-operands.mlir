// Instruction operands come from the SpyreCode opcode table: every operand in table
// order, defaults for the ones left out, ports, enums and floats encoded as the table
// says; an operand expression folds a register, a symbol and a constant into one
// operand; symbols are numbered in order of first use. The plan lists the arguments
// (with their layout), scalars and buffers and gets the standard steps.
// RUN: rm -rf %t && dfir-opt %s --emit-spyrecode=%t -o /dev/null
// RUN: spyre-as -d %t/job.plan | FileCheck %s
// RUN: FileCheck %s --check-prefix=PLAN < %t/job.plan

// PLAN:      "arguments": [
// PLAN:        "name": "A",
// PLAN-NEXT:   "role": "input",
// PLAN-NEXT:   "shape": [
// PLAN-NEXT:     32,
// PLAN-NEXT:     "N"
// PLAN:        "layout": "row_major",
// PLAN-NEXT:   "name": "B",
// PLAN-NEXT:   "role": "inout",
// PLAN:      "buffers": [
// PLAN-NEXT:   {
// PLAN-NEXT:     "name": "tmp",
// PLAN-NEXT:     "size": 4096
// PLAN:      "command": "ComputeOnDevice",
// PLAN:      "kernel": "operands",
// PLAN:      "command": "Allocate",
// PLAN-NEXT: "dev_ptr": "0x1C00000000",
// PLAN-NEXT: "name": "program",
// PLAN:      "scalars": [
// PLAN-NEXT:   {
// PLAN-NEXT:     "name": "N"

// CHECK:      .kernel operands
// CHECK-NEXT: .scalar N
// CHECK-NEXT: .input A f16 [32, N]
// CHECK-NEXT: .inout B f32 [N] row_major
// CHECK-NEXT: .buffer tmp 4096
dfir.job @operands {
  dfir.scalar_arg "N"
  dfir.tensor_arg "A" role = input, dtype = f16, shape = [32, "N"]
  dfir.tensor_arg "B" role = inout, dtype = f32, shape = ["N"], layout = "row_major"
  dfir.buffer "tmp" size = 4096

  // CHECK-LABEL: .program dma_in cores=all
  // CHECK-NEXT:  mul r0, core, 256
  // CHECK-NEXT:  dma.load sp=64, mem=r0+@A+64, bytes=@A.d1
  // CHECK-NEXT:  dma.load sp=0, mem=@tmp, bytes=128, n1=2, ms1=@N, ss1=256, n2=3, ms2=core, ss2=ncores, n3=4, ms3=corelet, ss3=7, done=5
  // CHECK-NEXT:  tsend 3, core=core+1
  // CHECK-NEXT:  twait 3
  // CHECK-NEXT:  nop 1
  // CHECK-NEXT:  nop 7
  // CHECK-NEXT:  ld.scalar.i32 r0, @tmp+64
  // CHECK-NEXT:  twait r0+1
  // CHECK-NEXT: .end
  dfir.program unit = "dma_in", cores = all, corelet = -1 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c5 = arith.constant 5 : index
    %c7 = arith.constant 7 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    %a = dfir.symbol "A"
    %cols = dfir.symbol "A.d1"
    %n = dfir.symbol "N"
    %tmp = dfir.symbol "tmp"
    %core = dfir.core_id
    %ncores = dfir.num_cores
    %corelet = dfir.corelet_id
    // r0: an offset in a register; A + r0 + 64 is one operand.
    %r = arith.muli %core, %c256 : index
    %base = arith.addi %a, %r : index
    %mem = arith.addi %base, %c64 : index
    dfir.dma_load sp = %c64, mem = %mem, bytes = %cols
    dfir.dma_load sp = %c0, mem = %tmp, bytes = %c128, n1 = %c2, ms1 = %n, ss1 = %c256, n2 = %c3, ms2 = %core, ss2 = %ncores, n3 = %c4, ms3 = %corelet, ss3 = %c7, done = %c5
    %next = arith.addi %core, %c2 : index
    %prev = arith.subi %next, %c1 : index
    dfir.token_send token = %c3, core = %prev
    dfir.token_wait token = %c3
    dfir.nop
    dfir.nop cycles = %c7
    // ld.scalar writes a register: its result is a register value like any other.
    %slot = arith.addi %tmp, %c64 : index
    %k = dfir.ld_scalar i32 addr = %slot
    %k1 = arith.addi %k, %c1 : index
    dfir.token_wait token = %k1
  }

  // CHECK-LABEL: .program ring cores=0-7
  // CHECK-NEXT:  ring.send core=1, src=0, dst=128, bytes=256
  // CHECK-NEXT:  ring.send.f32 core=1, src=0, dst=128, bytes=256, dir=ccw, op=add, token=2, done=3
  // CHECK-NEXT:  ring.send.bf16 core=1, src=0, dst=128, bytes=256, dir=cw, op=max
  // CHECK-NEXT: .end
  dfir.program unit = "ring", cores = [0, 7], corelet = -1 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    dfir.ring_send core = %c1, src = %c0, dst = %c128, bytes = %c256
    dfir.ring_send f32 core = %c1, src = %c0, dst = %c128, bytes = %c256, dir = ccw, op = add, token = %c2, done = %c3
    dfir.ring_send bf16 core = %c1, src = %c0, dst = %c128, bytes = %c256, dir = cw, op = max
  }

  // CHECK-LABEL: .program load cores=all corelet=0
  // CHECK-NEXT:  ld.stream n0=@N, fifo=in1, addr=@tmp+128
  // CHECK-NEXT:  ld.stream n0=4, fifo=in0, addr=0, s0=256, s1=1024, s2=8, n1=2, n2=3, fifo_b=in2, addr_b=512, sb0=64, sb1=32, sb2=16
  // CHECK-NEXT: .end
  dfir.program unit = "load", cores = all, corelet = 0 {
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    %c512 = arith.constant 512 : index
    %c1024 = arith.constant 1024 : index
    %n = dfir.symbol "N"
    %tmp = dfir.symbol "tmp"
    %addr = arith.addi %c128, %tmp : index
    dfir.ld_stream n0 = %n, fifo = "in1", addr = %addr
    dfir.ld_stream n0 = %c4, fifo = "in0", addr = %c0, s0 = %c256, s1 = %c1024, s2 = %c8, n1 = %c2, n2 = %c3, fifo_b = "in2", addr_b = %c512, sb0 = %c64, sb1 = %c32, sb2 = %c16
  }

  // CHECK-LABEL: .program compute cores=all corelet=0
  // CHECK-NEXT:  sfu.splat.f16 v0, -inf
  // CHECK-NEXT:  sfu.splat.f32 v15, 0.25
  // CHECK-NEXT:  sfu.add.f16 8, out1, in0, v3
  // CHECK-NEXT:  sfu.select.bf16 8, out0, in2, in0, in1
  // CHECK-NEXT:  sfu.fma.f32 8, v1, in0, in1, v2
  // CHECK-NEXT:  sfu.acc.max.i32 8, v0, in3
  // CHECK-NEXT:  pt.mm.f16 m=64, k=128, n=64, a=in0, b=in1, dst=out0
  // CHECK-NEXT:  pt.mm.bf16 m=64, k=128, n=64, a=in1, b=in0, acc=1, emit=0, out=f32
  // CHECK-NEXT: .end
  dfir.program unit = "compute", cores = all, corelet = 0 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    dfir.sfu_splat f16 dst = "v0", value = "-inf"
    dfir.sfu_splat f32 dst = "v15", value = 0.25
    dfir.sfu "add" f16 n = %c8, dst = "out1", a = "in0", b = "v3"
    dfir.sfu "select" bf16 n = %c8, dst = "out0", cond = "in2", a = "in0", b = "in1"
    dfir.sfu "fma" f32 n = %c8, dst = "v1", a = "in0", b = "in1", c = "v2"
    dfir.sfu "acc.max" i32 n = %c8, dst = "v0", a = "in3"
    dfir.pt_mm f16 m = %c64, k = %c128, n = %c64, a = "in0", b = "in1", dst = "out0"
    dfir.pt_mm bf16 m = %c64, k = %c128, n = %c64, a = "in1", b = "in0", acc = %c1, emit = %c0, out = f32
  }

  // CHECK-LABEL: .program store cores=all corelet=1
  // Operands equal to their defaults are not printed by the disassembler.
  // CHECK-NEXT:  st.stream n0=2, fifo=out1, addr=@tmp, s0=512, n1=3 ;
  // CHECK-NEXT: .end
  dfir.program unit = "store", cores = all, corelet = 1 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c512 = arith.constant 512 : index
    %tmp = dfir.symbol "tmp"
    dfir.st_stream n0 = %c2, fifo = "out1", addr = %tmp, s0 = %c512, s1 = %c0, s2 = %c0, n1 = %c3, n2 = %c1
  }

  // CHECK-LABEL: .program dma_out cores=5
  // CHECK-NEXT:  dma.store sp=0, mem=@B, bytes=@N ;
  // CHECK-NEXT:  dma.storeb sp=2, mem=@B+6, bytes=2, n1=@N, ms1=4, ss1=128, done=1
  // CHECK-NEXT: .end
  dfir.program unit = "dma_out", cores = [5, 5], corelet = -1 {
    %c0 = arith.constant 0 : index
    %b = dfir.symbol "B"
    %n = dfir.symbol "N"
    dfir.dma_store sp = %c0, mem = %b, bytes = %n
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c6 = arith.constant 6 : index
    %c128 = arith.constant 128 : index
    %b6 = arith.addi %b, %c6 : index
    dfir.dma_storeb sp = %c2, mem = %b6, bytes = %c2, n1 = %n, ms1 = %c4, ss1 = %c128, done = %c1
  }
}
