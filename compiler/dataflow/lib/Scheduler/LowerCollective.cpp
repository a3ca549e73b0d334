//===- LowerCollective.cpp - inter-tile exchanges on the ring -------------===//
//
// Part of chipless. See Lowering.h.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"
#include "ktir/Dialect/Ktdp/KtdpOps.h"

using namespace mlir;

namespace chipless::sched {

LogicalResult Lowering::lowerProduce(Operation* op) {
  return op->emitOpError("is not supported by the Dataflow Scheduler yet");
}

LogicalResult Lowering::lowerReduceDelivery(Operation* op) {
  return op->emitOpError("is not supported by the Dataflow Scheduler yet");
}

} // namespace chipless::sched
