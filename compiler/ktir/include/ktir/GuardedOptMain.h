//===- GuardedOptMain.h - MlirOptMain behind the ParseGuard check -*- C++ -*-===//
//
// Part of chipless. The driver of the *-opt tools that read MLIR text (ktir-opt, dfir-opt,
// tpu-opt):
// mlir-opt's command line and behaviour, except that each input chunk (each piece of a
// -split-input-file input) is scanned by the ParseGuard check (ParseGuard.h) before MLIR 19's
// parser sees it, so text that would crash the parser gets located errors instead.
//
//===----------------------------------------------------------------------===//

#ifndef KTIR_GUARDEDOPTMAIN_H
#define KTIR_GUARDEDOPTMAIN_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

namespace mlir {
class DialectRegistry;
class MlirOptMainConfig;
} // namespace mlir

namespace chipless::ktir {

/// `mlir::MlirOptMain(argc, argv, toolName, registry)` with the ParseGuard check of every
/// input chunk: a chunk with a hazard is not parsed; its errors go to stderr, or with
/// -verify-diagnostics to the expected-diagnostics verifier (whose verdict counts for the
/// chunk). Returns the process exit code. Register the dialects, passes and the tool's own
/// command-line options first; `adjust`, when given, amends the configuration read from the
/// command line (dfir-opt appends its emitter to the pass pipeline).
int guardedOptMain(int argc, char** argv, llvm::StringRef toolName, mlir::DialectRegistry& registry,
                   llvm::function_ref<void(mlir::MlirOptMainConfig&)> adjust = nullptr);

} // namespace chipless::ktir

#endif // KTIR_GUARDEDOPTMAIN_H
