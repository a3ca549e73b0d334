//===- EmitSpyreCode.h - DataflowIR to a SpyreCode job ----------*- C++ -*-===//
//
// Part of chipless. The SpyreCode emitter: a dfir.job becomes the job binary (one
// program per dfir.program, scalar SSA values in registers r0..r15, scf.for as
// loop/endloop, scf.if as branches) and the job plan (arguments, standard preparation and
// execution steps). See docs/dataflow-ir.md.
//
//===----------------------------------------------------------------------===//

#ifndef DATAFLOW_EMIT_EMITSPYRECODE_H
#define DATAFLOW_EMIT_EMITSPYRECODE_H

#include "dataflow/Dialect/Dfir/DfirOps.h"
#include "support/spyre_arch.h"
#include "support/spyrecode/assembler.h"

#include <memory>
#include <string>
#include <vector>

namespace mlir {
class Pass;
} // namespace mlir

namespace chipless::dataflow {

/// Emits the SpyreCode job of `job` for the chip `arch` describes. Problems (an op the
/// emitter does not support, more than 16 live scalar registers, a port or token the chip
/// does not have, ...) are reported as errors at the op's location, and the result is then
/// a failure; a job that is returned is complete and passes the SpyreCode reader's checks.
mlir::FailureOr<spyrecode::Job> emitSpyreCode(mlir::dfir::JobOp job, const SpyreArch& arch);

/// Options of the emission pass.
struct EmitSpyreCodeOptions {
  std::string dir;                    ///< output directory (a module with several jobs: DIR/NAME)
  std::string archFile;               ///< architecture description ("" = SpyreArch::defaultFile())
  std::vector<std::string> overrides; ///< "key.path=value" applied to it
};

/// The pass `dfir-emit-spyrecode`: emits every dfir.job of the module and writes its
/// SpyreCode directory (spyrecode::writeJob).
std::unique_ptr<mlir::Pass> createEmitSpyreCodePass(const EmitSpyreCodeOptions& options);

/// Registers `dfir-emit-spyrecode{dir=DIR arch=FILE set=k=v,...}` for command-line pipelines.
void registerEmitSpyreCodePass();

} // namespace chipless::dataflow

#endif // DATAFLOW_EMIT_EMITSPYRECODE_H
