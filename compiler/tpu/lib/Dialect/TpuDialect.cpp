//===- TpuDialect.cpp - the tpu dialect of the TPU compiler ---------------===//
//
// Part of chipless. See TpuOps.td.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/Builders.h"
#include "tpuc/Dialect/TpuOps.h"

using namespace mlir;
using namespace chipless::tpuc;

#include "tpuc/Dialect/TpuDialect.cpp.inc"

void TpuDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "tpuc/Dialect/TpuOps.cpp.inc"
      >();
}

YieldOp KernelOp::getYield() {
  return cast<YieldOp>(getBody().front().getTerminator());
}

LogicalResult KernelOp::verify() {
  if (getBody().empty()) return emitOpError("has no body");
  auto yield = dyn_cast<YieldOp>(getBody().front().getTerminator());
  if (!yield) return emitOpError("body must end in tpu.yield");
  if (yield.getValues().getTypes() != getResultTypes())
    return emitOpError("yields ") << yield.getValues().size()
                                  << " value(s) whose types differ from the kernel's results";
  return success();
}

#define GET_OP_CLASSES
#include "tpuc/Dialect/TpuOps.cpp.inc"
