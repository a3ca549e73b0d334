//===- KtdpDialect.cpp - the ktdp dialect ---------------------------------===//
//
// Part of chipless. Registers the ops, types and attributes of ktdp.
//
//===----------------------------------------------------------------------===//

#include "ktir/Dialect/Ktdp/KtdpOps.h"

using namespace mlir;
using namespace mlir::ktdp;

#include "ktir/Dialect/Ktdp/KtdpDialect.cpp.inc"

void KtdpDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "ktir/Dialect/Ktdp/KtdpOps.cpp.inc"
      >();
  registerTypes();
  registerAttributes();
}
