//===- GuardedOptMain.h - MlirOptMain behind the ParseGuard check -*- C++ -*-===//
//
// Part of chipless. The driver of the *-opt tools that read MLIR text (ktir-opt, tpu-opt):
// mlir-opt's command line and behaviour, except that each input chunk (each piece of a
// -split-input-file input) is scanned by the ParseGuard check (ParseGuard.h) before MLIR 19's
// parser sees it, so text that would crash the parser gets located errors instead.
//
//===----------------------------------------------------------------------===//

#ifndef KTIR_GUARDEDOPTMAIN_H
#define KTIR_GUARDEDOPTMAIN_H

#include "llvm/ADT/StringRef.h"

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace chipless::ktir {

/// `mlir::MlirOptMain(argc, argv, toolName, registry)` with the ParseGuard check of every
/// input chunk: a chunk with a hazard is not parsed; its errors go to stderr, or with
/// -verify-diagnostics to the expected-diagnostics verifier (whose verdict counts for the
/// chunk). Returns the process exit code. Register the dialects and passes first.
int guardedOptMain(int argc, char** argv, llvm::StringRef toolName,
                   mlir::DialectRegistry& registry);

} // namespace chipless::ktir

#endif // KTIR_GUARDEDOPTMAIN_H
