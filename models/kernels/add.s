; Elementwise C = A + B on fp16 tensors of shape [R, N] over every core of the chip.
;
; The tensors are treated as flat runs of sticks in the device (stick) layout: each core
; takes an equal contiguous share of P = R * N/64 / ncores sticks, and each of its two
; corelets half of every chunk. Chunks of up to 1024 sticks (128 KB per operand) are
; double-buffered: dma_in fills one buffer while the corelets work on the other, and
; dma_out drains the result buffers behind them.
;
; Needs: N a multiple of 64; P even and, above 1024, a multiple of 1024.
;
; Scratchpad (C = chunk sticks, 128 B each): A[2] at 0, B[2] at 2*C*128, C[2] at 4*C*128.
; Tokens of each core (l = corelet):
;   0+l  A half of corelet l landed        2+l  B half of corelet l landed
;   4+l  corelet l has read its input half 6+l  corelet l has written its output half
;   8+l  output half of corelet l is free again
.kernel add
.scalar N
.input  A f16 [32, N]
.input  B f16 [32, N]
.output C f16 [32, N]
.equ STICK 128
.equ MAXCHUNK 1024

.program dma_in cores=all
    li   r1, @A.d1
    shr  r1, r1, 6              ; sticks per row
    mul  r1, r1, @A.d0          ; sticks in the tensor
    div  r1, r1, ncores         ; P: sticks of this core
    min  r2, r1, MAXCHUNK       ; C: sticks per chunk
    div  r3, r1, r2             ; chunks
    shr  r4, r2, 1              ; H: sticks per corelet half
    mul  r8, r4, STICK          ; bytes of a half
    mul  r9, r2, STICK          ; bytes of a chunk
    mul  r6, r1, STICK
    mul  r6, r6, core           ; this core's first byte in A and B
    tsend 4
    tsend 4
    tsend 5
    tsend 5
    li   r11, 0                 ; current buffer offset: 0 or r9
    loop r3
      twait 4
      mul  r12, r9, 2
      add  r12, r12, r11        ; B buffer
      dma.load sp=r11, mem=@A+r6, bytes=r8, done=0
      dma.load sp=r12, mem=@B+r6, bytes=r8, done=2
      twait 5
      add  r13, r6, r8
      add  r14, r11, r8
      add  r15, r12, r8
      dma.load sp=r14, mem=@A+r13, bytes=r8, done=1
      dma.load sp=r15, mem=@B+r13, bytes=r8, done=3
      add  r6, r6, r9
      sub  r11, r9, r11
    endloop
.end

.program load cores=all corelet=all
    li   r1, @A.d1
    shr  r1, r1, 6
    mul  r1, r1, @A.d0
    div  r1, r1, ncores
    min  r2, r1, MAXCHUNK
    div  r3, r1, r2
    shr  r4, r2, 1
    mul  r8, r4, STICK
    mul  r9, r2, STICK
    mul  r6, r8, corelet        ; this corelet's half within a chunk
    add  r13, corelet, 4        ; "input read" token
    li   r11, 0
    loop r3
      twait corelet             ; A half landed
      add  r14, corelet, 2
      twait r14                 ; B half landed
      add  r7, r11, r6
      mul  r12, r9, 2
      add  r12, r12, r7
      ld.stream n0=r4, fifo=in0, addr=r7, fifo_b=in1, addr_b=r12
      tsend r13
      sub  r11, r9, r11
    endloop
.end

.program compute cores=all corelet=all
    li   r1, @A.d1
    shr  r1, r1, 6
    mul  r1, r1, @A.d0
    div  r1, r1, ncores
    shr  r1, r1, 1              ; sticks of this corelet
    sfu.add.f16 r1, out0, in0, in1
.end

.program store cores=all corelet=all
    li   r1, @A.d1
    shr  r1, r1, 6
    mul  r1, r1, @A.d0
    div  r1, r1, ncores
    min  r2, r1, MAXCHUNK
    div  r3, r1, r2
    shr  r4, r2, 1
    mul  r8, r4, STICK
    mul  r9, r2, STICK
    mul  r6, r8, corelet
    add  r13, corelet, 8        ; "output half free" token
    add  r14, corelet, 6        ; "output half written" token
    tsend r13
    tsend r13
    li   r11, 0
    loop r3
      twait r13
      mul  r12, r9, 4
      add  r12, r12, r11
      add  r12, r12, r6
      st.stream n0=r4, fifo=out0, addr=r12
      tsend r14
      sub  r11, r9, r11
    endloop
.end

.program dma_out cores=all
    li   r1, @A.d1
    shr  r1, r1, 6
    mul  r1, r1, @A.d0
    div  r1, r1, ncores
    min  r2, r1, MAXCHUNK
    div  r3, r1, r2
    shr  r4, r2, 1
    mul  r8, r4, STICK
    mul  r9, r2, STICK
    mul  r6, r1, STICK
    mul  r6, r6, core
    li   r11, 0
    loop r3
      mul  r12, r9, 4
      add  r12, r12, r11        ; C buffer
      twait 6
      dma.store sp=r12, mem=@C+r6, bytes=r8, done=8
      twait 7
      add  r13, r6, r8
      add  r14, r12, r8
      dma.store sp=r14, mem=@C+r13, bytes=r8, done=9
      add  r6, r6, r9
      sub  r11, r9, r11
    endloop
.end
