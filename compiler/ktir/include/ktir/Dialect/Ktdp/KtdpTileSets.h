//===- KtdpTileSets.h - integer sets of tiles and coordinates ---*- C++ -*-===//
//
// Part of chipless. Small, exact helpers over the affine integer sets KTIR uses for
// coordinate sets, access-tile sets and tile groups: evaluate a set at a point,
// read constant per-dimension bounds, enumerate the tiles of a group, and find the
// SPMD grid of the enclosing function. Used by the verifiers and by later passes.
//
//===----------------------------------------------------------------------===//

#ifndef KTIR_DIALECT_KTDP_KTDPTILESETS_H
#define KTIR_DIALECT_KTDP_KTDPTILESETS_H

#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/IntegerSet.h"
#include "mlir/IR/Operation.h"

#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <optional>

namespace mlir::ktdp {

/// Value of `expr` with dimensions `dims` and symbols `symbols`; nullopt when a
/// divisor or modulus is zero or the expression is not affine with constant divisors.
std::optional<int64_t> evaluateAffineExpr(AffineExpr expr, llvm::ArrayRef<int64_t> dims,
                                          llvm::ArrayRef<int64_t> symbols);

/// Whether the point (`dims`; `symbols`) satisfies every constraint of `set`.
bool containsPoint(IntegerSet set, llvm::ArrayRef<int64_t> dims, llvm::ArrayRef<int64_t> symbols);

/// Inclusive constant bounds of each dimension of an integer set.
struct SetBounds {
  /// Lower and upper bound per dimension, from constraints on that dimension alone
  /// with constant terms; nullopt where none exists.
  llvm::SmallVector<std::optional<int64_t>> lower, upper;
  /// True when every constraint bounds a single dimension by a constant and every
  /// dimension has both bounds: the set is exactly the box lower..upper.
  bool isBox = false;

  /// Number of integer points along `dim` when both bounds are known.
  std::optional<int64_t> extent(unsigned dim) const;
};

/// The constant per-dimension bounds of `set` (see SetBounds).
SetBounds getSetBounds(IntegerSet set);

/// The `grid` attribute (`grid = [4]`, `[2, 4]`, …) of the closest enclosing op that
/// has one, usually the func.func; nullopt when there is none.
std::optional<llvm::SmallVector<int64_t>> getEnclosingGrid(Operation* op);

/// Number of compute tiles the enclosing function runs on: the product of its grid,
/// or 1 without a grid.
int64_t getEnclosingTileCount(Operation* op);

/// The tiles `i` in [0, numTiles) with `set(i)[symbols…]`, ascending.
llvm::SmallVector<int64_t> enumerateTiles(IntegerSet set, llvm::ArrayRef<int64_t> symbols,
                                          int64_t numTiles);

/// The tiles `i` in [0, U] with `set(i)[symbols…]`, where U is the constant upper bound the
/// set gives `i` once its symbols are fixed (as upstream KTIR's verifiers enumerate tile
/// sets, which carry no grid); nullopt when there is none or it reaches `limit`.
std::optional<llvm::SmallVector<int64_t>>
enumerateBoundedTiles(IntegerSet set, llvm::ArrayRef<int64_t> symbols, int64_t limit);

} // namespace mlir::ktdp

#endif // KTIR_DIALECT_KTDP_KTDPTILESETS_H
