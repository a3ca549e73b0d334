// Elementwise C = A + B on fp16 tensors of shape [32, N] over every core of the chip:
// models/kernels/add.s, ported by hand to DataflowIR. `dfir-opt add.mlir
// --emit-spyrecode=DIR` emits it; tests/e2e/dataflow checks that it computes what the
// assembly computes, in the same number of cycles.
//
// Each core takes an equal contiguous share of P = 32 * N/64 / ncores sticks, each of its
// two corelets half of every chunk. Chunks of up to 1024 sticks (128 KB per operand) are
// double-buffered: dma_in fills one buffer while the corelets work on the other, and
// dma_out drains the result buffers behind them. Needs N a multiple of 64; P even and,
// above 1024, a multiple of 1024.
//
// Scratchpad (C = chunk sticks): A[2] at 0, B[2] at 2*C*128, C[2] at 4*C*128.
// Tokens of each core (l = corelet):
//   0+l  A half of corelet l landed        2+l  B half of corelet l landed
//   4+l  corelet l has read its input half 6+l  corelet l has written its output half
//   8+l  output half of corelet l is free again
dfir.job @add {
  dfir.scalar_arg "N"
  dfir.tensor_arg "A" role = input, dtype = f16, shape = [32, "N"]
  dfir.tensor_arg "B" role = input, dtype = f16, shape = [32, "N"]
  dfir.tensor_arg "C" role = output, dtype = f16, shape = [32, "N"]

  dfir.program unit = "dma_in", cores = all, corelet = -1 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c5 = arith.constant 5 : index
    %c6 = arith.constant 6 : index
    %c128 = arith.constant 128 : index
    %c1024 = arith.constant 1024 : index
    %cols = dfir.symbol "A.d1"
    %rows = dfir.symbol "A.d0"
    %ncores = dfir.num_cores
    %core = dfir.core_id
    %a = dfir.symbol "A"
    %b = dfir.symbol "B"
    %rowSticks = arith.shrsi %cols, %c6 : index
    %sticks = arith.muli %rowSticks, %rows : index
    %p = arith.divsi %sticks, %ncores : index           // sticks of this core
    %chunk = arith.minsi %p, %c1024 : index              // sticks per chunk
    %chunks = arith.divsi %p, %chunk : index
    %half = arith.shrsi %chunk, %c1 : index              // sticks per corelet half
    %halfBytes = arith.muli %half, %c128 : index
    %chunkBytes = arith.muli %chunk, %c128 : index
    %coreBytes = arith.muli %p, %c128 : index
    %first = arith.muli %coreBytes, %core : index        // this core's first byte in A and B
    dfir.token_send token = %c4
    dfir.token_send token = %c4
    dfir.token_send token = %c5
    dfir.token_send token = %c5
    %r:2 = scf.for %i = %c0 to %chunks step %c1 iter_args(%off = %first, %buf = %c0) -> (index, index) {
      dfir.token_wait token = %c4
      %twice = arith.muli %chunkBytes, %c2 : index
      %bbuf = arith.addi %twice, %buf : index            // B buffer
      %memA = arith.addi %a, %off : index
      %memB = arith.addi %b, %off : index
      dfir.dma_load sp = %buf, mem = %memA, bytes = %halfBytes, done = %c0
      dfir.dma_load sp = %bbuf, mem = %memB, bytes = %halfBytes, done = %c2
      dfir.token_wait token = %c5
      %off2 = arith.addi %off, %halfBytes : index
      %spA2 = arith.addi %buf, %halfBytes : index
      %spB2 = arith.addi %bbuf, %halfBytes : index
      %memA2 = arith.addi %a, %off2 : index
      %memB2 = arith.addi %b, %off2 : index
      dfir.dma_load sp = %spA2, mem = %memA2, bytes = %halfBytes, done = %c1
      dfir.dma_load sp = %spB2, mem = %memB2, bytes = %halfBytes, done = %c3
      %next = arith.addi %off, %chunkBytes : index
      %other = arith.subi %chunkBytes, %buf : index      // the other buffer
      scf.yield %next, %other : index, index
    }
  }

  dfir.program unit = "load", cores = all, corelet = -1 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c6 = arith.constant 6 : index
    %c128 = arith.constant 128 : index
    %c1024 = arith.constant 1024 : index
    %cols = dfir.symbol "A.d1"
    %rows = dfir.symbol "A.d0"
    %ncores = dfir.num_cores
    %corelet = dfir.corelet_id
    %rowSticks = arith.shrsi %cols, %c6 : index
    %sticks = arith.muli %rowSticks, %rows : index
    %p = arith.divsi %sticks, %ncores : index
    %chunk = arith.minsi %p, %c1024 : index
    %chunks = arith.divsi %p, %chunk : index
    %half = arith.shrsi %chunk, %c1 : index
    %halfBytes = arith.muli %half, %c128 : index
    %chunkBytes = arith.muli %chunk, %c128 : index
    %mine = arith.muli %halfBytes, %corelet : index      // this corelet's half of a chunk
    %read = arith.addi %corelet, %c4 : index             // "input read" token
    %landedB = arith.addi %corelet, %c2 : index
    %r = scf.for %i = %c0 to %chunks step %c1 iter_args(%buf = %c0) -> (index) {
      dfir.token_wait token = %corelet                   // A half landed
      dfir.token_wait token = %landedB                   // B half landed
      %addrA = arith.addi %buf, %mine : index
      %twice = arith.muli %chunkBytes, %c2 : index
      %addrB = arith.addi %twice, %addrA : index
      dfir.ld_stream n0 = %half, fifo = "in0", addr = %addrA, fifo_b = "in1", addr_b = %addrB
      dfir.token_send token = %read
      %other = arith.subi %chunkBytes, %buf : index
      scf.yield %other : index
    }
  }

  dfir.program unit = "compute", cores = all, corelet = -1 {
    %c1 = arith.constant 1 : index
    %c6 = arith.constant 6 : index
    %cols = dfir.symbol "A.d1"
    %rows = dfir.symbol "A.d0"
    %ncores = dfir.num_cores
    %rowSticks = arith.shrsi %cols, %c6 : index
    %sticks = arith.muli %rowSticks, %rows : index
    %p = arith.divsi %sticks, %ncores : index
    %n = arith.shrsi %p, %c1 : index                     // sticks of this corelet
    dfir.sfu "add" f16 n = %n, dst = "out0", a = "in0", b = "in1"
  }

  dfir.program unit = "store", cores = all, corelet = -1 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c6 = arith.constant 6 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %c1024 = arith.constant 1024 : index
    %cols = dfir.symbol "A.d1"
    %rows = dfir.symbol "A.d0"
    %ncores = dfir.num_cores
    %corelet = dfir.corelet_id
    %rowSticks = arith.shrsi %cols, %c6 : index
    %sticks = arith.muli %rowSticks, %rows : index
    %p = arith.divsi %sticks, %ncores : index
    %chunk = arith.minsi %p, %c1024 : index
    %chunks = arith.divsi %p, %chunk : index
    %half = arith.shrsi %chunk, %c1 : index
    %halfBytes = arith.muli %half, %c128 : index
    %chunkBytes = arith.muli %chunk, %c128 : index
    %mine = arith.muli %halfBytes, %corelet : index
    %free = arith.addi %corelet, %c8 : index             // "output half free" token
    %written = arith.addi %corelet, %c6 : index          // "output half written" token
    dfir.token_send token = %free
    dfir.token_send token = %free
    %r = scf.for %i = %c0 to %chunks step %c1 iter_args(%buf = %c0) -> (index) {
      dfir.token_wait token = %free
      %four = arith.muli %chunkBytes, %c4 : index
      %out = arith.addi %four, %buf : index
      %addr = arith.addi %out, %mine : index
      dfir.st_stream n0 = %half, fifo = "out0", addr = %addr
      dfir.token_send token = %written
      %other = arith.subi %chunkBytes, %buf : index
      scf.yield %other : index
    }
  }

  dfir.program unit = "dma_out", cores = all, corelet = -1 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c6 = arith.constant 6 : index
    %c7 = arith.constant 7 : index
    %c8 = arith.constant 8 : index
    %c9 = arith.constant 9 : index
    %c128 = arith.constant 128 : index
    %c1024 = arith.constant 1024 : index
    %cols = dfir.symbol "A.d1"
    %rows = dfir.symbol "A.d0"
    %ncores = dfir.num_cores
    %core = dfir.core_id
    %cmem = dfir.symbol "C"
    %rowSticks = arith.shrsi %cols, %c6 : index
    %sticks = arith.muli %rowSticks, %rows : index
    %p = arith.divsi %sticks, %ncores : index
    %chunk = arith.minsi %p, %c1024 : index
    %chunks = arith.divsi %p, %chunk : index
    %half = arith.shrsi %chunk, %c1 : index
    %halfBytes = arith.muli %half, %c128 : index
    %chunkBytes = arith.muli %chunk, %c128 : index
    %coreBytes = arith.muli %p, %c128 : index
    %first = arith.muli %coreBytes, %core : index
    %r:2 = scf.for %i = %c0 to %chunks step %c1 iter_args(%off = %first, %buf = %c0) -> (index, index) {
      %four = arith.muli %chunkBytes, %c4 : index
      %out = arith.addi %four, %buf : index              // C buffer
      %mem = arith.addi %cmem, %off : index
      dfir.token_wait token = %c6
      dfir.dma_store sp = %out, mem = %mem, bytes = %halfBytes, done = %c8
      dfir.token_wait token = %c7
      %off2 = arith.addi %off, %halfBytes : index
      %out2 = arith.addi %out, %halfBytes : index
      %mem2 = arith.addi %cmem, %off2 : index
      dfir.dma_store sp = %out2, mem = %mem2, bytes = %halfBytes, done = %c9
      %next = arith.addi %off, %chunkBytes : index
      %other = arith.subi %chunkBytes, %buf : index
      scf.yield %next, %other : index, index
    }
  }
}
