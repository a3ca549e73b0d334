//===- DfirDialect.cpp - the dfir (DataflowIR) dialect --------------------===//
//
// Part of chipless. Registers the ops of DataflowIR.
//
//===----------------------------------------------------------------------===//

#include "dataflow/Dialect/Dfir/DfirOps.h"

using namespace mlir;
using namespace mlir::dfir;

#include "dataflow/Dialect/Dfir/DfirDialect.cpp.inc"

void DfirDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dataflow/Dialect/Dfir/DfirOps.cpp.inc"
      >();
}
