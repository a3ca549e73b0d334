; All-reduce over the ring: core c holds partial vector P[c] (fp32, N elements); every
; core ends with the sum over all cores, written to its row Y[c].
;
; Ring algorithm with reduce as you go: the vector is cut into ncores chunks. In n-1
; reduce-scatter steps core c sends chunk (c - t) mod n clockwise to the next core, whose
; ring port adds it into its own copy (ring.send op=add); afterwards core c holds the
; full sum of chunk (c + 1) mod n. In n-1 all-gather steps the finished chunks travel on
; around the ring (op=none). Each core waits for the chunk from its predecessor before
; forwarding it.
;
; Needs: N/32 sticks divisible by ncores. Device layout: P stick (s, r) at P + (s*32+r)*128
; (32 fp32 per stick). Tokens: 0 P landed; 1 chunk from the predecessor arrived;
; 2 reduction finished.
.kernel allreduce
.input  P f32 [32, 4096]
.output Y f32 [32, 4096]
.equ STICK 128

.program dma_in cores=all
    li   r1, @P.d1
    shr  r1, r1, 5              ; S: sticks per row
    mul  r2, @P.d0, STICK       ; stride between a row's sticks
    mul  r3, core, STICK
    dma.load sp=0, mem=@P+r3, bytes=STICK, n1=r1, ms1=r2, ss1=STICK, done=0
.end

.program ring cores=all
    li   r1, @P.d1
    shr  r1, r1, 5
    div  r2, r1, ncores
    mul  r2, r2, STICK          ; bytes of a chunk
    add  r3, core, 1
    rem  r3, r3, ncores         ; next core clockwise
    sub  r4, ncores, 1          ; steps
    twait 0
    li   r5, 0                  ; t
    loop r4
      sub  r6, core, r5
      add  r6, r6, ncores
      rem  r6, r6, ncores       ; chunk (c - t) mod n
      mul  r7, r6, r2
      ring.send.f32 core=r3, src=r7, dst=r7, bytes=r2, dir=cw, op=add, token=1
      twait 1
      add  r5, r5, 1
    endloop
    li   r5, 0
    loop r4
      add  r6, core, 1
      sub  r6, r6, r5
      add  r6, r6, ncores
      rem  r6, r6, ncores       ; chunk (c + 1 - t) mod n
      mul  r7, r6, r2
      ring.send core=r3, src=r7, dst=r7, bytes=r2, dir=cw, token=1
      twait 1
      add  r5, r5, 1
    endloop
    tsend 2
.end

.program dma_out cores=all
    li   r1, @P.d1
    shr  r1, r1, 5
    mul  r2, @P.d0, STICK
    mul  r3, core, STICK
    twait 2
    dma.store sp=0, mem=@Y+r3, bytes=STICK, n1=r1, ms1=r2, ss1=STICK
.end
