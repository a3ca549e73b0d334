// Round trip of every dfir op, in the custom and the generic form: the job and its
// argument declarations, programs, the launch-bound leaves and every instruction op with
// all of its operands (ports, enums, floats, optional operands and element types).
// RUN: dfir-opt %s | dfir-opt | FileCheck %s
// RUN: dfir-opt %s --mlir-print-op-generic | dfir-opt | FileCheck %s

// CHECK-LABEL: dfir.job @everything
dfir.job @everything {
  // CHECK: dfir.scalar_arg "N"{{$}}
  dfir.scalar_arg "N"
  // CHECK: dfir.scalar_arg "n" multiple_of 4096 min 0 max 4194304
  dfir.scalar_arg "n" multiple_of 4096 min 0 max 4194304
  // CHECK: dfir.scalar_arg "lo" min -8
  dfir.scalar_arg "lo" min -8
  // CHECK: dfir.tensor_arg "A" role = input, dtype = f16, shape = [32, "N"], layout = "stick"
  dfir.tensor_arg "A" role = input, dtype = f16, shape = [32, "N"], layout = "stick"
  // CHECK: dfir.tensor_arg "B" role = inout, dtype = bf16, shape = ["N"]
  dfir.tensor_arg "B" role = inout, dtype = bf16, shape = ["N"]
  // CHECK: dfir.tensor_arg "C" role = output, dtype = f32, shape = [4, 64], layout = "row_major"
  dfir.tensor_arg "C" role = output, dtype = f32, shape = [4, 64], layout = "row_major"
  // CHECK: dfir.tensor_arg "I" role = input, dtype = i32, shape = [64]
  dfir.tensor_arg "I" role = input, dtype = i32, shape = [64]
  // CHECK: dfir.buffer "tmp" size = 4096
  dfir.buffer "tmp" size = 4096

  // CHECK: dfir.program unit = "dma_in", cores = all, corelet = -1 {
  dfir.program unit = "dma_in", cores = all, corelet = -1 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    // CHECK: dfir.core_id
    %core = dfir.core_id
    // CHECK: dfir.num_cores
    %ncores = dfir.num_cores
    // CHECK: dfir.symbol "A"
    %a = dfir.symbol "A"
    // CHECK: dfir.symbol "A.d1"
    %cols = dfir.symbol "A.d1"
    // CHECK: dfir.symbol "tmp"
    %tmp = dfir.symbol "tmp"
    // CHECK: dfir.symbol "N"
    %n = dfir.symbol "N"
    // CHECK: dfir.dma_load sp = %{{.*}}, mem = %{{.*}}, bytes = %{{.*}}{{$}}
    dfir.dma_load sp = %c0, mem = %a, bytes = %cols
    // CHECK: dfir.dma_load sp = %{{.*}}, mem = %{{.*}}, bytes = %{{.*}}, n1 = %{{.*}}, ms1 = %{{.*}}, ss1 = %{{.*}}, n2 = %{{.*}}, ms2 = %{{.*}}, ss2 = %{{.*}}, n3 = %{{.*}}, ms3 = %{{.*}}, ss3 = %{{.*}}, done = %{{.*}}
    dfir.dma_load done = %c1, sp = %c0, mem = %tmp, bytes = %n, n1 = %c1, ms1 = %c0, ss1 = %c0, n2 = %core, ms2 = %ncores, ss2 = %c0, n3 = %c1, ms3 = %c0, ss3 = %c0
    // CHECK: dfir.dma_loadb sp = %{{.*}}, mem = %{{.*}}, bytes = %{{.*}}, n1 = %{{.*}}, ms1 = %{{.*}}, ss1 = %{{.*}}, done = %{{.*}}
    dfir.dma_loadb sp = %c0, mem = %a, bytes = %c1, n1 = %n, ms1 = %cols, ss1 = %c1, done = %c0
    // CHECK: dfir.token_send token = %{{.*}}{{$}}
    dfir.token_send token = %c0
    // CHECK: dfir.token_send token = %{{.*}}, core = %{{.*}}
    dfir.token_send token = %c1, core = %core
    // CHECK: dfir.token_wait token = %{{.*}}
    dfir.token_wait token = %c0
    // CHECK: dfir.nop{{$}}
    dfir.nop
    // CHECK: dfir.nop cycles = %{{.*}}
    dfir.nop cycles = %c1
    // CHECK: %[[IDX:.*]] = dfir.ld_scalar i32 addr = %{{.*}}
    %idx = dfir.ld_scalar i32 addr = %c0
    // CHECK: dfir.token_wait token = %[[IDX]]
    dfir.token_wait token = %idx
  }

  // CHECK: dfir.program unit = "dma_out", cores = [0, 15], corelet = -1 {
  dfir.program unit = "dma_out", cores = [0, 15], corelet = -1 {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %c = dfir.symbol "C"
    // CHECK: dfir.dma_store sp = %{{.*}}, mem = %{{.*}}, bytes = %{{.*}}, n1 = %{{.*}}, done = %{{.*}}
    dfir.dma_store sp = %c0, mem = %c, bytes = %c4, n1 = %c4, done = %c0
    // CHECK: dfir.dma_storeb sp = %{{.*}}, mem = %{{.*}}, bytes = %{{.*}}{{$}}
    dfir.dma_storeb sp = %c0, mem = %c, bytes = %c4
  }

  // CHECK: dfir.program unit = "ring", cores = [0, 31], corelet = -1 {
  dfir.program unit = "ring", cores = [0, 31], corelet = -1 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    // CHECK: dfir.ring_send core = %{{.*}}, src = %{{.*}}, dst = %{{.*}}, bytes = %{{.*}}{{$}}
    dfir.ring_send core = %c1, src = %c0, dst = %c0, bytes = %c128
    // CHECK: dfir.ring_send f32 core = %{{.*}}, src = %{{.*}}, dst = %{{.*}}, bytes = %{{.*}}, dir = cw, op = add, token = %{{.*}}, done = %{{.*}}
    dfir.ring_send f32 core = %c1, src = %c0, dst = %c128, bytes = %c128, dir = cw, op = add, token = %c0, done = %c1
    // CHECK: dfir.ring_send bf16 core = %{{.*}}, src = %{{.*}}, dst = %{{.*}}, bytes = %{{.*}}, dir = ccw, op = max
    dfir.ring_send bf16 core = %c1, src = %c0, dst = %c128, bytes = %c128, dir = "ccw", op = "max"
    // CHECK: dfir.ring_send i32 core = %{{.*}}, src = %{{.*}}, dst = %{{.*}}, bytes = %{{.*}}, dir = short, op = min
    dfir.ring_send i32 core = %c1, src = %c0, dst = %c128, bytes = %c128, dir = short, op = min
  }

  // CHECK: dfir.program unit = "load", cores = [0, 31], corelet = 0 {
  dfir.program unit = "load", cores = [0, 31], corelet = 0 {
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %c128 = arith.constant 128 : index
    // CHECK: dfir.corelet_id
    %l = dfir.corelet_id
    // CHECK: dfir.ld_stream n0 = %{{.*}}, fifo = "in0", addr = %{{.*}}{{$}}
    dfir.ld_stream n0 = %c2, fifo = "in0", addr = %c0
    // CHECK: dfir.ld_stream n0 = %{{.*}}, fifo = "in1", addr = %{{.*}}, s0 = %{{.*}}, s1 = %{{.*}}, s2 = %{{.*}}, n1 = %{{.*}}, n2 = %{{.*}}, fifo_b = "in2", addr_b = %{{.*}}, sb0 = %{{.*}}, sb1 = %{{.*}}, sb2 = %{{.*}}
    dfir.ld_stream n0 = %c2, fifo = "in1", addr = %l, s0 = %c128, s1 = %c0, s2 = %c0, n1 = %c2, n2 = %c2, fifo_b = "in2", addr_b = %c128, sb0 = %c128, sb1 = %c0, sb2 = %c0
    // CHECK: dfir.ld_stream n0 = %{{.*}}, fifo = "in0", addr = %{{.*}}, fifo_b = "none"
    dfir.ld_stream n0 = %c2, fifo = in0, addr = %c0, fifo_b = none
  }

  // CHECK: dfir.program unit = "compute", cores = [3, 3], corelet = 1 {
  dfir.program unit = "compute", cores = [3, 3], corelet = 1 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c64 = arith.constant 64 : index
    // CHECK: dfir.sfu_splat f16 dst = "v0", value = "-inf"
    dfir.sfu_splat f16 dst = "v0", value = "-inf"
    // CHECK: dfir.sfu_splat f32 dst = "v1", value = "inf"
    dfir.sfu_splat f32 dst = "v1", value = inf
    // CHECK: dfir.sfu_splat bf16 dst = "v2", value = "nan"
    dfir.sfu_splat bf16 dst = "v2", value = nan
    // CHECK: dfir.sfu_splat i32 dst = "v3", value = -2.500000e+00
    dfir.sfu_splat i32 dst = "v3", value = -2.5
    // CHECK: dfir.sfu_splat f16 dst = "v4", value = 0.000000e+00
    dfir.sfu_splat f16 dst = "v4", value = 0.0
    // CHECK: dfir.sfu_cvt f32 n = %{{.*}}, dst = "out0", a = "in0", from = f16, part = %{{.*}}
    dfir.sfu_cvt f32 n = %c8, dst = "out0", a = "in0", from = f16, part = %c1
    // CHECK: dfir.sfu_cvt f16 n = %{{.*}}, dst = "out0", a = "in0", b = "in1", from = f32
    dfir.sfu_cvt f16 n = %c8, dst = "out0", a = "in0", b = "in1", from = f32
    // CHECK: dfir.sfu_cvt i32 n = %{{.*}}, dst = "out0", a = "v2", from = bf16
    dfir.sfu_cvt i32 n = %c8, dst = "out0", a = "v2", from = bf16
    // CHECK: dfir.sfu_splat_int i32 dst = "v0", value = %{{.*}}
    dfir.sfu_splat_int i32 dst = "v0", value = %c64
    // CHECK: dfir.sfu_splat_int f16 dst = "v1", value = %{{.*}}
    dfir.sfu_splat_int f16 dst = "v1", value = %c8
    // CHECK: dfir.sfu "div" i32
    dfir.sfu "div" i32 n = %c8, dst = "out0", a = "in0", b = "v1"
    // CHECK: dfir.sfu "mov" i32 n = %{{.*}}, dst = "out0", a = "in0"
    dfir.sfu "mov" i32 n = %c8, dst = "out0", a = "in0"
    // CHECK: dfir.sfu "neg" f16
    dfir.sfu "neg" f16 n = %c8, dst = "out0", a = "in0"
    // CHECK: dfir.sfu "abs" f16
    dfir.sfu "abs" f16 n = %c8, dst = "out0", a = "in0"
    // CHECK: dfir.sfu "exp" f16
    dfir.sfu "exp" f16 n = %c8, dst = "out0", a = "in0"
    // CHECK: dfir.sfu "log" f32
    dfir.sfu "log" f32 n = %c8, dst = "out0", a = "in0"
    // CHECK: dfir.sfu "recip" bf16
    dfir.sfu "recip" bf16 n = %c8, dst = "out0", a = "in0"
    // CHECK: dfir.sfu "rsqrt" f16
    dfir.sfu "rsqrt" f16 n = %c8, dst = "out0", a = "in0"
    // CHECK: dfir.sfu "sqrt" f16
    dfir.sfu "sqrt" f16 n = %c8, dst = "out0", a = "in0"
    // CHECK: dfir.sfu "sigmoid" f16
    dfir.sfu "sigmoid" f16 n = %c8, dst = "out0", a = "in0"
    // CHECK: dfir.sfu "tanh" f16
    dfir.sfu "tanh" f16 n = %c8, dst = "out0", a = "in0"
    // CHECK: dfir.sfu "gelu" f16
    dfir.sfu "gelu" f16 n = %c8, dst = "out0", a = "in0"
    // CHECK: dfir.sfu "silu" f16
    dfir.sfu "silu" f16 n = %c8, dst = "out0", a = "in0"
    // CHECK: dfir.sfu "relu" i32
    dfir.sfu "relu" i32 n = %c8, dst = "out0", a = "in0"
    // CHECK: dfir.sfu "add" f16 n = %{{.*}}, dst = "out0", a = "in0", b = "in1"
    dfir.sfu "add" f16 n = %c8, dst = "out0", a = "in0", b = "in1"
    // CHECK: dfir.sfu "sub" f16 n = %{{.*}}, dst = "out1", a = "in0", b = "v1"
    dfir.sfu "sub" f16 n = %c8, dst = "out1", a = "in0", b = "v1"
    // CHECK: dfir.sfu "mul" f16
    dfir.sfu "mul" f16 n = %c8, dst = "out0", a = "in0", b = "in1"
    // CHECK: dfir.sfu "div" f32
    dfir.sfu "div" f32 n = %c8, dst = "out0", a = "in0", b = "in1"
    // CHECK: dfir.sfu "max" f16
    dfir.sfu "max" f16 n = %c8, dst = "out0", a = "in0", b = "in1"
    // CHECK: dfir.sfu "min" f16
    dfir.sfu "min" f16 n = %c8, dst = "out0", a = "in0", b = "in1"
    // CHECK: dfir.sfu "eq" f16
    dfir.sfu "eq" f16 n = %c8, dst = "out0", a = "in0", b = "in1"
    // CHECK: dfir.sfu "ne" f16
    dfir.sfu "ne" f16 n = %c8, dst = "out0", a = "in0", b = "in1"
    // CHECK: dfir.sfu "lt" f16
    dfir.sfu "lt" f16 n = %c8, dst = "out0", a = "in0", b = "in1"
    // CHECK: dfir.sfu "le" f16
    dfir.sfu "le" f16 n = %c8, dst = "out0", a = "in0", b = "in1"
    // CHECK: dfir.sfu "gt" f16
    dfir.sfu "gt" f16 n = %c8, dst = "out0", a = "in0", b = "in1"
    // CHECK: dfir.sfu "ge" f16
    dfir.sfu "ge" f16 n = %c8, dst = "out0", a = "in0", b = "in1"
    // CHECK: dfir.sfu "fma" f16 n = %{{.*}}, dst = "out0", a = "in0", b = "in1", c = "v2"
    dfir.sfu "fma" f16 n = %c8, dst = "out0", a = "in0", b = "in1", c = "v2"
    // CHECK: dfir.sfu "select" f16 n = %{{.*}}, dst = "out0", cond = "in2", a = "in0", b = "in1"
    dfir.sfu "select" f16 n = %c8, dst = "out0", cond = "in2", a = "in0", b = "in1"
    // CHECK: dfir.sfu "acc.add" f32 n = %{{.*}}, dst = "v2", a = "in0"
    dfir.sfu "acc.add" f32 n = %c8, dst = "v2", a = "in0"
    // CHECK: dfir.sfu "acc.max" f16
    dfir.sfu "acc.max" f16 n = %c8, dst = "v0", a = "in0"
    // CHECK: dfir.sfu "acc.min" f16
    dfir.sfu "acc.min" f16 n = %c8, dst = "v0", a = "in0"
    // CHECK: dfir.sfu "lane.add" f16 n = %{{.*}}, dst = "v3", a = "v2"
    dfir.sfu "lane.add" f16 n = %c1, dst = "v3", a = "v2"
    // CHECK: dfir.sfu "lane.max" f16
    dfir.sfu "lane.max" f16 n = %c1, dst = "out0", a = "v0"
    // CHECK: dfir.sfu "lane.min" f16
    dfir.sfu "lane.min" f16 n = %c1, dst = "v1", a = "in0"
    // CHECK: dfir.pt_mm f16 m = %{{.*}}, k = %{{.*}}, n = %{{.*}}, a = "in0", b = "in1", dst = "out0"{{$}}
    dfir.pt_mm f16 m = %c64, k = %c64, n = %c64, a = "in0", b = "in1", dst = "out0"
    // CHECK: dfir.pt_mm bf16 m = %{{.*}}, k = %{{.*}}, n = %{{.*}}, a = "in1", b = "in0", dst = "out1", acc = %{{.*}}, emit = %{{.*}}, out = f32
    dfir.pt_mm bf16 m = %c64, k = %c64, n = %c64, a = "in1", b = "in0", dst = "out1", acc = %c1, emit = %c1, out = f32
    // CHECK: dfir.pt_mm f16 m = %{{.*}}, k = %{{.*}}, n = %{{.*}}, a = "in0", b = "in1", emit = %{{.*}}{{$}}
    dfir.pt_mm f16 m = %c64, k = %c64, n = %c64, a = "in0", b = "in1", emit = %c0
  }

  // CHECK: dfir.program unit = "store", cores = all, corelet = -1 {
  dfir.program unit = "store", cores = all, corelet = -1 {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %c128 = arith.constant 128 : index
    // CHECK: dfir.st_stream n0 = %{{.*}}, fifo = "out0", addr = %{{.*}}{{$}}
    dfir.st_stream n0 = %c4, fifo = "out0", addr = %c0
    // CHECK: dfir.st_stream n0 = %{{.*}}, fifo = "out1", addr = %{{.*}}, s0 = %{{.*}}, s1 = %{{.*}}, s2 = %{{.*}}, n1 = %{{.*}}, n2 = %{{.*}}
    dfir.st_stream n0 = %c4, fifo = "out1", addr = %c0, s0 = %c128, s1 = %c0, s2 = %c0, n1 = %c4, n2 = %c4
  }
}

// Scalar control flow of the upstream dialects inside a program.
// CHECK-LABEL: dfir.job @control
dfir.job @control {
  // CHECK: dfir.program unit = "compute", cores = [0, 0], corelet = 0 {
  dfir.program unit = "compute", cores = [0, 0], corelet = 0 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    // CHECK: scf.for
    %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %c0) -> (index) {
      %lt = arith.cmpi slt, %i, %c1 : index
      // CHECK: scf.if
      scf.if %lt {
        // CHECK: dfir.sfu "exp" f16
        dfir.sfu "exp" f16 n = %i, dst = "out0", a = "in0"
      }
      %next = arith.addi %acc, %i : index
      scf.yield %next : index
    }
    // CHECK: dfir.nop cycles = %{{.*}}
    dfir.nop cycles = %r
  }
}
