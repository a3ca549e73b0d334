//===- Stages.h - the stages of the Dataflow Scheduler ---------*- C++ -*-===//
//
// Part of chipless. Private to the Dataflow Scheduler: the stages Scheduler.cpp runs on
// every core's schedule after lowering, and the writer of the DataflowIR job.
//
//===----------------------------------------------------------------------===//

#ifndef DATAFLOW_LIB_SCHEDULER_STAGES_H
#define DATAFLOW_LIB_SCHEDULER_STAGES_H

#include "Kernel.h"
#include "Schedule.h"
#include "mlir/IR/BuiltinOps.h"
#include "support/spyre_arch.h"

#include <string>
#include <vector>

namespace chipless::sched {

/// Gives every buffer of `s` a scratchpad address within `budget` bytes (Allocate.cpp).
mlir::LogicalResult allocateScratchpad(CoreSchedule& s, int64_t budget, int64_t stick,
                                       mlir::MLIRContext* ctx);

/// Derives the token handshakes of `s` from the conflicts between its steps (Sync.cpp);
/// `reservedTokens` ids at the top are kept for the ring protocols.
mlir::LogicalResult synchronize(CoreSchedule& s, int tokensPerCore, int reservedTokens,
                                mlir::MLIRContext* ctx);

/// Writes the dfir.job `name` of the kernel: its arguments and, for every core, one
/// dfir.program per engine that has work (EmitDfir.cpp).
mlir::OwningOpRef<mlir::ModuleOp> writeJob(mlir::MLIRContext* ctx, const std::string& name,
                                           const KernelArgs& args,
                                           const std::vector<CoreSchedule>& cores);

} // namespace chipless::sched

#endif // DATAFLOW_LIB_SCHEDULER_STAGES_H
