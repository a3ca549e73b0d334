// Row softmax Y = softmax(X, dim=-1) of fp16 X [R, N] (N a multiple of 64):
// models/kernels/softmax.s, ported by hand to DataflowIR.
//
// Each core takes R/ncores consecutive rows, each corelet half of them, one row at a
// time in five streaming passes over the row's S = N/64 sticks:
//   1. max across sticks into v0, then across lanes into v1 (row max in every lane)
//   2. D = X - max            -> scratchpad T1
//   3. E = exp(D)             -> scratchpad T2
//   4. sum of E into v2, across lanes into v3, v4 = 1/sum
//   5. Y = E * (1/sum)        -> output rows
//
// Device layout: X stick (s, r) at X + (s*R + r)*128. Scratchpad: the core's X rows as
// [s][row] at 0, Y rows likewise at SY, then per corelet T1 and T2 (S sticks each).
// Tokens: 0 X landed; 1+l X forwarded to corelet l; 3+l D of the row written;
//         5+l E of the row written; 7+l all Y rows of corelet l written.
dfir.job @softmax {
  dfir.scalar_arg "R"
  dfir.scalar_arg "N"
  dfir.tensor_arg "X" role = input, dtype = f16, shape = ["R", "N"]
  dfir.tensor_arg "Y" role = output, dtype = f16, shape = ["R", "N"]

  dfir.program unit = "dma_in", cores = all, corelet = -1 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c6 = arith.constant 6 : index
    %c128 = arith.constant 128 : index
    %rows = dfir.symbol "X.d0"
    %cols = dfir.symbol "X.d1"
    %x = dfir.symbol "X"
    %ncores = dfir.num_cores
    %core = dfir.core_id
    %rpc = arith.divsi %rows, %ncores : index           // rows per core
    %s = arith.shrsi %cols, %c6 : index                 // sticks per row
    %memStride = arith.muli %rows, %c128 : index        // between stick columns in memory
    %spStride = arith.muli %rpc, %c128 : index          // between stick columns here
    %first = arith.muli %core, %spStride : index        // first row's offset
    %mem = arith.addi %x, %first : index
    dfir.dma_load sp = %c0, mem = %mem, bytes = %spStride, n1 = %s, ms1 = %memStride, ss1 = %spStride, done = %c0
    dfir.token_wait token = %c0
    dfir.token_send token = %c1
    dfir.token_send token = %c2
  }

  dfir.program unit = "load", cores = all, corelet = -1 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c5 = arith.constant 5 : index
    %c6 = arith.constant 6 : index
    %c128 = arith.constant 128 : index
    %rows = dfir.symbol "X.d0"
    %cols = dfir.symbol "X.d1"
    %ncores = dfir.num_cores
    %corelet = dfir.corelet_id
    %rpc = arith.divsi %rows, %ncores : index
    %s = arith.shrsi %cols, %c6 : index
    %stride = arith.muli %rpc, %c128 : index            // between a row's sticks
    %mine = arith.shrsi %rpc, %c1 : index               // rows of this corelet
    %firstRow = arith.muli %mine, %corelet : index
    %firstAddr = arith.muli %firstRow, %c128 : index
    %xy = arith.muli %stride, %s : index
    %blocks = arith.muli %xy, %c2 : index               // end of the X and Y blocks
    %rowBytes = arith.muli %s, %c128 : index
    %tBytes = arith.muli %rowBytes, %c2 : index
    %tOff = arith.muli %tBytes, %corelet : index
    %t1 = arith.addi %blocks, %tOff : index             // T1 of this corelet
    %t2 = arith.addi %t1, %rowBytes : index             // T2
    %forwarded = arith.addi %corelet, %c1 : index
    dfir.token_wait token = %forwarded
    %dWritten = arith.addi %corelet, %c3 : index
    %eWritten = arith.addi %corelet, %c5 : index
    %r = scf.for %i = %c0 to %mine step %c1 iter_args(%row = %firstAddr) -> (index) {
      dfir.ld_stream n0 = %s, fifo = "in0", addr = %row, s0 = %stride   // pass 1
      dfir.ld_stream n0 = %s, fifo = "in0", addr = %row, s0 = %stride   // pass 2
      dfir.token_wait token = %dWritten
      dfir.ld_stream n0 = %s, fifo = "in0", addr = %t1                  // pass 3
      dfir.token_wait token = %eWritten
      dfir.ld_stream n0 = %s, fifo = "in0", addr = %t2                  // pass 4
      dfir.ld_stream n0 = %s, fifo = "in0", addr = %t2                  // pass 5
      %next = arith.addi %row, %c128 : index
      scf.yield %next : index
    }
  }

  dfir.program unit = "compute", cores = all, corelet = -1 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c6 = arith.constant 6 : index
    %rows = dfir.symbol "X.d0"
    %cols = dfir.symbol "X.d1"
    %ncores = dfir.num_cores
    %rpc = arith.divsi %rows, %ncores : index
    %s = arith.shrsi %cols, %c6 : index
    %mine = arith.shrsi %rpc, %c1 : index
    scf.for %i = %c0 to %mine step %c1 {
      dfir.sfu_splat f16 dst = "v0", value = "-inf"
      dfir.sfu "acc.max" f16 n = %s, dst = "v0", a = "in0"
      dfir.sfu "lane.max" f16 n = %c1, dst = "v1", a = "v0"
      dfir.sfu "sub" f16 n = %s, dst = "out0", a = "in0", b = "v1"
      dfir.sfu "exp" f16 n = %s, dst = "out0", a = "in0"
      dfir.sfu_splat f16 dst = "v2", value = 0.000000e+00
      dfir.sfu "acc.add" f16 n = %s, dst = "v2", a = "in0"
      dfir.sfu "lane.add" f16 n = %c1, dst = "v3", a = "v2"
      dfir.sfu "recip" f16 n = %c1, dst = "v4", a = "v3"
      dfir.sfu "mul" f16 n = %s, dst = "out0", a = "in0", b = "v4"
    }
  }

  dfir.program unit = "store", cores = all, corelet = -1 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c5 = arith.constant 5 : index
    %c6 = arith.constant 6 : index
    %c7 = arith.constant 7 : index
    %c128 = arith.constant 128 : index
    %rows = dfir.symbol "X.d0"
    %cols = dfir.symbol "X.d1"
    %ncores = dfir.num_cores
    %corelet = dfir.corelet_id
    %rpc = arith.divsi %rows, %ncores : index
    %s = arith.shrsi %cols, %c6 : index
    %stride = arith.muli %rpc, %c128 : index
    %mine = arith.shrsi %rpc, %c1 : index
    %firstRow = arith.muli %mine, %corelet : index
    %firstOff = arith.muli %firstRow, %c128 : index
    %sy = arith.muli %stride, %s : index                // the Y block
    %firstY = arith.addi %firstOff, %sy : index         // first Y row
    %blocks = arith.muli %sy, %c2 : index
    %rowBytes = arith.muli %s, %c128 : index
    %tBytes = arith.muli %rowBytes, %c2 : index
    %tOff = arith.muli %tBytes, %corelet : index
    %t1 = arith.addi %blocks, %tOff : index             // T1
    %t2 = arith.addi %t1, %rowBytes : index             // T2
    %dWritten = arith.addi %corelet, %c3 : index
    %eWritten = arith.addi %corelet, %c5 : index
    %r = scf.for %i = %c0 to %mine step %c1 iter_args(%row = %firstY) -> (index) {
      dfir.st_stream n0 = %s, fifo = "out0", addr = %t1
      dfir.token_send token = %dWritten
      dfir.st_stream n0 = %s, fifo = "out0", addr = %t2
      dfir.token_send token = %eWritten
      dfir.st_stream n0 = %s, fifo = "out0", addr = %row, s0 = %stride
      %next = arith.addi %row, %c128 : index
      scf.yield %next : index
    }
    %done = arith.addi %corelet, %c7 : index
    dfir.token_send token = %done
  }

  dfir.program unit = "dma_out", cores = all, corelet = -1 {
    %c6 = arith.constant 6 : index
    %c7 = arith.constant 7 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %rows = dfir.symbol "X.d0"
    %cols = dfir.symbol "X.d1"
    %y = dfir.symbol "Y"
    %ncores = dfir.num_cores
    %core = dfir.core_id
    %rpc = arith.divsi %rows, %ncores : index
    %s = arith.shrsi %cols, %c6 : index
    %memStride = arith.muli %rows, %c128 : index
    %spStride = arith.muli %rpc, %c128 : index
    %first = arith.muli %core, %spStride : index
    %sy = arith.muli %spStride, %s : index
    %mem = arith.addi %y, %first : index
    dfir.token_wait token = %c7
    dfir.token_wait token = %c8
    dfir.dma_store sp = %sy, mem = %mem, bytes = %spStride, n1 = %s, ms1 = %memStride, ss1 = %spStride
  }
}
