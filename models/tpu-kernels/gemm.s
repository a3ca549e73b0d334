; C = A @ B: bf16 A [M, K] times bf16 B [K, N], fp32 C [M, N], on the MXUs (128 x 128 tiles).
;
; Any shape: in HBM, A and C are padded to multiples of 8 rows and 128 columns, B to
; multiples of 128 in both dimensions (tiles 8x128 and 128x128), with zeros, so the kernel
; works on whole 128 x 128 tiles. M is processed in blocks of MB rows (MB must divide M
; padded to 8, else the kernel stops with trap 1, whose error says so; MB = M streams every
; row through each fold, the fewest folds).
;
; Weight-stationary: each fold loads a 128 x 128 tile of B (k-slice, column tile) into an
; MXU and streams the block's MB rows of the A slice through it, accumulating fp32 results
; in a VMEM tile of C. A group is G = nmxu column tiles, one per MXU, computed together over
; the KT slices of K; the groups are shared out over the TensorCores. The steps (group, k)
; of a block are pipelined: while the folds of step s run, the B tiles of step s+1 load
; into the other B slot, the A slice s+1 streams in (first group only), and the C tiles of
; the previous group are written back from the other C set, one tile per step and after
; the prefetch, so that the large write-backs never hold up the next step's B tiles (HBM
; serves requests first come, first served).
;
; VMEM: A block (MB rows x K bytes*2) at 0; B slots at BBUF (2 x G tiles of 32 KiB); C sets
; at CBUF (2 x G tiles of MB x 512 bytes). Semaphores: 0 A slice landed; 1 / 2 B tiles of
; slot 0 / 1 landed; 3 / 4 folds of slot 0 / 1 done; 5 / 6 C set 0 / 1 written back (G
; tokens each: set free).
;
; Registers: s0 MB, s1 A row bytes, s2 KT, s3 NT, s4 B row bytes, s5 C row bytes, s6 G,
; s9 steps per block, s10 C tile bytes in VMEM, s11 BBUF, s12 CBUF, s13 / s14 A / C offset
; of the block in HBM, s15 step, s16 k, s17 group ordinal, s18 group, s19 its tiles, s20 B
; slot, s21 C set, s22 the previous step's tiles; the pending write-back: s7 its semaphore,
; s8 the tokens its group lacks (G - tiles), s23 next tile's C offset in HBM, s24 its VMEM
; address, s25 tiles left; s26..s31 temporaries.
.kernel gemm
.scalar M
.scalar K
.scalar N
.scalar MB
.input  A bf16 [M, K] tile=8x128
.input  B bf16 [K, N] tile=128x128
.output C f32  [M, N] tile=8x128
.trap 1 "scalar MB (@MB) must be at least 1 and divide M padded to a multiple of 8 (@A.p0)"
.equ BTILE 32768                          ; bytes of a 128 x 128 bf16 tile of B

.program cores=all
    li    s0, @MB
    shl   s1, @A.p1, 1                    ; A row bytes
    shr   s2, @A.p1, 7                    ; KT: 128-deep slices of K
    shr   s3, @B.p1, 7                    ; NT: 128-wide column tiles
    shl   s4, @B.p1, 1                    ; B row bytes
    shl   s5, @B.p1, 2                    ; C row bytes
    li    s6, nmxu                        ; G: tiles per group, one per MXU
    add   s7, s3, s6
    sub   s7, s7, 1
    div   s7, s7, s6                      ; groups
    sub   s8, s7, core
    add   s8, s8, ncores
    sub   s8, s8, 1
    div   s8, s8, ncores                  ; this core's groups: core, core+ncores, ...
    mul   s9, s8, s2                      ; steps per block
    shl   s10, s0, 9                      ; C tile bytes in VMEM: MB x 128 x 4
    mul   s11, s0, s1                     ; BBUF: after the A block
    shl   s12, s6, 16
    add   s12, s12, s11                   ; CBUF: after 2 x G B tiles
    sem.signal 5, count=s6 | sem.signal 6, count=s6
    li    s13, 0 | li s14, 0
    blt   s0, 1, bad_mb
    rem   s26, @A.p0, s0
    bne   s26, 0, bad_mb                  ; MB must divide M (padded to 8)
    div   s26, @A.p0, s0                  ; blocks of MB rows
    beq   s9, 0, done                     ; no group for this core
    loop  s26
      ; prologue: A slice 0 and the B tiles of step 0 (group core, k 0)
      dma.in dst=0, src=@A+s13, bytes=256, rows=s0, src_stride=s1, dst_stride=s1, sem=0
      li    s15, 0 | li s16, 0
      li    s17, 0 | li s18, core
      li    s25, 0                        ; no write-back pending
      mul   s27, s18, s6
      sub   s19, s3, s27
      min   s19, s19, s6
      shl   s28, s27, 8 | li s29, s11
      loop  s19
        dma.in dst=s29, src=@B+s28, bytes=256, rows=128, src_stride=s4, dst_stride=256, sem=1
        add   s28, s28, 256 | add s29, s29, BTILE
      endloop
      loop  s9
        ; ---- this step's folds: one per tile of the group ----
        and   s20, s15, 1 | and s21, s17, 1
        add   s26, s20, 1
        sem.wait s26, count=s19           ; its B tiles landed
        bne   s17, 0, have_a
        sem.wait 0                        ; its A slice landed (first group of the block)
have_a:
        bne   s16, 0, c_free
        add   s26, s21, 5
        sem.wait s26, count=s6            ; its C set was written back
c_free:
        shl   s27, s16, 8 | mul s28, s20, s6      ; lhs: A slice k; slot x G
        shl   s28, s28, 15 | mul s29, s21, s6     ; B slot offset; set x G
        add   s28, s28, s11 | mul s29, s29, s10   ; rhs of tile 0; C set offset
        add   s29, s29, s12 | min s30, s16, 1     ; out of tile 0; accumulate after k 0
        add   s26, s20, 3 | li s31, 0             ; fold semaphore; MXU
        loop  s19
          mxu.matmul.bf16 mxu=s31, lhs=s27, rows=s0, k=128, lhs_stride=s1, rhs=s28, n=128, out=s29, acc=s30, sem=s26 | add s31, s31, 1 | add s29, s29, s10
        endloop | add s28, s28, BTILE
        ; ---- the previous step's folds are done: its B slot is free, and if it ended its
        ;      group, that group's C tiles can be written back ----
        beq   s15, 0, advance
        xor   s26, s20, 1
        add   s26, s26, 3
        sem.wait s26, count=s22
        bne   s16, 0, advance
        sub   s23, s18, ncores | xor s27, s21, 1  ; the previous group; its C set
        mul   s23, s23, s6 | add s7, s27, 5
        shl   s23, s23, 9 | mul s24, s27, s6      ; its first column of C; set x G
        add   s23, s23, s14 | mul s24, s24, s10
        add   s24, s24, s12 | li s25, s22         ; its first tile in VMEM; tiles to write
        sub   s8, s6, s22
advance:
        ; ---- advance; prefetch the next step's B tiles (and A slice, first group) ----
        li    s22, s19 | li s31, 0                ; s31: whether this step ends its group
        add   s16, s16, 1 | add s15, s15, 1
        blt   s16, s2, same_group
        li    s16, 0 | li s31, 1
        add   s17, s17, 1 | add s18, s18, ncores
        mul   s27, s18, s6
        sub   s19, s3, s27
        min   s19, s19, s6
same_group:
        bge   s15, s9, write_back
        mul   s27, s16, s4 | mul s28, s18, s6
        shl   s27, s27, 7 | shl s28, s28, 8       ; rows k x 128 of B; columns of the group
        add   s27, s27, s28 | and s29, s15, 1
        mul   s28, s29, s6 | add s30, s29, 1
        shl   s28, s28, 15
        add   s28, s28, s11
        loop  s19
          dma.in dst=s28, src=@B+s27, bytes=256, rows=128, src_stride=s4, dst_stride=256, sem=s30
          add   s27, s27, 256 | add s28, s28, BTILE
        endloop
        bne   s17, 0, write_back
        shl   s27, s16, 8
        add   s28, s27, s13
        dma.in dst=s27, src=@A+s28, bytes=256, rows=s0, src_stride=s1, dst_stride=s1, sem=0
write_back:
        ; ---- one C tile of the pending write-back per step; all of it when a group ends
        ;      (its C set is waited for when the group after next starts) ----
        beq   s25, 0, step_done
        li    s30, 1
        beq   s31, 0, one_tile
        li    s30, s25
one_tile:
        loop  s30
          dma.out dst=@C+s23, src=s24, bytes=512, rows=s0, src_stride=512, dst_stride=s5, sem=s7
          add   s23, s23, 512 | add s24, s24, s10
        endloop | sub s25, s25, 1
        bne   s25, 0, step_done
        sem.signal s7, count=s8                   ; tokens of the tiles a short group lacks
step_done:
      endloop
      ; ---- end of the block: the last step's folds; write back the rest ----
      sub   s27, s15, 1
      and   s27, s27, 1
      add   s27, s27, 3
      sem.wait s27, count=s22
      loop  s25                                   ; what is left of the previous group
        dma.out dst=@C+s23, src=s24, bytes=512, rows=s0, src_stride=512, dst_stride=s5, sem=s7
        add   s23, s23, 512 | add s24, s24, s10
      endloop
      beq   s25, 0, last_group
      sem.signal s7, count=s8
last_group:
      sub   s23, s18, ncores | add s7, s21, 5     ; the last group (the state has moved past it)
      mul   s23, s23, s6 | mul s24, s21, s6
      shl   s23, s23, 9 | mul s24, s24, s10
      add   s23, s23, s14 | add s24, s24, s12
      loop  s22
        dma.out dst=@C+s23, src=s24, bytes=512, rows=s0, src_stride=512, dst_stride=s5, sem=s7
        add   s23, s23, 512 | add s24, s24, s10
      endloop
      sub   s8, s6, s22
      sem.signal s7, count=s8
      sem.wait 5, count=s6 | sem.wait 6, count=s6 ; every write-back of the block done
      sem.signal 5, count=s6 | sem.signal 6, count=s6
      mul   s27, s0, s1 | mul s28, s0, s5
      add   s13, s13, s27 | add s14, s14, s28
    endloop
done:
    fence
    jmp   end
bad_mb:
    trap  1
end:
.end
