#pragma once
/// A TPU kernel that only streams HBM, for the tests of shares' contention (the unit tests of
/// DeviceShare and the device server's --share tests): 2 MiB in through four DMAs at once —
/// more than one TensorCore's part of the HBM bandwidth when both cores stream — and out
/// again: Y = X.

namespace chipless::test {

inline constexpr const char* kTpuStreamKernel = R"(
.kernel stream
.input  X f32 [4096, 128] tile=8x128
.output Y f32 [4096, 128] tile=8x128
.program cores=0
    li s2, 524288 | li s5, 1048576
    add s3, @X, s2 | add s4, @X, s5
    li s6, 1572864
    add s7, @X, s6
    dma.in dst=0, src=@X, bytes=524288, sem=0
    dma.in dst=s2, src=s3, bytes=524288, sem=0
    dma.in dst=s5, src=s4, bytes=524288, sem=0
    dma.in dst=s6, src=s7, bytes=524288, sem=0
    sem.wait 0, count=4
    dma.out dst=@Y, src=0, bytes=2097152, sem=1
    sem.wait 1
.end
)";

} // namespace chipless::test
