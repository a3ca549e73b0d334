#pragma once
/// The arithmetic of the PT array (the corelet's matmul unit), apart from its timing.
#include <cstdint>

namespace chipless::sim::spyre {

/// The array's work for one stick of A, eps values of one row against the eps rows of the
/// stationary weights (row-major, rows `ldw` apart, n columns used): accRow[j] += a[kk] *
/// w[kk * ldw + j] for j < n and every kk whose a[kk] is not zero, in kk order, each
/// product and each sum rounded to fp32, so every sum is formed as the array forms it. A
/// product of zero is skipped, not added (an accumulator of -0 stays -0, an infinite weight
/// times zero adds no NaN).
void macStick(float* accRow, const float* a, const float* w, int64_t eps, int64_t n, int64_t ldw);

} // namespace chipless::sim::spyre
