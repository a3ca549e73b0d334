//===- ParseGuard.h - reject MLIR text that crashes MLIR 19's parser -*- C++ -*-===//
//
// Part of chipless. Debian's MLIR 19 parser has a use-after-free (fixed upstream in
// llvm/llvm-project#127778, not in 19.x): when an op's custom parser resolves an operand
// that is not defined yet (a forward reference) and the op's own region then defines a
// value of that name, the parser deletes the forward-reference placeholder while the op
// under construction still holds it, and creating the op crashes. `scf.for`, `scf.if`,
// `linalg.generic`, … all resolve their operands before parsing their regions, so
// `scf.for %i = %c0 to %n step %c1 { %n = … }` crashes `mlir-opt` itself.
//
// The same placeholder swap corrupts the heap when the forward reference is made by an
// op already built and the definition sits in the region of a later op whose parsing then
// fails (the region is freed while the earlier op still uses the value; seen as
// "malloc(): unaligned tcache chunk detected" at teardown).
//
// Such text is always invalid (a value defined inside a region is not visible outside
// it), so the tools that read MLIR text scan it first and report each such use with its
// location instead of handing it to the parser.
//
//===----------------------------------------------------------------------===//

#ifndef KTIR_PARSEGUARD_H
#define KTIR_PARSEGUARD_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LogicalResult.h"

#include "llvm/ADT/StringRef.h"

#include <vector>

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace chipless::ktir {

/// A use of an SSA value name before any visible definition, followed (before the use's
/// own region ends) by a definition of that name inside a region opened after the use:
/// the pattern that crashes MLIR 19.
struct NestedForwardReference {
  /// The value name with its `%`.
  llvm::StringRef name;
  /// Offsets in the scanned text of the use and of the nested definition.
  size_t use = 0;
  size_t definition = 0;
};

/// Scans MLIR text (comments and strings skipped, `{`…`}` as scopes) for nested forward
/// references. Reports only text that is invalid (short of a name reused inside an
/// isolated-from-above region); it may miss some in unusual layouts.
std::vector<NestedForwardReference> findNestedForwardReferences(llvm::StringRef text);

/// Emits a located error (and a note at the definition) through `context`'s diagnostic
/// engine for each nested forward reference in the main buffer of `sources`; fails if
/// there is one.
mlir::LogicalResult checkNestedForwardReferences(const llvm::SourceMgr& sources,
                                                 mlir::MLIRContext* context);

/// `mlir::parseSourceFile<ModuleOp>` preceded by checkNestedForwardReferences: a null
/// module (errors already reported) on invalid text, never a crash on this pattern.
mlir::OwningOpRef<mlir::ModuleOp> parseModuleGuarded(llvm::SourceMgr& sources,
                                                     mlir::MLIRContext* context);

} // namespace chipless::ktir

#endif // KTIR_PARSEGUARD_H
