//===- RingGroups.h - the tiles of an inter-tile exchange ------*- C++ -*-===//
//
// Part of chipless. Private to the Dataflow Scheduler. Helpers the ring collectives share
// (LowerCollective.cpp, LowerGather.cpp): the groups of a tile future, the members of a
// group, and the key that places an exchange buffer at one address on every core.
//
//===----------------------------------------------------------------------===//

#ifndef DATAFLOW_LIB_SCHEDULER_RINGGROUPS_H
#define DATAFLOW_LIB_SCHEDULER_RINGGROUPS_H

#include "ktir/Dialect/Ktdp/KtdpOps.h"
#include "ktir/Dialect/Ktdp/KtdpTileSets.h"

#include "llvm/Support/raw_ostream.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace chipless::sched {

/// Groups `g` of a future's group set (searched over 0..numTiles-1).
inline std::vector<int64_t> groupsOf(mlir::ktdp::TileFutureType type, int64_t numTiles) {
  std::vector<int64_t> out;
  for (int64_t g = 0; g < numTiles; ++g)
    if (mlir::ktdp::containsPoint(type.getGroupSet(), {g}, {})) out.push_back(g);
  return out;
}

/// The tiles of group `group` in `set`, ascending (their local indices).
inline std::vector<int64_t> membersOf(mlir::IntegerSet set, int64_t group, int64_t numTiles) {
  auto v = mlir::ktdp::enumerateTiles(set, {group}, numTiles);
  return {v.begin(), v.end()};
}

/// Per consumer of a delivery op: the producers it receives from, ascending — those the
/// op's `producer_dependency_per_consumer` set names, or, without one, every producer of
/// the consumer's group. An error at `op` when a tile consumes in two groups (it would get
/// two results).
inline mlir::FailureOr<std::map<int64_t, std::vector<int64_t>>>
sourcesPerConsumer(mlir::Operation* op, mlir::ktdp::InterTileProduceOp produce,
                   mlir::ktdp::TileFutureType type, mlir::IntegerSet consumers,
                   std::optional<mlir::IntegerSet> dependency, int64_t numTiles) {
  std::map<int64_t, std::vector<int64_t>> sources;
  for (int64_t g : groupsOf(type, numTiles)) {
    auto producers = membersOf(produce.getProducerTilesPerGroup().getValue(), g, numTiles);
    for (int64_t c : membersOf(consumers, g, numTiles)) {
      std::vector<int64_t> from = producers;
      if (dependency) {
        llvm::SmallVector<int64_t> symbols = {c};
        if (dependency->getNumSymbols() == 2) symbols.push_back(g);
        auto deps = mlir::ktdp::enumerateTiles(*dependency, symbols, numTiles);
        from.assign(deps.begin(), deps.end());
      }
      if (!sources.emplace(c, std::move(from)).second)
        return op->emitOpError("has tile ")
                   << c << " consume in two groups; a tile gets one result per exchange",
               mlir::failure();
    }
  }
  return sources;
}

/// A key naming an exchange by the op's location: the buffers of one exchange sit at the
/// same address on every core.
inline std::string locationKey(mlir::Location loc) {
  std::string text;
  llvm::raw_string_ostream os(text);
  loc.print(os);
  return text;
}

} // namespace chipless::sched

#endif // DATAFLOW_LIB_SCHEDULER_RINGGROUPS_H
