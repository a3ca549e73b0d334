//===- TransposedAccess.h - a matmul reading a transposed B in place --*- C++ -*-===//
//
// Part of chipless. A matmul whose B is a transposed view (K^T for attention, W^T of a
// linear layer) gets a restickify kernel first (Kernels.cpp). Reading B in place instead
// costs the same DMA runs (one per element) for every tile that reads it, but saves the
// restickify's store and the matmul's reload of whole sticks: cheaper when few tiles read
// each block of B. The cost model decides, per restickify feeding only a matmul's B.
//
//===----------------------------------------------------------------------===//

#ifndef FRONTEND_TRANSPOSEDACCESS_H
#define FRONTEND_TRANSPOSEDACCESS_H

#include "Kernels.h"
#include "support/spyre_arch.h"

namespace chipless::frontend {

/// Drops each restickify whose only reader is a matmul's B where the matmul reading the
/// transposed view in place is estimated more than 2% cheaper than both kernels; the
/// kernels are renumbered.
void readTransposedInPlace(KernelPlan& plan, const SpyreArch& arch);

} // namespace chipless::frontend

#endif // FRONTEND_TRANSPOSEDACCESS_H
