; C = A + B for f32 tensors [R, N], an HBM-bound element-wise kernel.
;
; The tensors live in HBM with their rows padded to multiples of 8 and their columns to
; multiples of 128 (tile 8x128), so each is a whole number of 4 KiB vector registers. Those
; registers are divided evenly over the TensorCores. Each core streams its share through
; VMEM in chunks of CH bytes per operand, double-buffered: while the VPU adds chunk i (8
; registers at a time: two loads, an add, a store), the DMA engines bring in chunk i+1 and
; write out chunk i-1. Element-wise work is fast next to HBM, so the kernel runs at HBM
; bandwidth: 3 x bytes of A / (hbm.bandwidth_gb_s / chip.clock_ghz) cycles.
;
; VMEM: A slots at 0 and CH, B slots at 2CH and 3CH, C slots at 4CH and 5CH.
; Semaphores: 0 / 1 A and B of slot 0 / 1 landed (two tokens a chunk);
;             2 / 3 C of slot 0 / 1 written back (slot free again).
.kernel add
.scalar R
.scalar N
.input  A f32 [R, N] tile=8x128
.input  B f32 [R, N] tile=8x128
.output C f32 [R, N] tile=8x128
.equ CH   262144                  ; chunk bytes per operand: 64 vector registers
.equ BOFF 2*CH
.equ COFF 4*CH
.equ VREG 4096                    ; bytes of a vector register (8 x 128 f32)
.equ GROUP 8*VREG                 ; bytes the VPU handles per step

.program cores=all
    mul   s2, @A.p0, @A.p1
    shl   s2, s2, 2                       ; bytes of A (padded)
    shr   s3, s2, 12                      ; its vector registers
    add   s4, s3, ncores
    sub   s4, s4, 1
    div   s4, s4, ncores                  ; registers per core, rounded up
    mul   s5, s4, core
    min   s5, s5, s3                      ; this core's first register
    add   s6, s5, s4
    min   s6, s6, s3                      ; one past its last
    sub   s7, s6, s5
    shl   s0, s7, 12                      ; this core's bytes
    shl   s1, s5, 12                      ; their offset in A, B and C
    add   s8, s0, CH-1
    div   s8, s8, CH                      ; chunks
    sem.signal 2 | sem.signal 3           ; both C slots start free
    min   s11, s0, CH
    dma.in dst=0, src=@A+s1, bytes=s11, sem=0
    dma.in dst=BOFF, src=@B+s1, bytes=s11, sem=0
    li    s9, 0                           ; chunk index
    loop  s8
      and   s12, s9, 1 | mul s15, s9, CH          ; slot; this chunk's offset in the share
      mul   s13, s12, CH | sub s11, s0, s15       ; slot offset; bytes left
      min   s11, s11, CH                          ; this chunk's bytes
      ; bring in the next chunk while this one is added
      add   s16, s15, CH | xor s18, s12, 1        ; next chunk's offset; the other slot
      sub   s17, s0, s16 | mul s19, s18, CH       ; bytes after this chunk; other slot's offset
      bge   s16, s0, compute                      ; this is the last chunk
      min   s17, s17, CH | add s22, s1, s16
      dma.in dst=s19, src=@A+s22, bytes=s17, sem=s18
      add   s23, s19, BOFF
      dma.in dst=s23, src=@B+s22, bytes=s17, sem=s18
compute:
      sem.wait s12, count=2                       ; A and B of this chunk landed
      add   s24, s12, 2
      sem.wait s24                                ; its C slot was written back
      shr   s25, s11, 12                          ; registers in the chunk
      add   s26, s25, 7
      shr   s26, s26, 3                           ; steps of 8 registers
      li    s27, s13 | add s28, s13, BOFF
      add   s29, s13, COFF
      loop  s26
        min   s30, s25, 8 | sub s25, s25, 8
        vld.f32 v0, s27, n=s30
        vld.f32 v8, s28, n=s30 | add s27, s27, GROUP
        vadd.f32 v0, v0, v8, n=s30 | add s28, s28, GROUP
        vst.f32 v0, s29, n=s30 | add s29, s29, GROUP
      endloop
      add   s31, s13, COFF | add s22, s1, s15
      dma.out dst=@C+s22, src=s31, bytes=s11, sem=s24
      add   s9, s9, 1
    endloop
    fence
.end
