#pragma once
/// What one MXU fold computes (the numbers; timing is in tensor_core_mxu.cpp): a rows x k block of
/// activations times a k x n block of stationary weights, summed over k in fp32 (int32 for
/// int8) and written to, or added to, a rows x n block of fp32 (int32) results. fp32 inputs
/// are split into bf16 pieces and multiplied in 1, 3 or 6 passes as the MXU does
/// (numerics.fp32_matmul_precision).
#include "support/dtype.h"

#include <cstdint>

namespace chipless::sim::tpu {

struct FoldOperands {
  const uint8_t* lhs; ///< row r of the activations at lhs + r * lhsStride
  int64_t lhsStride;  ///< bytes
  const uint8_t* rhs; ///< row i (of k) of the weights at rhs + i * rhsStride
  int64_t rhsStride;  ///< bytes
  uint8_t* out;       ///< row r of the results at out + r * outStride (4-byte elements)
  int64_t outStride;  ///< bytes
  int64_t rows, k, n; ///< T, contraction depth, output width
  DType type;         ///< BF16, F32 or I8
  bool accumulate;    ///< add to the results already there
  int fp32Passes;     ///< 1, 3 or 6 (F32 only)
  /// mxu.matmul.nt: the weights are stored transposed, weight (i, j) is element i of the row
  /// at rhs + j * rhsStride (n rows of k elements).
  bool transposeRhs = false;
};

/// Performs the fold on host memory. Results are little-endian f32 (i32 for I8).
void foldMatmul(const FoldOperands& f);

} // namespace chipless::sim::tpu
