#include "sim/spyre/pt_math.h"

namespace chipless::sim::spyre {

// Four non-zero values at a time update each accumulator four times in a row: the same
// roundings as four passes, a quarter of the accumulator traffic. Compiled for AVX2 and for
// baseline x86-64 (chosen when the program loads); never with FMA, which would round
// a*w+acc once instead of twice.
__attribute__((target_clones("avx2", "default"))) void
macStick(float* accRow, const float* a, const float* w, int64_t eps, int64_t n, int64_t ldw) {
  int64_t kk = 0;
  for (; kk + 4 <= eps; kk += 4) {
    const float a0 = a[kk], a1 = a[kk + 1], a2 = a[kk + 2], a3 = a[kk + 3];
    const float* w0 = w + kk * ldw;
    if (a0 != 0.0f && a1 != 0.0f && a2 != 0.0f && a3 != 0.0f) {
      const float *w1 = w0 + ldw, *w2 = w1 + ldw, *w3 = w2 + ldw;
      for (int64_t j = 0; j < n; ++j) {
        float acc = accRow[j];
        acc += a0 * w0[j];
        acc += a1 * w1[j];
        acc += a2 * w2[j];
        acc += a3 * w3[j];
        accRow[j] = acc;
      }
      continue;
    }
    for (int64_t q = 0; q < 4; ++q) {
      const float av = a[kk + q];
      if (av == 0.0f) continue;
      const float* wr = w0 + q * ldw;
      for (int64_t j = 0; j < n; ++j) accRow[j] += av * wr[j];
    }
  }
  for (; kk < eps; ++kk) {
    const float av = a[kk];
    if (av == 0.0f) continue;
    const float* wr = w + kk * ldw;
    for (int64_t j = 0; j < n; ++j) accRow[j] += av * wr[j];
  }
}

} // namespace chipless::sim::spyre
