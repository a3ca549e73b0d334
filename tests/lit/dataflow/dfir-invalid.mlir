// Every dfir verifier and parser error, with its located diagnostic.
// RUN: dfir-opt %s -split-input-file -verify-diagnostics

dfir.job @duplicate_name {
  // expected-note @+1 {{first declared here}}
  dfir.scalar_arg "N"
  // expected-error @+1 {{declares 'N', which the job already declares}}
  dfir.buffer "N" size = 128
}

// -----

dfir.job @foreign_op {
  // expected-error @+1 {{is not allowed directly in a dfir.job}}
  %c0 = arith.constant 0 : index
}

// -----

dfir.job @undeclared_dimension {
  // expected-error @+1 {{dimension "M" is not a dfir.scalar_arg of the job}}
  dfir.tensor_arg "A" role = input, dtype = f16, shape = [32, "M"]
}

// -----

dfir.job @same_engines {
  // expected-note @+1 {{the other program}}
  dfir.program unit = "load", cores = [0, 15], corelet = -1 {
  }
  // expected-error @+1 {{runs on engines that another 'load' program already runs on (one program per engine)}}
  dfir.program unit = "load", cores = [8, 8], corelet = 1 {
  }
}

// -----

dfir.job @disjoint_engines_are_fine {
  dfir.program unit = "load", cores = [0, 15], corelet = 0 {
  }
  dfir.program unit = "load", cores = [0, 15], corelet = 1 {
  }
  dfir.program unit = "load", cores = [16, 31], corelet = -1 {
  }
  dfir.program unit = "store", cores = all, corelet = -1 {
  }
}

// -----

dfir.job @bad_dtype {
  // expected-error @+1 {{dtype must be f16, bf16, f32 or i32, got 'f64'}}
  dfir.tensor_arg "A" role = input, dtype = f64, shape = [64]
}

// -----

dfir.job @bad_dimension {
  // expected-error @+1 {{dimensions must be positive, got 0}}
  dfir.tensor_arg "A" role = input, dtype = f16, shape = [0, 64]
}

// -----

dfir.job @bad_layout {
  // expected-error @+1 {{layout must be "stick" or "row_major", got "tiled"}}
  dfir.tensor_arg "A" role = input, dtype = f16, shape = [64], layout = "tiled"
}

// -----

dfir.job @bad_name {
  // expected-error @+1 {{name "A.x" must be a plain identifier}}
  dfir.tensor_arg "A.x" role = input, dtype = f16, shape = [64]
}

// -----

dfir.job @bad_scalar_name {
  // expected-error @+1 {{name "2N" must be a plain identifier}}
  dfir.scalar_arg "2N"
}

// -----

dfir.job @bad_scalar_multiple {
  // expected-error @+1 {{multiple_of must be positive, got 0}}
  dfir.scalar_arg "n" multiple_of 0
}

// -----

dfir.job @bad_scalar_range {
  // expected-error @+1 {{min 9 is greater than max 8}}
  dfir.scalar_arg "n" min 9 max 8
}

// -----

dfir.job @bad_buffer {
  // expected-error @+1 {{size must be positive, got 0}}
  dfir.buffer "tmp" size = 0
}

// -----

dfir.job @bad_unit {
  // expected-error @+1 {{unknown unit "dma" (expected dma_in, dma_out, ring, load, compute or store)}}
  dfir.program unit = "dma", cores = all, corelet = -1 {
  }
}

// -----

dfir.job @per_core_unit_corelet {
  // expected-error @+1 {{the dma_in unit exists once per core: corelet must be -1, got 0}}
  dfir.program unit = "dma_in", cores = all, corelet = 0 {
  }
}

// -----

dfir.job @bad_core_range {
  // expected-error @+1 {{bad core range [4, 2]}}
  dfir.program unit = "load", cores = [4, 2], corelet = -1 {
  }
}

// -----

dfir.job @bad_corelet {
  // expected-error @+1 {{corelet must be -1 (every corelet) or 0..127, got -2}}
  dfir.program unit = "load", cores = all, corelet = -2 {
  }
}

// -----

dfir.job @unknown_symbol {
  dfir.program unit = "dma_in", cores = all, corelet = -1 {
    // expected-error @+1 {{"Z" names no tensor argument ("A"), dimension ("A.d1"), scalar or buffer of the job}}
    %z = dfir.symbol "Z"
  }
}

// -----

dfir.job @dimension_out_of_range {
  dfir.tensor_arg "A" role = input, dtype = f16, shape = [32, 64]
  dfir.program unit = "dma_in", cores = all, corelet = -1 {
    // expected-error @+1 {{"A.d2": tensor 'A' has 2 dimension(s)}}
    %d = dfir.symbol "A.d2"
  }
}

// -----

dfir.job @dimension_of_a_scalar {
  dfir.scalar_arg "Q"
  dfir.program unit = "dma_in", cores = all, corelet = -1 {
    // expected-error @+1 {{"Q.d0": 'Q' is not a dfir.tensor_arg of the job}}
    %d = dfir.symbol "Q.d0"
  }
}

// -----

dfir.job @wrong_unit {
  dfir.tensor_arg "A" role = input, dtype = f16, shape = [64]
  dfir.program unit = "load", cores = all, corelet = -1 {
    %c0 = arith.constant 0 : index
    %a = dfir.symbol "A"
    // expected-error @+1 {{(dma.load) cannot run in a 'load' program; it runs on: dma_in}}
    dfir.dma_load sp = %c0, mem = %a, bytes = %c0
  }
}

// -----

dfir.job @sfu_outside_compute {
  dfir.program unit = "dma_in", cores = all, corelet = -1 {
    %c1 = arith.constant 1 : index
    scf.for %i = %c1 to %c1 step %c1 {
      // expected-error @+1 {{(sfu.exp.f16) cannot run in a 'dma_in' program; it runs on: compute}}
      dfir.sfu "exp" f16 n = %c1, dst = "out0", a = "in0"
    }
  }
}

// -----

dfir.job @ld_stream_to_output {
  dfir.program unit = "load", cores = all, corelet = -1 {
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{operand 'fifo' of ld.stream must be an input FIFO ("in0"..), got "out0"}}
    dfir.ld_stream n0 = %c1, fifo = "out0", addr = %c1
  }
}

// -----

dfir.job @ld_stream_same_lane_twice {
  dfir.program unit = "load", cores = all, corelet = -1 {
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{reads FIFO "in1" twice}}
    dfir.ld_stream n0 = %c1, fifo = "in1", addr = %c1, fifo_b = "in1"
  }
}

// -----

dfir.job @st_stream_from_input {
  dfir.program unit = "store", cores = all, corelet = -1 {
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{operand 'fifo' of st.stream must be an output FIFO ("out0"..), got "in0"}}
    dfir.st_stream n0 = %c1, fifo = "in0", addr = %c1
  }
}

// -----

dfir.job @sfu_writes_input {
  dfir.program unit = "compute", cores = all, corelet = -1 {
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{operand 'dst' of sfu.add.f16 must be an output FIFO ("out0"..) or an SFU register ("v0"..), got "in0"}}
    dfir.sfu "add" f16 n = %c1, dst = "in0", a = "in1", b = "in2"
  }
}

// -----

dfir.job @sfu_reads_output {
  dfir.program unit = "compute", cores = all, corelet = -1 {
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{operand 'b' of sfu.mul.f16 must be an input FIFO ("in0"..) or an SFU register ("v0"..), got "out1"}}
    dfir.sfu "mul" f16 n = %c1, dst = "out0", a = "in0", b = "out1"
  }
}

// -----

dfir.job @accumulate_into_fifo {
  dfir.program unit = "compute", cores = all, corelet = -1 {
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{operand 'dst' of sfu.acc.add.f16 must be an SFU register ("v0"..), got "out0"}}
    dfir.sfu "acc.add" f16 n = %c1, dst = "out0", a = "in0"
  }
}

// -----

dfir.job @sfu_extra_port {
  dfir.program unit = "compute", cores = all, corelet = -1 {
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{sfu.exp has no operand 'b'}}
    dfir.sfu "exp" f16 n = %c1, dst = "out0", a = "in0", b = "in1"
  }
}

// -----

dfir.job @sfu_missing_port {
  dfir.program unit = "compute", cores = all, corelet = -1 {
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{sfu.add needs operand 'b' (operands: n, dst, a, b)}}
    dfir.sfu "add" f16 n = %c1, dst = "out0", a = "in0"
  }
}

// -----

dfir.job @sfu_unknown_kind {
  dfir.program unit = "compute", cores = all, corelet = -1 {
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{unknown SFU operation "softmax" (expected one of mov, neg, abs}}
    dfir.sfu "softmax" f16 n = %c1, dst = "out0", a = "in0"
  }
}

// -----

dfir.job @sfu_splat_is_its_own_op {
  dfir.program unit = "compute", cores = all, corelet = -1 {
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{unknown SFU operation "splat"}}
    dfir.sfu "splat" f16 n = %c1, dst = "v0", a = "in0"
  }
}

// -----

dfir.job @sfu_dtype {
  dfir.program unit = "compute", cores = all, corelet = -1 {
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{sfu.exp does not take element type 'i32' (allowed: f16, bf16, f32)}}
    dfir.sfu "exp" i32 n = %c1, dst = "out0", a = "in0"
  }
}

// -----

dfir.job @splat_into_fifo {
  dfir.program unit = "compute", cores = all, corelet = -1 {
    // expected-error @+1 {{operand 'dst' of sfu.splat.f16 must be an SFU register ("v0"..), got "out0"}}
    dfir.sfu_splat f16 dst = "out0", value = 1.0
  }
}

// -----

dfir.job @splat_value {
  dfir.program unit = "compute", cores = all, corelet = -1 {
    // expected-error @+1 {{expected a number, "inf", "-inf" or "nan", got "big"}}
    dfir.sfu_splat f16 dst = "v0", value = "big"
  }
}

// -----

dfir.job @pt_mm_dtype {
  dfir.program unit = "compute", cores = all, corelet = -1 {
    %c64 = arith.constant 64 : index
    // expected-error @+1 {{pt.mm does not take element type 'f32' (allowed: f16, bf16)}}
    dfir.pt_mm f32 m = %c64, k = %c64, n = %c64, a = "in0", b = "in1", dst = "out0"
  }
}

// -----

dfir.job @pt_mm_same_fifo {
  dfir.program unit = "compute", cores = all, corelet = -1 {
    %c64 = arith.constant 64 : index
    // expected-error @+1 {{reads FIFO "in0" twice}}
    dfir.pt_mm f16 m = %c64, k = %c64, n = %c64, a = "in0", b = "in0", dst = "out0"
  }
}

// -----

dfir.job @pt_mm_emit_without_dst {
  dfir.program unit = "compute", cores = all, corelet = -1 {
    %c64 = arith.constant 64 : index
    // expected-error @+1 {{emits its result (emit is not the constant 0) but has no dst output FIFO}}
    dfir.pt_mm f16 m = %c64, k = %c64, n = %c64, a = "in0", b = "in1"
  }
}

// -----

dfir.job @pt_mm_weights_from_register {
  dfir.program unit = "compute", cores = all, corelet = -1 {
    %c64 = arith.constant 64 : index
    // expected-error @+1 {{operand 'b' of pt.mm.f16 must be an input FIFO ("in0"..), got "v0"}}
    dfir.pt_mm f16 m = %c64, k = %c64, n = %c64, a = "in0", b = "v0", dst = "out0"
  }
}

// -----

dfir.job @ring_direction {
  dfir.program unit = "ring", cores = all, corelet = -1 {
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{operand 'dir': expected one of short, cw, ccw, got 'up'}}
    dfir.ring_send core = %c1, src = %c1, dst = %c1, bytes = %c1, dir = up
  }
}

// -----

dfir.job @ring_op {
  dfir.program unit = "ring", cores = all, corelet = -1 {
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{operand 'op': expected one of none, add, max, min, got 'mul'}}
    dfir.ring_send core = %c1, src = %c1, dst = %c1, bytes = %c1, op = "mul"
  }
}

// -----

dfir.job @negative_token {
  dfir.program unit = "load", cores = all, corelet = -1 {
    %m1 = arith.constant -1 : index
    // expected-error @+1 {{operand 'token' is a token id (0..), got -1}}
    dfir.token_wait token = %m1
  }
}

// -----

dfir.job @negative_done {
  dfir.program unit = "dma_in", cores = all, corelet = -1 {
    %c0 = arith.constant 0 : index
    %m2 = arith.constant -2 : index
    // expected-error @+1 {{operand 'done' is a token id (-1 for none, or 0..), got -2}}
    dfir.dma_load sp = %c0, mem = %c0, bytes = %c0, done = %m2
  }
}

// -----

dfir.job @unknown_operand {
  dfir.program unit = "dma_in", cores = all, corelet = -1 {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{dma.load has no operand 'src' (operands: sp, mem, bytes, n1, ms1, ss1, n2, ms2, ss2, n3, ms3, ss3, done)}}
    dfir.dma_load sp = %c0, src = %c0, bytes = %c0
  }
}

// -----

dfir.job @operand_twice {
  dfir.program unit = "dma_in", cores = all, corelet = -1 {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{operand 'sp' given twice}}
    dfir.dma_load sp = %c0, mem = %c0, sp = %c0, bytes = %c0
  }
}

// -----

dfir.job @missing_operand {
  dfir.program unit = "dma_out", cores = all, corelet = -1 {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{dma.store needs operand 'bytes'}}
    dfir.dma_store sp = %c0, mem = %c0
  }
}

// -----

dfir.job @malformed_port {
  dfir.program unit = "load", cores = all, corelet = -1 {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{operand 'fifo': expected a port ("in0".., "out0".., "v0".. or "none"), got "in"}}
    dfir.ld_stream n0 = %c0, fifo = "in", addr = %c0
  }
}

// -----

dfir.job @generic_form_bad_port {
  dfir.program unit = "store", cores = all, corelet = -1 {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{operand 'fifo' must be a port ("in0".., "out0".., "v0".. or "none"), got "q7"}}
    "dfir.st_stream"(%c0, %c0) <{fifo = "q7", operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0>}> : (index, index) -> ()
  }
}

// -----

dfir.job @generic_form_wrong_groups {
  dfir.program unit = "load", cores = all, corelet = -1 {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{'dfir.token_wait' op requires a single operand}}
    "dfir.token_wait"(%c0, %c0) : (index, index) -> ()
  }
}

// -----

dfir.job @ld_scalar_dtype {
  dfir.program unit = "load", cores = all, corelet = -1 {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{ld.scalar does not take element type 'f16' (allowed: i32)}}
    %v = dfir.ld_scalar f16 addr = %c0
  }
}

// -----

dfir.job @ld_scalar_without_result {
  dfir.program unit = "load", cores = all, corelet = -1 {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{'dfir.ld_scalar' op requires one result}}
    "dfir.ld_scalar"(%c0) <{dtype = i32}> : (index) -> ()
  }
}

// -----

dfir.job @sfu_cvt_from_an_unknown_type {
  dfir.program unit = "compute", cores = all, corelet = -1 {
    %c8 = arith.constant 8 : index
    // expected-error @+1 {{operand 'from': expected one of f16, bf16, f32, i32, got 'f64'}}
    dfir.sfu_cvt f32 n = %c8, dst = "out0", a = "in0", from = f64
  }
}

// -----

dfir.job @sfu_splat_int_into_a_fifo {
  dfir.program unit = "compute", cores = all, corelet = -1 {
    %c8 = arith.constant 8 : index
    // expected-error @+1 {{an SFU register}}
    dfir.sfu_splat_int i32 dst = "out0", value = %c8
  }
}
