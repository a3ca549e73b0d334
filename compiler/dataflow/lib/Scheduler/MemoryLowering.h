//===- MemoryLowering.h - DMA transfers of ktdp loads and stores *- C++ -*-===//
//
// Part of chipless. Private to the Dataflow Scheduler. A ktdp.load or ktdp.store goes
// through an access tile on a memory view (or a distributed view of several). The tile is
// cut into pieces, one per partition it touches (MemoryViews.cpp); every piece becomes DMA
// descriptors between the partition's global memory and the value's buffer
// (LowerMemory.cpp). Indirect access tiles gather and scatter element by element
// (LowerIndirect.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef DATAFLOW_LIB_SCHEDULER_MEMORYLOWERING_H
#define DATAFLOW_LIB_SCHEDULER_MEMORYLOWERING_H

#include "Lowering.h"
#include "ktir/Dialect/Ktdp/KtdpOps.h"

#include <optional>
#include <string>
#include <vector>

namespace chipless::sched {

/// The memory of one (partition) view.
struct ViewPart {
  std::string arg; ///< tensor argument (device address symbol)
  Expr base;       ///< element offset of the view's origin in the argument
  std::vector<Expr> strides;
  std::vector<int64_t> coordLo, coordHi; ///< coordinate box (global coordinates), if any
  bool hasBox = false;
  /// Per dimension, the view's size when it is only known at launch (a scalar), else
  /// nullopt: an access tile that may reach past it is clamped to it (masked).
  std::vector<std::optional<Expr>> launchSizes;
  mlir::Type elem;
};

/// The memory behind a view: one part, or the partitions of a distributed view.
struct ViewDesc {
  std::vector<ViewPart> parts;
  bool distributed = false;
};

/// One DMA dimension: count (an expression when the tile's position in a distributed view
/// is only known at run time), memory stride and scratchpad stride in bytes.
struct DmaDim {
  Expr count;
  Expr mem; ///< bytes between runs in device memory (a launch value for a view whose
            ///< strides are: the row length of a tensor sized at launch)
  int64_t sp;
};

/// A transfer between a partition and a value's buffer.
struct Piece {
  std::string arg;
  Expr mem;                   ///< byte offset in the argument of the first run
  Expr sp;                    ///< byte offset in the buffer of the first run
  Expr run;                   ///< bytes per run
  std::vector<DmaDim> dims;   ///< innermost first
  bool dynamic = false;       ///< routed at run time: counts may be 0
  bool masked = false;        ///< clamped to a view sized at launch: elements may be left out
  int64_t spLo = 0, spHi = 0; ///< the buffer bytes it may touch
};

/// The DMA side of one tile's lowering: views, access tiles and their transfers.
class MemoryLowering {
public:
  explicit MemoryLowering(Lowering& l) : l_(l) {}

  /// The memory behind view `v`; `partition`: it is a partition of a distributed view
  /// (whose coordinate box must be known when the kernel is compiled) (MemoryViews.cpp).
  mlir::FailureOr<ViewDesc> view(mlir::Value v, bool partition = false);
  /// The transfers of `value` through access tile `tile`; with `chunkStart`, `value` is the
  /// chunk of the tile's tensor that starts there (strip-mining) (MemoryViews.cpp).
  mlir::FailureOr<std::vector<Piece>> pieces(mlir::Operation* op, mlir::Value tile,
                                             const TVal& value,
                                             llvm::ArrayRef<Expr> chunkStart = {});
  /// A gather (load) or scatter (store) through an indirect access tile (LowerIndirect.cpp).
  mlir::LogicalResult indirect(mlir::Operation* op, bool load,
                               mlir::ktdp::ConstructIndirectAccessTileOp tile, const TVal& value,
                               llvm::ArrayRef<Expr> chunkStart = {});
  /// The DMA steps of `pieces` between memory and `value`'s buffer (LowerMemory.cpp).
  mlir::LogicalResult transfer(mlir::Operation* op, bool load, const std::vector<Piece>& pieces,
                               const TVal& value);

private:
  bool mayReachPast(const Expr& size, const Expr& start, int64_t extent) const;
  Lowering& l_;
};

} // namespace chipless::sched

#endif // DATAFLOW_LIB_SCHEDULER_MEMORYLOWERING_H
