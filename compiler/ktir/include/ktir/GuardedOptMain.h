//===- GuardedOptMain.h - MlirOptMain behind the ParseGuard check -*- C++ -*-===//
//
// Part of chipless. The MlirOptMain drivers (ktir-opt, dfir-opt) hand their input to
// MLIR 19's parser, which crashes on some invalid text (ParseGuard.h). This runs the
// ParseGuard check on every input chunk first: a chunk with a hazard gets its located
// errors (or, with -verify-diagnostics, has them checked against its expected-* lines)
// and never reaches the parser; the other chunks go to MlirOptMain as usual.
//
//===----------------------------------------------------------------------===//

#ifndef KTIR_GUARDEDOPTMAIN_H
#define KTIR_GUARDEDOPTMAIN_H

#include "mlir/Support/LogicalResult.h"

#include <memory>

namespace llvm {
class MemoryBuffer;
class raw_ostream;
} // namespace llvm

namespace mlir {
class DialectRegistry;
class MlirOptMainConfig;
} // namespace mlir

namespace chipless::ktir {

/// `mlir::MlirOptMain(output, input, registry, config)` with every chunk of `input` (split
/// as `config` says, -split-input-file) checked by checkParseHazards before it is parsed.
/// Fails when a chunk fails (its hazards reported, or the verifier's verdict on them).
mlir::LogicalResult guardedMlirOptMain(llvm::raw_ostream& output,
                                       std::unique_ptr<llvm::MemoryBuffer> input,
                                       mlir::DialectRegistry& registry,
                                       const mlir::MlirOptMainConfig& config);

} // namespace chipless::ktir

#endif // KTIR_GUARDEDOPTMAIN_H
