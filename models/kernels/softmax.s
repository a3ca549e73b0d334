; Row softmax Y = softmax(X, dim=-1) of fp16 X [R, N] (N a multiple of 64).
;
; Each core takes R/ncores consecutive rows, each corelet half of them, one row at a
; time in five streaming passes over the row's S = N/64 sticks:
;   1. max across sticks into v0, then across lanes into v1 (row max in every lane)
;   2. D = X - max            -> scratchpad T1
;   3. E = exp(D)             -> scratchpad T2
;   4. sum of E into v2, across lanes into v3, v4 = 1/sum
;   5. Y = E * (1/sum)        -> output rows
;
; Device layout: X stick (s, r) at X + (s*R + r)*128. Scratchpad: the core's X rows as
; [s][row] at 0, Y rows likewise at SY, then per corelet T1 and T2 (S sticks each).
; Tokens: 0 X landed; 1+l X forwarded to corelet l; 3+l D of the row written;
;         5+l E of the row written; 7+l all Y rows of corelet l written.
.kernel softmax
.scalar R
.scalar N
.input  X f16 [R, N]
.output Y f16 [R, N]
.equ STICK 128

.program dma_in cores=all
    div  r1, @X.d0, ncores      ; RPC: rows per core
    li   r2, @X.d1
    shr  r2, r2, 6              ; S
    mul  r3, @X.d0, STICK       ; memory stride between stick columns
    mul  r4, r1, STICK          ; scratchpad stride between stick columns
    mul  r5, core, r4           ; first row's offset
    dma.load sp=0, mem=@X+r5, bytes=r4, n1=r2, ms1=r3, ss1=r4, done=0
    twait 0
    tsend 1
    tsend 2
.end

.program load cores=all corelet=all
    div  r1, @X.d0, ncores
    li   r2, @X.d1
    shr  r2, r2, 6              ; S
    mul  r4, r1, STICK          ; stride between a row's sticks
    shr  r5, r1, 1              ; rows of this corelet
    mul  r6, r5, corelet
    mul  r6, r6, STICK          ; first row address
    mul  r7, r4, r2
    mul  r7, r7, 2              ; end of X and Y blocks
    mul  r8, r2, STICK          ; bytes of a row
    mul  r9, r8, 2
    mul  r9, r9, corelet
    add  r7, r7, r9             ; T1 of this corelet
    add  r9, r7, r8             ; T2
    add  r10, corelet, 1
    twait r10
    add  r11, corelet, 3
    add  r12, corelet, 5
    loop r5
      ld.stream n0=r2, fifo=in0, addr=r6, s0=r4   ; pass 1
      ld.stream n0=r2, fifo=in0, addr=r6, s0=r4   ; pass 2
      twait r11
      ld.stream n0=r2, fifo=in0, addr=r7          ; pass 3
      twait r12
      ld.stream n0=r2, fifo=in0, addr=r9          ; pass 4
      ld.stream n0=r2, fifo=in0, addr=r9          ; pass 5
      add  r6, r6, STICK
    endloop
.end

.program compute cores=all corelet=all
    div  r1, @X.d0, ncores
    li   r2, @X.d1
    shr  r2, r2, 6
    shr  r5, r1, 1
    loop r5
      sfu.splat.f16 v0, -inf
      sfu.acc.max.f16 r2, v0, in0
      sfu.lane.max.f16 1, v1, v0
      sfu.sub.f16 r2, out0, in0, v1
      sfu.exp.f16 r2, out0, in0
      sfu.splat.f16 v2, 0
      sfu.acc.add.f16 r2, v2, in0
      sfu.lane.add.f16 1, v3, v2
      sfu.recip.f16 1, v4, v3
      sfu.mul.f16 r2, out0, in0, v4
    endloop
.end

.program store cores=all corelet=all
    div  r1, @X.d0, ncores
    li   r2, @X.d1
    shr  r2, r2, 6
    mul  r4, r1, STICK
    shr  r5, r1, 1
    mul  r6, r5, corelet
    mul  r6, r6, STICK
    mul  r13, r4, r2            ; SY
    add  r6, r6, r13            ; first Y row
    mul  r7, r13, 2
    mul  r8, r2, STICK
    mul  r9, r8, 2
    mul  r9, r9, corelet
    add  r7, r7, r9             ; T1
    add  r9, r7, r8             ; T2
    add  r11, corelet, 3
    add  r12, corelet, 5
    loop r5
      st.stream n0=r2, fifo=out0, addr=r7
      tsend r11
      st.stream n0=r2, fifo=out0, addr=r9
      tsend r12
      st.stream n0=r2, fifo=out0, addr=r6, s0=r4
      add  r6, r6, STICK
    endloop
    add  r10, corelet, 7
    tsend r10
.end

.program dma_out cores=all
    div  r1, @X.d0, ncores
    li   r2, @X.d1
    shr  r2, r2, 6
    mul  r3, @X.d0, STICK
    mul  r4, r1, STICK
    mul  r5, core, r4
    mul  r6, r4, r2             ; SY
    twait 7
    twait 8
    dma.store sp=r6, mem=@Y+r5, bytes=r4, n1=r2, ms1=r3, ss1=r4
.end
