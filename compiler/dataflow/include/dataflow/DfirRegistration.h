//===- DfirRegistration.h - everything DataflowIR files use -----*- C++ -*-===//
//
// Part of chipless. One place that knows which dialects and passes a DataflowIR tool
// needs: dfir, arith, scf, and the SpyreCode emission pass.
//
//===----------------------------------------------------------------------===//

#ifndef DATAFLOW_DFIRREGISTRATION_H
#define DATAFLOW_DFIRREGISTRATION_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace chipless::dataflow {

/// Adds dfir and the upstream dialects DataflowIR programs use (arith, scf) to `registry`.
void registerDfirDialects(mlir::DialectRegistry& registry);

/// Registers the generic transformation passes (canonicalize, cse, ...) and
/// `dfir-emit-spyrecode` for command-line pipelines.
void registerDfirPasses();

} // namespace chipless::dataflow

#endif // DATAFLOW_DFIRREGISTRATION_H
