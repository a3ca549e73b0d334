//===- KernelBuilder.h - one kernel of the graph as KTIR --------*- C++ -*-===//
//
// Part of chipless. Writes one kernel group, with its division, as a KTIR module: a
// function with one address argument per tensor it reads or writes (`%x_ptr`), a `grid`,
// global memory views of those tensors, per-tile access tiles, loads, the kernel's ops on
// the tile's block (the graph's ops with their tensors cut to the block), and stores. The
// ops keep the graph's locations, so an error the KTIR compiler reports names the graph's
// line.
//
//===----------------------------------------------------------------------===//

#ifndef FRONTEND_KERNELBUILDER_H
#define FRONTEND_KERNELBUILDER_H

#include "Division.h"
#include "Kernels.h"
#include "Residency.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>

namespace chipless::frontend {

/// The device-memory name of every tensor kernels exchange (graph arguments and results by
/// their names, intermediates t1, t2, ...), by the tensor whose memory it is.
using MemoryNames = llvm::DenseMap<mlir::Value, std::string>;

/// Builds the KTIR module of kernel `k` divided as `d`; the tensors of `resident` it writes
/// or reads stay in its tiles' own scratchpads. Emits an error at the graph op that cannot
/// be written and fails.
mlir::FailureOr<mlir::OwningOpRef<mlir::ModuleOp>>
buildKernel(const KernelGroup& k, const Division& d, const KernelPlan& plan,
            const MemoryNames& names, const ResidentTensors& resident, mlir::MLIRContext* context);

} // namespace chipless::frontend

#endif // FRONTEND_KERNELBUILDER_H
