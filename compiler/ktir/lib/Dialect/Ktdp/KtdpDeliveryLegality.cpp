//===- KtdpDeliveryLegality.cpp - delivery ops' strict rules -------------===//
//
// Part of chipless. The strict legality rules of the six delivery ops (verifyStrict, run by
// the ktdp-strict pass): by enumeration over the function's grid (tile ids are the
// row-major flattening of the grid; groups g range over the future's group set), every
// group with consumers has producers and the other way round, dependency sets name and
// cover producers (R3, R4), one source per consume (R8), reductions deliver to producers
// (R13, R14), assembling ops agree on producer counts and disjoint sets (R5-R7), and result
// extents fit each group.
//
//===----------------------------------------------------------------------===//

#include "KtdpInterTile.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::ktdp;

namespace mlir::ktdp::intertile {

namespace {

/// Product of the extents of `type` along `dims`; nullopt if one is dynamic.
std::optional<int64_t> flatExtent(RankedTensorType type, ArrayRef<int64_t> dims) {
  int64_t product = 1;
  for (int64_t d : dims) {
    if (type.isDynamicDim(d)) return std::nullopt;
    product *= type.getDimSize(d);
  }
  return product;
}

/// The tiles, groups and dependency sets of one delivery, by enumeration.
struct GroupTiles {
  int64_t group;
  SmallVector<int64_t> producers, consumers;
  /// Per consumer (same order as `consumers`): the producers it receives from.
  SmallVector<SmallVector<int64_t>> dependencies;
};

} // namespace

/// Result extents for a group with `consumers` consumers and `producers` producers
/// per consumer: split divides, concat multiplies the flattened extents.
static LogicalResult verifyResultExtents(Operation* op, const DeliverySpec& spec,
                                         ArrayRef<Type> partials, ArrayRef<int64_t> splitDims,
                                         ArrayRef<int64_t> concatDims, int64_t group,
                                         int64_t consumers, int64_t producers) {
  for (auto [i, pair] : llvm::enumerate(llvm::zip(partials, op->getResultTypes()))) {
    auto partial = cast<RankedTensorType>(std::get<0>(pair));
    auto result = cast<RankedTensorType>(std::get<1>(pair));
    if (spec.placement == Placement::Split || spec.placement == Placement::Permute) {
      std::optional<int64_t> extent = flatExtent(partial, splitDims);
      if (extent && consumers > 0 && *extent % consumers != 0)
        return op->emitOpError("partial #")
               << i << " spans " << *extent << " elements over its split dimensions "
               << formatList(splitDims) << ", not divisible by the " << consumers
               << " consumers of group " << group;
    }
    if (spec.placement == Placement::Split) {
      std::optional<int64_t> p = flatExtent(partial, splitDims), r = flatExtent(result, splitDims);
      if (p && r && *r * consumers != *p)
        return op->emitOpError("result #")
               << i << " spans " << *r << " elements over " << formatList(splitDims)
               << " but the partial's " << *p << " split over the " << consumers
               << " consumers of group " << group << " gives "
               << *p / std::max<int64_t>(consumers, 1);
    } else if (spec.placement == Placement::Concat) {
      std::optional<int64_t> p = flatExtent(partial, concatDims),
                             r = flatExtent(result, concatDims);
      if (p && r && *r != *p * producers)
        return op->emitOpError("result #")
               << i << " spans " << *r << " elements over " << formatList(concatDims)
               << " but assembling " << producers << " producers of group " << group << " gives "
               << *p * producers;
    } else if (spec.placement == Placement::Permute) {
      if (partial.hasStaticShape() && result.hasStaticShape() &&
          result.getNumElements() * consumers != partial.getNumElements() * producers)
        return op->emitOpError("result #")
               << i << " has " << result.getNumElements() << " elements but exchanging "
               << partial.getNumElements() << "-element partials among " << producers
               << " producers and " << consumers << " consumers of group " << group << " gives "
               << partial.getNumElements() * producers / std::max<int64_t>(consumers, 1);
    }
  }
  return success();
}

/// The group structure of a delivery: producers from the produce op, consumers and
/// dependency sets from the delivery's attributes.
static SmallVector<GroupTiles> collectGroups(InterTileProduceOp produce, IntegerSet consumerSet,
                                             std::optional<IntegerSet> dependency,
                                             int64_t numTiles) {
  SmallVector<GroupTiles> groups;
  IntegerSet producerSet = produce.getProducerTilesPerGroup().getValue();
  for (int64_t g : enumerateGroups(produce.getFuture().getType().getGroupSet(), numTiles)) {
    GroupTiles& tiles = groups.emplace_back();
    tiles.group = g;
    tiles.producers = enumerateTiles(producerSet, {g}, numTiles);
    tiles.consumers = enumerateTiles(consumerSet, {g}, numTiles);
    for (int64_t c : tiles.consumers) {
      SmallVector<int64_t>& deps = tiles.dependencies.emplace_back();
      if (!dependency) {
        deps = tiles.producers;
        continue;
      }
      SmallVector<int64_t> symbols = {c};
      if (dependency->getNumSymbols() == 2) symbols.push_back(g);
      deps = enumerateTiles(*dependency, symbols, numTiles);
    }
  }
  return groups;
}

LogicalResult verifyDeliveryStrict(Operation* op, const DeliverySpec& spec) {
  auto futureType = cast<TileFutureType>(op->getOperand(0).getType());
  ArrayRef<Type> partials = futureType.getPartialTypes();
  IntegerSet consumerSet = op->getAttrOfType<IntegerSetAttr>("consumer_tiles_per_group").getValue();
  if (failed(verifyTileSetShape(op, "consumer_tiles_per_group", consumerSet, 1, 1,
                                "(i)[g] over tile ids with the group as symbol")))
    return failure();
  std::optional<IntegerSet> dependency;
  if (auto attr = op->getAttrOfType<IntegerSetAttr>("producer_dependency_per_consumer"))
    dependency = attr.getValue();
  if (spec.combine)
    for (Operation& nested : op->getRegion(0).front().without_terminator())
      if (!isMemoryEffectFree(&nested))
        return nested.emitOpError("has memory effects; a combiner must be pure");
  const DimensionLists dims = dimensionLists(op, spec);

  auto produce = op->getOperand(0).getDefiningOp<InterTileProduceOp>();
  if (!produce) {
    if (op->getOperand(0).getDefiningOp())
      return op->emitOpError("tile future must come from ktdp.inter_tile_produce");
    return success();
  }
  int64_t numTiles = getEnclosingTileCount(op);
  if (numTiles > kMaxEnumeratedTiles) return success();

  SmallVector<GroupTiles> groups = collectGroups(produce, consumerSet, dependency, numTiles);
  llvm::DenseSet<int64_t> allProducers;
  for (GroupTiles& tiles : groups)
    allProducers.insert(tiles.producers.begin(), tiles.producers.end());
  std::optional<int64_t> uniformProducers;
  for (GroupTiles& tiles : groups) {
    int64_t g = tiles.group;
    if (tiles.producers.empty() && tiles.consumers.empty()) continue;
    if (tiles.producers.empty())
      return op->emitOpError("group ")
             << g << " has consumers " << formatList(tiles.consumers) << " but no producer";
    if (tiles.consumers.empty())
      return op->emitOpError("producers ")
             << formatList(tiles.producers) << " of group " << g << " have no consumer";
    auto isProducer = [&](int64_t t) { return llvm::is_contained(tiles.producers, t); };

    // R3: dependency sets name producers; R4: every producer is received by a consumer.
    if (dependency) {
      for (auto [c, deps] : llvm::zip(tiles.consumers, tiles.dependencies))
        for (int64_t p : deps)
          if (!allProducers.contains(p))
            return op->emitOpError("producer_dependency_per_consumer makes consumer ")
                   << c << " of group " << g << " depend on tile " << p
                   << ", which produces nothing";
      for (int64_t p : tiles.producers)
        if (llvm::none_of(tiles.dependencies,
                          [&](auto& deps) { return llvm::is_contained(deps, p); }))
          return op->emitOpError("producer ")
                 << p << " of group " << g << " is received by no consumer";
    }

    // R8: consume and scatter deliver exactly one source to each consumer.
    if (isa<InterTileConsumeOp>(op))
      for (auto [c, deps] : llvm::zip(tiles.consumers, tiles.dependencies))
        if (deps.size() != 1)
          return op->emitOpError("consumer ")
                 << c << " of group " << g << " receives from " << deps.size() << " producers "
                 << formatList(deps)
                 << "; each consumer needs exactly one source (name it with "
                    "producer_dependency_per_consumer)";
    if (isa<InterTileScatterOp>(op) && tiles.producers.size() != 1)
      return op->emitOpError("group ")
             << g << " has " << tiles.producers.size() << " producers "
             << formatList(tiles.producers) << "; a scatter has exactly one per group";

    // R13, R14: reductions deliver to producers only, to all of them or to one.
    bool subsetRequired = isa<InterTileReduceOp, InterTileReduceScatterOp>(op);
    if (subsetRequired)
      for (int64_t c : tiles.consumers)
        if (!isProducer(c))
          return op->emitOpError("consumer ")
                 << c << " of group " << g << " is not one of its producers "
                 << formatList(tiles.producers) << "; consumers must be a subset of producers";
    if (isa<InterTileReduceOp>(op) && tiles.consumers != tiles.producers &&
        tiles.consumers.size() != 1)
      return op->emitOpError("consumers ")
             << formatList(tiles.consumers) << " of group " << g << " must be all of its producers "
             << formatList(tiles.producers) << " (all-reduce) or a single tile (reduce)";
    if (isa<InterTileAllToAllOp>(op) && tiles.consumers != tiles.producers)
      return op->emitOpError("consumers ")
             << formatList(tiles.consumers) << " of group " << g << " must equal its producers "
             << formatList(tiles.producers) << " in an all-to-all";

    // R5-R7: assembling ops need one producer count P and disjoint dependency sets.
    int64_t producers = tiles.dependencies.front().size();
    if (spec.placement == Placement::Concat || spec.placement == Placement::Permute) {
      for (auto [c, deps] : llvm::zip(tiles.consumers, tiles.dependencies))
        if (static_cast<int64_t>(deps.size()) != producers)
          return op->emitOpError("consumers of group ")
                 << g << " assemble from different numbers of producers (" << producers << " and "
                 << deps.size() << " for consumer " << c << ")";
      if (dependency)
        for (unsigned a = 0; a < tiles.dependencies.size(); ++a)
          for (unsigned b = 0; b < a; ++b)
            for (int64_t p : tiles.dependencies[a])
              if (llvm::is_contained(tiles.dependencies[b], p) &&
                  tiles.dependencies[a] != tiles.dependencies[b])
                return op->emitOpError("consumers ")
                       << tiles.consumers[b] << " and " << tiles.consumers[a] << " of group " << g
                       << " share producer " << p
                       << " in different dependency sets; assembled sets must be disjoint";
      if (uniformProducers && *uniformProducers != producers)
        return op->emitOpError("groups assemble from different numbers of producers (")
               << *uniformProducers << " and " << producers << " in group " << g << ")";
      uniformProducers = producers;
    }
    if (failed(verifyResultExtents(op, spec, partials, dims.split, dims.concat, g,
                                   tiles.consumers.size(), producers)))
      return failure();
  }
  return success();
}

} // namespace mlir::ktdp::intertile
