#pragma once
/// Collectives between the processes of a device server (what `tpu_dist` carries): each rank
/// sends its block, and the server runs the collective on an emulated TPU system of one chip
/// per rank, over its ICI links (ici.allreduce, ici.allgather, ici.reducescatter), so the
/// result and the modelled time come from the simulated ring. The ICI sums f32 and i32; other
/// element types move as raw 32-bit words (gathers and broadcasts only).
#include "runtime/device.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace chipless::runtime::remote {

/// What a collective does; the values are the protocol's (docs/device-protocol.md).
enum class CollectiveKind : uint8_t {
  AllReduce = 0,     ///< every rank: the element-wise sum of every rank's block
  AllGather = 1,     ///< every rank: every rank's block, in rank order
  ReduceScatter = 2, ///< rank r: block r of the sum of every rank's size blocks
  Broadcast = 3,     ///< every rank: the root's block
  Barrier = 4,       ///< nothing moves but a token; returns when every rank has arrived
  Send = 5,          ///< to one rank (the root names it): the block, over one ICI hop
  Recv = 6,          ///< from one rank (the root names it): its sent block
};
/// "all_reduce", ...
const char* collectiveName(CollectiveKind kind);

/// What a collective gives one rank.
struct CollectiveResult {
  NpyArray block;     ///< the rank's result (AllGather: size blocks stacked along a new dim 0)
  double seconds = 0; ///< modelled time of the collective on the ICI
  double cycles = 0;  ///< the same in chip cycles
};

/// Runs collectives on emulated TPU systems of 2, 3, ... chips (opened the first time a
/// group of that size needs one, then reused): the device server's ICI worker.
class CollectiveService {
public:
  /// Systems are opened on `arch` with device numbers from `firstIndex` up (apart from the
  /// server's own devices); program directories go under `workDirectory`.
  CollectiveService(ArchDescription arch, int firstIndex, std::string workDirectory);
  ~CollectiveService();
  /// Runs `kind` over `blocks` (one per rank, each of the same dtype and shape; ReduceScatter:
  /// dimension 0 is the number of ranks) with `root` for Broadcast; Send over the sender's and
  /// the receiver's blocks, in that order, on two chips. Returns one result per rank (Send:
  /// nothing for the sender, the block for the receiver). Errors name the collective and what
  /// is wrong.
  std::vector<CollectiveResult> run(CollectiveKind kind, int root,
                                    const std::vector<NpyArray>& blocks);

private:
  struct System;
  System& system(int chips);
  /// The prepared program for `kind` over `chips` chips of `words` 32-bit words per block.
  Program& program(System& s, CollectiveKind kind, DType dtype, int64_t words);

  ArchDescription arch_;
  int firstIndex_;
  std::string workDirectory_;
  std::map<int, std::unique_ptr<System>> systems_;
};

/// The ICI worker's loop: answers each RunCollective arriving on `fd` (docs/device-protocol.md)
/// with a CollectiveService on `arch`, until the server closes it. Returns the exit status.
int serveCollectives(int fd, const ArchDescription& arch);

} // namespace chipless::runtime::remote
