#pragma once
/// Collectives between the processes of a device server (what `tpu_dist` and `spyre_dist`
/// carry): each rank sends its block, and the server runs the collective as a program on an
/// emulated network, so the result and the modelled time come from the simulated hardware:
/// `tpu_dist` on a TPU system of one chip per rank over its ICI links
/// (runtime/remote/ici_collectives.h), `spyre_dist` on a Spyre card whose ring joins one group
/// of cores per rank (runtime/remote/ring_collectives.h). What both do alike (checking the
/// blocks, laying them out as the program's rows, cutting the results out) is written once
/// here; each network says only how it runs a program.
#include "runtime/device.h"

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
  Send = 5,          ///< to one rank (the root names it): the block, over one hop
  Recv = 6,          ///< from one rank (the root names it): its sent block
};
/// "all_reduce", ...
const char* collectiveName(CollectiveKind kind);

/// Which emulated network carries a group's collectives; the values are the protocol's.
enum class CollectiveNetwork : uint8_t {
  Ici = 0,  ///< `tpu_dist`: the ICI links of a TPU system, one chip per rank
  Ring = 1, ///< `spyre_dist`: a Spyre card's ring, one group of cores per rank
};
/// The torch.distributed backend that uses `network` ("tpu_dist", "spyre_dist"); errors
/// about a collective start with it.
const char* networkBackend(CollectiveNetwork network);

/// What a collective gives one rank.
struct CollectiveResult {
  NpyArray block;     ///< the rank's result (AllGather: size blocks stacked along a new dim 0)
  double seconds = 0; ///< modelled time of the collective on the network
  double cycles = 0;  ///< the same in chip cycles
  int source = -1;    ///< a send's or receive's other rank (a receive from any source: its sender)
};

/// Runs collectives on an emulated network. run() checks the blocks and lays them out as
/// rows of X (one per rank, every block padded to the network's quantum); the network runs
/// its program on X and returns Y (one row per rank), from which run() cuts each rank's
/// result.
class CollectiveService {
public:
  virtual ~CollectiveService();
  /// Runs `kind` over `blocks` (one per rank, each of the same dtype and shape; ReduceScatter:
  /// dimension 0 is the number of ranks) with `root` for Broadcast; Send over the sender's and
  /// the receiver's blocks, in that order. Returns one result per rank (Send: nothing for the
  /// sender, the block for the receiver). Errors name the backend, the collective and what is
  /// wrong.
  std::vector<CollectiveResult> run(CollectiveKind kind, int root,
                                    const std::vector<NpyArray>& blocks);

protected:
  /// A network's program run over the rows of X.
  struct Ran {
    NpyArray y;         ///< one row per rank
    double cycles = 0;  ///< modelled cycles of the launch
    double seconds = 0; ///< the same in seconds
  };
  explicit CollectiveService(CollectiveNetwork network) : network_(network) {}
  /// Whether the network sums elements of `dtype` (the others move as raw 32-bit words).
  virtual bool sums(DType dtype) const = 0;
  /// What the network runs for `kind`: itself, or another collective that does its job (a
  /// broadcast as a gather, or as a sum of the root's block with zeros; a barrier as a sum).
  virtual CollectiveKind programKind(CollectiveKind kind) const = 0;
  /// The elements of `wire` each part of a rank's row is padded to, at least `elements`, for
  /// `program` over `ranks` ranks (a row holds `ranks` parts for a reduce-scatter's input,
  /// else one).
  virtual int64_t paddedPart(CollectiveKind program, DType wire, int ranks,
                             int64_t elements) const = 0;
  /// Runs `program` over `x` ([ranks, parts * part] of `wire`); Send: row 0 to row 1.
  virtual Ran launch(CollectiveKind program, DType wire, const NpyArray& x, int64_t part) = 0;
  /// The most elements of `wire` a part of a rank's row may have in one launch of `program`
  /// over `ranks` ranks (0: no limit); run() cuts larger blocks into slices and runs one
  /// launch per slice.
  virtual int64_t maxPart(CollectiveKind, DType, int) const { return 0; }

private:
  /// run() of blocks whose parts are over maxPart(), one launch per slice of every part.
  std::vector<CollectiveResult> runSliced(CollectiveKind kind, int root,
                                          const std::vector<NpyArray>& blocks, uint64_t sliceBytes);

  CollectiveNetwork network_;
};

/// The network worker's loop: answers each RunCollective arriving on `fd`
/// (docs/device-protocol.md) with `service`, until the server closes it. Returns the exit
/// status.
int serveCollectives(int fd, CollectiveService& service, const std::string& name);

} // namespace chipless::runtime::remote
