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
// location instead of handing it to the parser. The scan also catches a second crash of
// MLIR 19 found by tests/fuzz: a malformed `dimensions = [...]` of linalg.reduce, and
// one of linalg.transpose's verifier: `permutation = [1, 2147483648]`.
//
//===----------------------------------------------------------------------===//

#ifndef KTIR_PARSEGUARD_H
#define KTIR_PARSEGUARD_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LogicalResult.h"

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace chipless::ktir {

/// A place in MLIR text that would crash MLIR 19's parser, with the error to report.
struct ParseHazard {
  /// Offset of the error in the scanned text, and its message.
  size_t at = 0;
  std::string message;
  /// Offset and text of a note (the definition of a forward reference), if any.
  std::optional<size_t> noteAt;
  std::string note;
};

/// Scans MLIR text (comments and strings skipped, `{`…`}` as scopes) for
/// - nested forward references: a use of an SSA value name before any visible definition,
///   followed by a definition of that name inside a region opened after the use, before
///   the use is resolved (as in MLIR's parser, a forward reference a region leaves
///   unresolved stays open in the enclosing region);
/// - a malformed integer list after `dimensions =` / `permutation =` of linalg.reduce,
///   linalg.broadcast or linalg.transpose (their MLIR 19 parsers store the null attribute
///   they failed to parse and crash), or one with an index outside 0…2^31-1 (their
///   verifiers crash on those beyond 32 bits; valid indices are below the rank).
/// Reports only text that is invalid (short of a name reused inside an
/// isolated-from-above region); it may miss hazards in unusual layouts.
std::vector<ParseHazard> findParseHazards(llvm::StringRef text);

/// `text` with each `>=` inside a `!ktdp.tile_future<…>` body written `->`, the only
/// comparison MLIR's scan of a dialect type's body lets through (it takes the `>` of `>=`
/// for a closing bracket; the type's own parser reads such a group set back from the text
/// with `>=` restored). Same length and lines, so locations do not move; other text is
/// unchanged. This is how `groups = affine_set<(g) : (g >= 0, -g + 1 >= 0)>` written
/// inline, as ktir-cpu's kernels do, parses with MLIR 19.
std::string prepareSource(llvm::StringRef text);

/// Emits a located error (with its note) through `context`'s diagnostic engine for each
/// hazard in the main buffer of `sources`; fails if there is one.
mlir::LogicalResult checkParseHazards(const llvm::SourceMgr& sources, mlir::MLIRContext* context);

/// `mlir::parseSourceFile<ModuleOp>` preceded by checkParseHazards, of the prepared text
/// (prepareSource): a null module (errors already reported) on invalid text, never a crash
/// on this pattern.
mlir::OwningOpRef<mlir::ModuleOp> parseModuleGuarded(llvm::SourceMgr& sources,
                                                     mlir::MLIRContext* context);

} // namespace chipless::ktir

#endif // KTIR_PARSEGUARD_H
