//===- CoreSpan.h - the device memory one tile addresses ---------*- C++ -*-===//
//
// Part of chipless. A core addresses at most `dram.core_span_bytes` of device memory in one
// contiguous span (torch-spyre docs: 256 MB). A division whose tile would read or write a
// tensor over a wider span is not one the chip can run: the front end drops it.
//
//===----------------------------------------------------------------------===//

#ifndef FRONTEND_CORESPAN_H
#define FRONTEND_CORESPAN_H

#include "Division.h"
#include "Kernels.h"

namespace chipless::frontend {

/// The widest span (bytes from a tile's lowest address in a tensor to its highest) one tile
/// of division `d` of kernel `k` touches, and the tensor.
struct TileSpan {
  int64_t bytes = 0;
  mlir::Value tensor;
};
TileSpan widestTileSpan(const KernelGroup& k, const Division& d, const KernelPlan& plan);

/// The span, in elements, of a box of `box` elements per dimension of `v` (placed where
/// the view's factors allow; a block of a dimension of several factors as in blockFits).
int64_t boxSpanElements(const TensorView& v, const std::vector<int64_t>& box);

} // namespace chipless::frontend

#endif // FRONTEND_CORESPAN_H
