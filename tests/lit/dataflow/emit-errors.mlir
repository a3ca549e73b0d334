// The emitter's errors, each at the op it is about: more live values than registers,
// scalar code it does not lower, ports, tokens, cores and corelets the chip does not
// have, loops nested too deep.
// RUN: dfir-opt %s -split-input-file -verify-diagnostics --emit-spyrecode=%t -o /dev/null

dfir.job @seventeen_live_values {
  dfir.scalar_arg "N"
  dfir.program unit = "dma_in", cores = all, corelet = -1 {
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
    // expected-error @+1 {{the program needs more than 16 scalar registers here: 17 values are live at once}}
    %v16 = arith.muli %v15, %n : index
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
    dfir.nop cycles = %v16
  }
}

// -----

dfir.job @unsigned_division {
  dfir.scalar_arg "N"
  dfir.program unit = "dma_in", cores = all, corelet = -1 {
    %c4 = arith.constant 4 : index
    %n = dfir.symbol "N"
    // expected-error @+1 {{'arith.divui' is not supported in a DataflowIR program}}
    %q = arith.divui %n, %c4 : index
    dfir.nop cycles = %q
  }
}

// -----

dfir.job @unsigned_comparison {
  dfir.scalar_arg "N"
  dfir.program unit = "dma_in", cores = all, corelet = -1 {
    %c4 = arith.constant 4 : index
    %n = dfir.symbol "N"
    // expected-error @+1 {{comparison 'ult' is not supported: scalars are signed (use eq, ne, slt, sle, sgt or sge)}}
    %lt = arith.cmpi ult, %n, %c4 : index
    scf.if %lt {
      dfir.nop
    }
  }
}

// -----

dfir.job @i32_scalars {
  dfir.program unit = "dma_in", cores = all, corelet = -1 {
    // expected-error @+1 {{scalar values in a DataflowIR program are index (and i1 conditions), got 'i32'}}
    %c4 = arith.constant 4 : i32
    %lt = arith.cmpi slt, %c4, %c4 : i32
    scf.if %lt {
      dfir.nop
    }
  }
}

// -----

dfir.job @i1_arithmetic {
  dfir.scalar_arg "N"
  dfir.program unit = "dma_in", cores = all, corelet = -1 {
    %c4 = arith.constant 4 : index
    %n = dfir.symbol "N"
    %a = arith.cmpi slt, %n, %c4 : index
    %b = arith.cmpi sgt, %n, %c4 : index
    // expected-error @+1 {{'arith.addi' on i1 is not supported (only andi, ori and xori combine conditions)}}
    %c = arith.addi %a, %b : i1
    scf.if %c {
      dfir.nop
    }
  }
}

// -----

dfir.job @while_loop {
  dfir.program unit = "dma_in", cores = all, corelet = -1 {
    %false = arith.constant false
    // expected-error @+1 {{'scf.while' is not supported in a DataflowIR program}}
    scf.while : () -> () {
      scf.condition(%false)
    } do {
      scf.yield
    }
  }
}

// -----

dfir.job @zero_step {
  dfir.scalar_arg "N"
  dfir.program unit = "dma_in", cores = all, corelet = -1 {
    %c0 = arith.constant 0 : index
    %n = dfir.symbol "N"
    // expected-error @+1 {{scf.for step must be positive, got 0}}
    scf.for %i = %c0 to %n step %c0 {
      dfir.nop
    }
  }
}

// -----

dfir.job @division_by_zero {
  dfir.program unit = "dma_in", cores = all, corelet = -1 {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    // expected-error @+1 {{division by zero}}
    %q = arith.divsi %c4, %c0 : index
    dfir.nop cycles = %q
  }
}

// -----

dfir.job @seventeen_nested_loops {
  dfir.program unit = "dma_in", cores = all, corelet = -1 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %i1 = %c0 to %c1 step %c1 {
      scf.for %i2 = %c0 to %c1 step %c1 {
        scf.for %i3 = %c0 to %c1 step %c1 {
          scf.for %i4 = %c0 to %c1 step %c1 {
            scf.for %i5 = %c0 to %c1 step %c1 {
              scf.for %i6 = %c0 to %c1 step %c1 {
                scf.for %i7 = %c0 to %c1 step %c1 {
                  scf.for %i8 = %c0 to %c1 step %c1 {
                    scf.for %i9 = %c0 to %c1 step %c1 {
                      scf.for %i10 = %c0 to %c1 step %c1 {
                        scf.for %i11 = %c0 to %c1 step %c1 {
                          scf.for %i12 = %c0 to %c1 step %c1 {
                            scf.for %i13 = %c0 to %c1 step %c1 {
                              scf.for %i14 = %c0 to %c1 step %c1 {
                                scf.for %i15 = %c0 to %c1 step %c1 {
                                  scf.for %i16 = %c0 to %c1 step %c1 {
                                    // expected-error @+1 {{loops nest at most 16 deep in SpyreCode (loop/endloop)}}
                                    scf.for %i17 = %c0 to %c1 step %c1 {
                                      dfir.nop
                                    }
                                  }
                                }
                              }
                            }
                          }
                        }
                      }
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
  }
}

// -----

dfir.job @input_fifo_the_chip_lacks {
  dfir.program unit = "load", cores = all, corelet = -1 {
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{operand 'fifo' names in5, but a corelet has 4 input FIFOs (fifo.inputs_per_corelet)}}
    dfir.ld_stream n0 = %c1, fifo = "in5", addr = %c1
  }
}

// -----

dfir.job @sfu_register_the_chip_lacks {
  dfir.program unit = "compute", cores = all, corelet = -1 {
    // expected-error @+1 {{operand 'dst' names v20, but a corelet has 16 SFU registers (sfu.registers)}}
    dfir.sfu_splat f16 dst = "v20", value = 1.0
  }
}

// -----

dfir.job @token_the_chip_lacks {
  dfir.program unit = "dma_in", cores = all, corelet = -1 {
    %c70 = arith.constant 70 : index
    // expected-error @+1 {{operand 'token' is token 70, but a core has 64 tokens (sync.tokens_per_core)}}
    dfir.token_send token = %c70
  }
}

// -----

dfir.job @ring_to_a_core_the_chip_lacks {
  dfir.program unit = "ring", cores = all, corelet = -1 {
    %c0 = arith.constant 0 : index
    %c40 = arith.constant 40 : index
    // expected-error @+1 {{operand 'core' is core 40, but the chip has 32 cores (chip.cores)}}
    dfir.ring_send core = %c40, src = %c0, dst = %c0, bytes = %c0
  }
}

// -----

dfir.job @cores_the_chip_lacks {
  // expected-error @+1 {{runs on cores 0..40, but the chip has 32 cores (chip.cores)}}
  dfir.program unit = "load", cores = [0, 40], corelet = -1 {
  }
}

// -----

dfir.job @corelet_the_chip_lacks {
  // expected-error @+1 {{runs on corelet 2, but a core has 2 corelets (chip.corelets_per_core)}}
  dfir.program unit = "load", cores = all, corelet = 2 {
  }
}

// -----

// expected-error @+1 {{has no dfir.program to emit}}
dfir.job @no_programs {
  dfir.scalar_arg "N"
}
