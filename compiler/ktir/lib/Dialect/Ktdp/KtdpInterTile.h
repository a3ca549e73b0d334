//===- KtdpInterTile.h - what the inter-tile ops' files share --*- C++ -*-===//
//
// Part of chipless. The description of each delivery op (DeliverySpec) and the helpers
// that KtdpInterTileOps.cpp (syntax, the verifiers) and KtdpDeliveryLegality.cpp (the
// strict rules over the grid) both use. Private to the dialect library.
//
//===----------------------------------------------------------------------===//

#ifndef KTIR_LIB_DIALECT_KTDP_KTDPINTERTILE_H
#define KTIR_LIB_DIALECT_KTDP_KTDPINTERTILE_H

#include "ktir/Dialect/Ktdp/KtdpOps.h"
#include "ktir/Dialect/Ktdp/KtdpTileSets.h"

#include <string>

namespace mlir::ktdp::intertile {

/// Above this many tiles the verifiers skip the enumeration of tile sets.
inline constexpr int64_t kMaxEnumeratedTiles = 1024;

enum class Placement { Replicate, Split, Concat, Permute };

/// What distinguishes one delivery op from another.
struct DeliverySpec {
  /// Has an `identity(...)` list and a combiner region (reduce, reduce_scatter).
  bool combine;
  Placement placement;
  /// Accepts `producer_dependency_per_consumer`.
  bool allowsDependency;
  /// Dimension-list attributes, in printing order.
  SmallVector<StringRef, 2> dimAttrs;
};

template <typename OpT>
DeliverySpec deliverySpec();
template <>
inline DeliverySpec deliverySpec<InterTileConsumeOp>() {
  return {false, Placement::Replicate, true, {}};
}
template <>
inline DeliverySpec deliverySpec<InterTileReduceOp>() {
  return {true, Placement::Replicate, true, {}};
}
template <>
inline DeliverySpec deliverySpec<InterTileReduceScatterOp>() {
  return {true, Placement::Split, true, {"scatter_dimensions"}};
}
template <>
inline DeliverySpec deliverySpec<InterTileGatherOp>() {
  return {false, Placement::Concat, true, {"gather_dimensions"}};
}
template <>
inline DeliverySpec deliverySpec<InterTileAllToAllOp>() {
  return {false, Placement::Permute, true, {"split_dimensions", "concat_dimensions"}};
}
template <>
inline DeliverySpec deliverySpec<InterTileScatterOp>() {
  return {false, Placement::Split, false, {"scatter_dimensions"}};
}

inline bool isDeliveryOp(Operation* op) {
  return isa<InterTileConsumeOp, InterTileReduceOp, InterTileReduceScatterOp, InterTileGatherOp,
             InterTileAllToAllOp, InterTileScatterOp>(op);
}

template <typename Range>
std::string formatList(const Range& values) {
  std::string text = "{";
  llvm::raw_string_ostream os(text);
  llvm::interleaveComma(values, os);
  os << '}';
  return text;
}

/// The group indices g in [0, numTiles) of a future's group set.
inline SmallVector<int64_t> enumerateGroups(IntegerSet groups, int64_t numTiles) {
  return enumerateTiles(groups, {}, numTiles);
}

/// Verifies that a tile set attribute has the shape (i)[symbols…].
LogicalResult verifyTileSetShape(Operation* op, StringRef name, IntegerSet set, unsigned minSymbols,
                                 unsigned maxSymbols, StringRef form);

/// The dimension lists of a delivery op, by what they do to the partials.
struct DimensionLists {
  SmallVector<int64_t> split;   ///< scatter_dimensions, split_dimensions
  SmallVector<int64_t> concat;  ///< gather_dimensions, concat_dimensions
  SmallVector<int64_t> touched; ///< all of them
};
/// The dimension lists `spec` says `op` has (as given; verifyDelivery checks them).
DimensionLists dimensionLists(Operation* op, const DeliverySpec& spec);

/// The strict rules of a delivery (KtdpDeliveryLegality.cpp): a pure combiner, and the
/// group structure over the grid's tiles (R3-R14).
LogicalResult verifyDeliveryStrict(Operation* op, const DeliverySpec& spec);

} // namespace mlir::ktdp::intertile

#endif // KTIR_LIB_DIALECT_KTDP_KTDPINTERTILE_H
