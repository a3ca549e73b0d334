#pragma once
/// One rank's side of a collective group on a device server (the transport of `tpu_dist` and
/// `spyre_dist`): every rank of the group names the same group and network and makes the same
/// calls in the same order; a call returns when every rank has made it and the server has run
/// it on the emulated network (runtime/remote/collectives.h).
#include "runtime/remote/collectives.h"
#include "runtime/remote/remote_device.h"

#include <map>
#include <string>
#include <tuple>

namespace chipless::runtime::remote {

/// The root of a receive from whichever rank sends first (MPI's ANY_SOURCE).
constexpr int kAnySource = -1;

class CollectiveGroup {
public:
  /// Rank `rank` of the `size` ranks of group `group` (a name every rank agrees on), whose
  /// collectives run on `network`.
  CollectiveGroup(const ServerAddress& address, std::string group, int rank, int size,
                  CollectiveNetwork network = CollectiveNetwork::Ici);
  /// Runs the group's next collective with this rank's `block`. For Send and Recv, `root` is
  /// the other rank and `tag` tells messages between the same two ranks apart; sends and
  /// receives are matched in the order they are made, per pair of ranks and tag. A Recv from
  /// kAnySource takes the first send to this rank with `tag` that is next in its pair's order,
  /// and says its sender in the result's `source`.
  CollectiveResult run(CollectiveKind kind, int root, const NpyArray& block, uint32_t tag = 0);
  int rank() const { return rank_; }
  int size() const { return size_; }

private:
  Connection connection_;
  std::string group_;
  int rank_;
  int size_;
  CollectiveNetwork network_;
  uint64_t sequence_ = 0; ///< collectives of the whole group made so far
  /// Sends and receives made so far, by sender, receiver and tag.
  std::map<std::tuple<int, int, uint32_t>, uint64_t> pointToPoint_;
};

} // namespace chipless::runtime::remote
