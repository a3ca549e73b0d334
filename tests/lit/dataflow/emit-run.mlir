// From hand-written DataflowIR to a simulated launch: dfir-opt emits the SpyreCode
// directory, spyre-sim runs it. The worked example of docs/spyrecode.md (relu on core 0)
// takes the same 334 cycles as its assembly; the DataflowIR ports of the bundled add and
// softmax kernels (models/dataflow) run to completion on their own shapes. (That they
// compute what the assembly kernels compute, in the same cycles, is checked by
// tests/e2e/dataflow.)
// RUN: rm -rf %t && mkdir -p %t
// RUN: dfir-opt %s --emit-spyrecode=%t/relu -o /dev/null
// RUN: spyre-sim run %t/relu/job.plan --timing-only --scalar R=8 | FileCheck %s --check-prefix=RELU
// RUN: dfir-opt %S/../../../models/dataflow/add.mlir --emit-spyrecode=%t/add -o /dev/null
// RUN: spyre-sim run %t/add/job.plan --timing-only --scalar N=4096 | FileCheck %s --check-prefix=RAN
// RUN: dfir-opt %S/../../../models/dataflow/softmax.mlir --emit-spyrecode=%t/softmax -o /dev/null
// RUN: spyre-sim run %t/softmax/job.plan --timing-only --scalar R=64 --scalar N=1024 | FileCheck %s --check-prefix=RAN
// RELU: simulated cycles 334 (
// RAN: simulated cycles {{[0-9]+}} (

dfir.job @relu {
  dfir.scalar_arg "R"
  dfir.tensor_arg "X" role = input, dtype = f16, shape = ["R", 64]
  dfir.tensor_arg "Y" role = output, dtype = f16, shape = ["R", 64]
  // Tokens of core 0: 0 = X has landed, 1 = Y is in the scratchpad.
  dfir.program unit = "dma_in", cores = [0, 0], corelet = -1 {
    %c0 = arith.constant 0 : index
    %c128 = arith.constant 128 : index
    %r = dfir.symbol "R"
    %x = dfir.symbol "X"
    %bytes = arith.muli %r, %c128 : index
    dfir.dma_load sp = %c0, mem = %x, bytes = %bytes, done = %c0
  }
  dfir.program unit = "load", cores = [0, 0], corelet = 0 {
    %c0 = arith.constant 0 : index
    %r = dfir.symbol "R"
    dfir.token_wait token = %c0
    dfir.ld_stream n0 = %r, fifo = "in0", addr = %c0
  }
  dfir.program unit = "compute", cores = [0, 0], corelet = 0 {
    %r = dfir.symbol "R"
    dfir.sfu "relu" f16 n = %r, dst = "out0", a = "in0"
  }
  dfir.program unit = "store", cores = [0, 0], corelet = 0 {
    %c1 = arith.constant 1 : index
    %ybuf = arith.constant 65536 : index
    %r = dfir.symbol "R"
    dfir.st_stream n0 = %r, fifo = "out0", addr = %ybuf
    dfir.token_send token = %c1
  }
  dfir.program unit = "dma_out", cores = [0, 0], corelet = -1 {
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %ybuf = arith.constant 65536 : index
    %r = dfir.symbol "R"
    %y = dfir.symbol "Y"
    %bytes = arith.muli %r, %c128 : index
    dfir.token_wait token = %c1
    dfir.dma_store sp = %ybuf, mem = %y, bytes = %bytes
  }
}
