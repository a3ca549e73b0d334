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
