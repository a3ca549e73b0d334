//===- GraphRewrites.h - a graph into the forms kernels take ----*- C++ -*-===//
//
// Part of chipless. Before grouping, the front end rewrites ops that no kernel takes as they
// are into ops that kernels do take: a reduction along the dimension before the last (the
// columns of each matrix: column sums, a global average pool over positions) becomes a
// permutation that makes that dimension the last, then a reduction along the last; a 2-D
// convolution becomes an unfold of the input's windows into rows and a matmul by the
// filters, as torch-spyre lowers it; a matmul of f32 matrices becomes three f16 matmuls of
// their high and low parts (the PT array takes f16).
//
//===----------------------------------------------------------------------===//

#ifndef FRONTEND_GRAPHREWRITES_H
#define FRONTEND_GRAPHREWRITES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace chipless::frontend {

/// Marks the linalg.generic that unfolds a convolution's windows (a kernel of its own: DMA
/// copies of boxes of the input).
constexpr const char* kUnfoldAttr = "frontend.unfold";
/// The strides and dilations of an unfold's convolution ([h, w]).
constexpr const char* kWindowStridesAttr = "frontend.strides";
constexpr const char* kWindowDilationsAttr = "frontend.dilations";

/// Rewrites `f` in place (see above).
void rewriteForKernels(mlir::func::FuncOp f);

} // namespace chipless::frontend

#endif // FRONTEND_GRAPHREWRITES_H
