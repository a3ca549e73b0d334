#pragma once
/// One rank's side of a collective group on a device server (`tpu_dist`'s transport): every
/// rank of the group names the same group and makes the same calls in the same order; a call
/// returns when every rank has made it and the server has run it on the emulated ICI
/// (runtime/remote/collectives.h).
#include "runtime/remote/collectives.h"
#include "runtime/remote/remote_device.h"

#include <string>

namespace chipless::runtime::remote {

class CollectiveGroup {
public:
  /// Rank `rank` of the `size` ranks of group `group` (a name every rank agrees on).
  CollectiveGroup(const ServerAddress& address, std::string group, int rank, int size);
  /// Runs the group's next collective with this rank's `block`.
  CollectiveResult run(CollectiveKind kind, int root, const NpyArray& block);
  int rank() const { return rank_; }
  int size() const { return size_; }

private:
  Connection connection_;
  std::string group_;
  int rank_;
  int size_;
  uint64_t sequence_ = 0;
};

} // namespace chipless::runtime::remote
