//===- DfirRegistration.cpp - everything DataflowIR files use -------------===//
//
// Part of chipless. See DfirRegistration.h.
//
//===----------------------------------------------------------------------===//

#include "dataflow/DfirRegistration.h"

#include "dataflow/Dialect/Dfir/DfirOps.h"
#include "dataflow/Emit/EmitSpyreCode.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Transforms/Passes.h"

void chipless::dataflow::registerDfirDialects(mlir::DialectRegistry& registry) {
  registry.insert<mlir::dfir::DfirDialect, mlir::arith::ArithDialect, mlir::scf::SCFDialect>();
}

void chipless::dataflow::registerDfirPasses() {
  mlir::registerTransformsPasses();
  registerEmitSpyreCodePass();
}
