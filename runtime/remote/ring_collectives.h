#pragma once
/// `spyre_dist`'s network: collectives run on an emulated Spyre card whose ring joins the
/// ranks, each rank a group of neighbouring cores (what a share of the card is). A rank's
/// block is cut into pieces, one per core of its group and round; each core runs the classic
/// ring algorithm with its counterparts in the other groups (a reduce-scatter whose
/// `ring.send ... op=add` sums as the data arrives, then an all-gather), neighbouring rings
/// running in opposite directions so that both directions of every link carry data. The
/// ring sums f16 (the card's own format), f32 and i32; other element types move as raw
/// 32-bit words. docs/device-server.md, "spyre_dist", shows the programs' shape.
#include "runtime/remote/collectives.h"
#include "support/spyre_arch.h"

#include <map>
#include <memory>
#include <string>
#include <tuple>

namespace chipless::runtime::remote {

class RingCollectives : public CollectiveService {
public:
  /// The card is opened on the Spyre description `arch` as device `index` (apart from the
  /// server's own devices); program directories go under `workDirectory`.
  RingCollectives(const ArchDescription& arch, int index, std::string workDirectory);
  ~RingCollectives() override;

  /// How a collective's block is divided: `cores` per rank, each moving `rounds` pieces of
  /// `chunk` sticks per block (so a rank's block is cores * rounds * chunk sticks).
  struct Division {
    int64_t cores = 1;
    int64_t chunk = 1;
    int64_t rounds = 1;
    int64_t sticks() const { return cores * chunk * rounds; }
  };
  /// The division of a block of `sticks` sticks for `program` over `ranks` ranks: as many
  /// cores per rank as the card has for each (at most one per stick); rounds enough for
  /// chunks to fit the planning scratchpad twice over (every rank's chunk of a piece is
  /// resident on each core, in two buffers), and up to 8 rounds where each still moves 16
  /// sticks or more, so that DMA and ring steps overlap. Dividing a division's own sticks
  /// gives it back.
  Division divide(CollectiveKind program, int ranks, int64_t sticks) const;

protected:
  bool sums(DType dtype) const override;
  CollectiveKind programKind(CollectiveKind kind) const override;
  int64_t paddedPart(CollectiveKind program, DType wire, int ranks,
                     int64_t elements) const override;
  Ran launch(CollectiveKind program, DType wire, const NpyArray& x, int64_t part) override;
  /// What keeps a row of X or Y (a core's pieces span it) within dram.core_span_bytes.
  int64_t maxPart(CollectiveKind program, DType wire, int ranks) const override;

private:
  /// The prepared program for `program` of `wire` over `ranks` ranks of `cores` cores.
  Program& prepared(CollectiveKind program, DType wire, int ranks, int64_t cores);
  /// Sticks in one block of a part of `elements` elements of `wire` (an all-reduce's part is
  /// `ranks` blocks).
  int64_t blockSticks(CollectiveKind program, int ranks, int64_t elements, DType wire) const;

  SpyreArch arch_;
  int index_;
  std::string workDirectory_;
  std::unique_ptr<Device> card_;
  std::map<std::tuple<int, DType, int, int64_t>, std::unique_ptr<Program>> programs_;
};

} // namespace chipless::runtime::remote
