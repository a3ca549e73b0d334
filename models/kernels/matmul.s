; C = A @ B for fp16 A [M, K], B [K, N], fp32 accumulation on the PT arrays, fp16 C.
;
; C is divided over the cores as (N/64 column blocks) x (row groups): core c computes the
; 64-column block nb = c mod (N/64) of rows [g*RC, (g+1)*RC), g = c div (N/64), RC = M /
; (ncores / (N/64)). Its two corelets take half of those rows each. For every 64-deep
; slice of K the load unit streams the 64x64 slice of B (weights) and the corelet's rows
; of A into the PT array, which accumulates in fp32 and emits C rows after the last slice.
;
; Needs: K and N multiples of 64, ncores a multiple of N/64, M a multiple of
; 2 * ncores / (N/64); A rows and B's column block must fit the scratchpad.
;
; Device layout (stick layout): A stick (kb, m) at A + (kb*M + m)*128; B stick (nb, k) at
; B + (nb*K + k)*128; C stick (nb, m) at C + (nb*M + m)*128.
; Scratchpad: A rows [kb][RC] at 0, B block [k] at SB = (K/64)*RC*128, C rows at SC.
; Tokens: 0+l A half of corelet l landed; 2 B landed; 3+l B forwarded to corelet l;
;         5+l corelet l's C rows are in the scratchpad.
.kernel matmul
.scalar M
.scalar K
.scalar N
.input  A f16 [M, K]
.input  B f16 [K, N]
.output C f16 [M, N]
.equ STICK 128

.program dma_in cores=all
    li   r1, @B.d1
    shr  r1, r1, 6              ; NB: column blocks
    div  r2, ncores, r1         ; row groups
    div  r3, @A.d0, r2          ; RC: rows per core
    rem  r4, core, r1           ; nb
    div  r5, core, r1           ; g
    shr  r6, r3, 1              ; RH: rows per corelet
    li   r7, @A.d1
    shr  r7, r7, 6              ; KB: 64-deep slices of K
    mul  r8, @A.d0, STICK       ; A stride between slices
    mul  r9, r3, STICK          ; A rows bytes in the scratchpad per slice
    mul  r10, r5, r3
    mul  r10, r10, STICK        ; byte offset of row g*RC
    mul  r11, r6, STICK         ; bytes of a corelet's rows
    dma.load sp=0, mem=@A+r10, bytes=r11, n1=r7, ms1=r8, ss1=r9, done=0
    add  r12, r10, r11
    dma.load sp=r11, mem=@A+r12, bytes=r11, n1=r7, ms1=r8, ss1=r9, done=1
    mul  r13, r9, r7            ; SB
    mul  r14, r4, @A.d1
    mul  r14, r14, STICK        ; B column block offset
    mul  r15, @A.d1, STICK      ; bytes of the block
    dma.load sp=r13, mem=@B+r14, bytes=r15, done=2
    twait 2
    tsend 3
    tsend 4
.end

.program load cores=all corelet=all
    li   r1, @B.d1
    shr  r1, r1, 6
    div  r2, ncores, r1
    div  r3, @A.d0, r2          ; RC
    shr  r6, r3, 1              ; RH
    li   r7, @A.d1
    shr  r7, r7, 6              ; KB
    mul  r9, r3, STICK
    mul  r13, r9, r7            ; SB
    mul  r10, r6, STICK
    mul  r10, r10, corelet      ; this corelet's first A row in a slice
    twait corelet
    add  r14, corelet, 3
    twait r14
    loop r7
      ld.stream n0=64, fifo=in1, addr=r13       ; B slice: 64 rows of the block
      ld.stream n0=r6, fifo=in0, addr=r10       ; A rows of this corelet
      add  r13, r13, 64*STICK
      add  r10, r10, r9
    endloop
.end

.program compute cores=all corelet=all
    li   r1, @B.d1
    shr  r1, r1, 6
    div  r2, ncores, r1
    div  r3, @A.d0, r2
    shr  r6, r3, 1              ; RH
    li   r7, @A.d1
    shr  r7, r7, 6              ; KB
    sub  r8, r7, 1              ; last slice
    li   r4, 0                  ; slice index
    loop r7
      min  r5, r4, 1            ; accumulate after the first slice
      li   r9, 0
      bne  r4, r8, not_last
      li   r9, 1                ; emit C after the last slice
not_last:
      pt.mm.f16 m=r6, k=64, n=64, a=in0, b=in1, dst=out0, acc=r5, emit=r9
      add  r4, r4, 1
    endloop
.end

.program store cores=all corelet=all
    li   r1, @B.d1
    shr  r1, r1, 6
    div  r2, ncores, r1
    div  r3, @A.d0, r2
    shr  r6, r3, 1
    li   r7, @A.d1
    shr  r7, r7, 6
    mul  r9, r3, STICK
    mul  r13, r9, r7            ; SB
    mul  r14, @A.d1, STICK
    add  r13, r13, r14          ; SC
    mul  r10, r6, STICK
    mul  r10, r10, corelet
    add  r13, r13, r10
    st.stream n0=r6, fifo=out0, addr=r13
    add  r15, corelet, 5
    tsend r15
.end

.program dma_out cores=all
    li   r1, @B.d1
    shr  r1, r1, 6
    div  r2, ncores, r1
    div  r3, @A.d0, r2
    rem  r4, core, r1
    div  r5, core, r1
    li   r7, @A.d1
    shr  r7, r7, 6
    mul  r9, r3, STICK
    mul  r13, r9, r7
    mul  r14, @A.d1, STICK
    add  r13, r13, r14          ; SC
    mul  r10, r4, @A.d0
    mul  r11, r5, r3
    add  r10, r10, r11
    mul  r10, r10, STICK        ; C + (nb*M + g*RC)*128
    twait 5
    twait 6
    dma.store sp=r13, mem=@C+r10, bytes=r9
.end
