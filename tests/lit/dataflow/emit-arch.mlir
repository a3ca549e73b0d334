// The emitter checks programs against the chip of --arch/--set: the same job that fits
// the default 32-core chip is rejected on 8 cores with 2 input FIFOs per corelet (every
// program's errors are reported, not only the first).
// RUN: dfir-opt %s --emit-spyrecode=%t -o /dev/null
// RUN: dfir-opt %s -verify-diagnostics --emit-spyrecode=%t --set chip.cores=8 --set fifo.inputs_per_corelet=2 -o /dev/null
// RUN: not dfir-opt %s --emit-spyrecode=%t --set chip.nonsense=1 -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADSET
// BADSET: error: {{.*}}chip.nonsense

dfir.job @arch {
  // expected-error @+1 {{runs on cores 0..15, but the chip has 8 cores (chip.cores)}}
  dfir.program unit = "load", cores = [0, 15], corelet = -1 {
  }
  dfir.program unit = "compute", cores = all, corelet = -1 {
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{operand 'a' names in3, but a corelet has 2 input FIFOs (fifo.inputs_per_corelet)}}
    dfir.sfu "mov" f16 n = %c1, dst = "out0", a = "in3"
  }
}
