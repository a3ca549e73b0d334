//===- GraphRewrites.h - a graph into the forms kernels take ----*- C++ -*-===//
//
// Part of chipless. Before grouping, the front end rewrites ops that no kernel takes as they
// are into ops that kernels do take: a reduction along the dimension before the last (the
// columns of each matrix: column sums, a global average pool over positions) becomes a
// permutation that makes that dimension the last, then a reduction along the last.
//
//===----------------------------------------------------------------------===//

#ifndef FRONTEND_GRAPHREWRITES_H
#define FRONTEND_GRAPHREWRITES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace chipless::frontend {

/// Rewrites `f` in place (see above).
void rewriteForKernels(mlir::func::FuncOp f);

} // namespace chipless::frontend

#endif // FRONTEND_GRAPHREWRITES_H
