; Y = the sum over all chips of X: every chip holds its block of X (a row of L f32 values)
; and ends with the element-wise sum of all the chips' blocks in its block of Y.
;
; One collective does it: ici.allreduce runs the ring algorithm on each chip's ICI engine,
; reduce-scatter then all-gather, 2(N-1) steps that each move L/N values to the next chip
; of the ring over one ICI link. It takes about 2(N-1)/N x 4L / link bandwidth.
;
; Run with --chips N; X and Y are split over the chips (host shape [N, L]).
.kernel allreduce
.scalar L
.input  X f32 [1, L] placement=split
.output Y f32 [1, L] placement=split

.program cores=0
    shl   s1, @X.p1, 2                    ; bytes of one chip's block
    ici.allreduce.f32 src=@X, dst=@Y, bytes=s1, sem=0
    sem.wait 0
.end
