//===- Lowering.h - one tile's KTIR to a core schedule ---------*- C++ -*-===//
//
// Part of chipless. Private to the Dataflow Scheduler. Walks the specialised function of
// one tile op by op and builds its CoreSchedule: every tensor value gets a place in the
// scratchpad (TVal), every op the steps of the engines that compute it.
//
//   ktdp.load / ktdp.store           dma_in / dma_out descriptors (LowerMemory.cpp; access
//                                    tiles in MemoryViews.cpp, gathers and scatters in
//                                    LowerIndirect.cpp; MemoryLowering.h)
//   elementwise arith, math, linalg,
//   spyreop, linalg.generic          load unit streams -> SFU -> store unit, per corelet
//                                    (LowerElementwise.cpp, streams in LowerCompute.cpp)
//   linalg.reduce                    sfu.acc.* across sticks, sfu.lane.* within a stick
//                                    (LowerReduce.cpp)
//   linalg.matmul                    PT-array tiles (LowerMatmul.cpp)
//   linalg.transpose                 DMA out to a job buffer, dma.loadb back one element
//                                    per run (LowerTranspose.cpp)
//   fill, splat, broadcast, dense    values in every lane (SFU registers), materialised
//   constants                        only when a buffer is needed (LowerFillCopy.cpp)
//   expand/collapse_shape,
//   extract_slice, extract           views of a buffer
//   scf.for / scf.if                 loop nodes; iter_args and results in buffers
//                                    (LowerControlFlow.cpp)
//   inter_tile_produce + reduce,
//   reduce_scatter, consume          ring collectives (LowerCollective.cpp)
//   inter_tile_gather, _scatter,     ring gather / all-gather, scatter, all-to-all
//   _all_to_all                      (LowerGather.cpp)
//
//===----------------------------------------------------------------------===//

#ifndef DATAFLOW_LIB_SCHEDULER_LOWERING_H
#define DATAFLOW_LIB_SCHEDULER_LOWERING_H

#include "Kernel.h"
#include "Schedule.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "support/spyre_arch.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace chipless::sched {

/// A value in every lane of a stick: a constant, the stick of a lane-uniform buffer, or a
/// real scalar bound at launch.
struct Scalar {
  bool isConst = true;
  double value = 0;
  int buffer = -1;    ///< !isConst: the buffer holding the stick (-1 for a launch symbol)
  int64_t offset = 0; ///< its byte offset in the buffer (a multiple of the stick)
  std::string symbol; ///< !isConst: the real scalar (`%eps: f16`) it is, or ""
  /// Whether the value sits in a scratchpad buffer (a stick the load unit streams).
  bool inBuffer() const { return !isConst && symbol.empty(); }
};

/// Where a tensor value is: a strided view of a scratchpad buffer, or one value in every
/// element (not materialised until something needs memory).
struct TVal {
  enum class Kind { Buffer, Uniform } kind = Kind::Buffer;
  std::vector<int64_t> shape; ///< the tensor's shape (rank 0 allowed)
  mlir::Type elem;            ///< element type in storage and on the SFU
  // Buffer
  int buffer = -1;
  int64_t offset = 0;           ///< bytes into the buffer
  std::vector<int64_t> strides; ///< bytes per step of each dimension (0: broadcast)
  bool sparse = false;          ///< one element per stick, every lane of it equal
  std::optional<double> pad;    ///< value of the lanes past each row's last element
  // Uniform
  Scalar scalar;

  int64_t rank() const { return static_cast<int64_t>(shape.size()); }
  int64_t elements() const;
};

/// A value of `shape` equal in every element, held in the stick at byte 0 of `buffer`.
inline TVal uniformInStick(llvm::ArrayRef<int64_t> shape, mlir::Type elem, int buffer) {
  TVal u;
  u.kind = TVal::Kind::Uniform;
  u.shape.assign(shape.begin(), shape.end());
  u.elem = elem;
  u.scalar.isConst = false;
  u.scalar.buffer = buffer;
  u.scalar.offset = 0;
  return u;
}

/// `t`'s shape, with a rank-0 value read as one element of rank 1 (the SFU streams and
/// reductions walk at least one dimension: the lanes).
inline std::vector<int64_t> normShape(const TVal& t) {
  return t.shape.empty() ? std::vector<int64_t>{1} : t.shape;
}

/// Options of the lowering that come from the command line.
struct LowerOptions {
  bool doubleBuffer = true;
  /// Large loads, and stores moved into a loop's last iteration, are cut into transfers
  /// of at most this many bytes (whole rows), so the engine on the other side can start
  /// on the first chunk. A scheduling choice; the scheduler sets it to the output a PT
  /// array accumulates at a time (pt.accumulator_bytes in spyre.yaml).
  int64_t transferChunkBytes = 0;
  /// Every inter-tile exchange of the kernel (by locationKey, the same on every tile)
  /// numbered from 0: exchange k's READY token is `sync.tokens_per_core - 2 - k`, its
  /// ARRIVE token `sync.tokens_per_core - 1`. A READY token per exchange keeps a core that
  /// runs ahead into a later exchange from having its READY counted by an earlier one
  /// (which would let a sender overwrite a buffer its receiver still reads).
  std::map<std::string, int> exchangeIndex;
};

/// The inter-tile exchanges (ring deliveries) of `funcs`, numbered as
/// LowerOptions::exchangeIndex wants.
std::map<std::string, int> numberExchanges(llvm::ArrayRef<mlir::func::FuncOp> funcs);

/// Ops that only compute scalars for addresses and sizes, or describe memory: evaluated
/// when a load, store or loop needs them (Lowering.cpp).
bool isLazy(mlir::Operation* op);

/// The parts of a delivery op the gather, scatter and all-to-all lowerings share
/// (LowerGather.cpp).
struct Delivery;

class Lowering {
public:
  Lowering(mlir::func::FuncOp func, int core, int numTiles, const KernelArgs& args,
           const SpyreArch& arch, CoreSchedule& out, const LowerOptions& options);
  /// Builds the schedule; false after reporting errors at the ops.
  mlir::LogicalResult run();

  // ---- shared helpers -----------------------------------------------------------------
  int64_t stick() const { return arch_.chip.stick_bytes; }
  int64_t esize(mlir::Type t) const;
  int64_t lanes(mlir::Type t) const { return elementsInStick(stick(), esize(t)); }
  /// Sticks that `elements` elements of type `t` fill (a row padded to whole sticks).
  int64_t sticksOf(int64_t elements, mlir::Type t) const {
    return (elements + lanes(t) - 1) / lanes(t);
  }
  /// A new buffer of `bytes`, for `what`.
  int newBuffer(int64_t bytes, const std::string& what);
  /// A dense value of `shape` in a new buffer (rows padded to whole sticks).
  TVal newDense(llvm::ArrayRef<int64_t> shape, mlir::Type elem, const std::string& what);
  /// A dense buffer that other cores write over the ring for inter-tile op `op`: keyed by
  /// the op's location (and `role`, for a second buffer of the same op), so it sits at the
  /// same scratchpad address on every core.
  TVal exchangeBuffer(llvm::ArrayRef<int64_t> shape, mlir::Type elem, mlir::Operation* op,
                      const std::string& role = "");
  /// A lane-uniform value of `shape`: one stick per element.
  TVal newSparse(llvm::ArrayRef<int64_t> shape, mlir::Type elem, const std::string& what);
  /// Canonical strides of a dense or sparse value of `shape`.
  std::vector<int64_t> denseStrides(llvm::ArrayRef<int64_t> shape, mlir::Type elem) const;
  std::vector<int64_t> sparseStrides(llvm::ArrayRef<int64_t> shape) const;
  /// Bytes of a dense value (rows padded to whole sticks).
  int64_t denseBytes(llvm::ArrayRef<int64_t> shape, mlir::Type elem) const;

  /// Appends a step to the current node; returns it for the caller to fill.
  Step& addStep(int engine, mlir::Location loc, const std::string& text);
  /// A fresh op-group id (steps of one op never conflict with each other).
  int newGroup() { return nextGroup_++; }
  /// Scratchpad access of `bytes` bytes at `offset` of `buffer`.
  static Access scratch(int buffer, int64_t offset, int64_t bytes, bool write);
  /// A step of `group` on corelet 0's load unit: `sticks` sticks of `buffer` from byte
  /// `offset`, `pitch` bytes apart (none: the stream's own stride, one stick), into in0.
  void streamSticksIn(int group, mlir::Location loc, const std::string& text, int buffer,
                      int64_t offset, int64_t sticks, std::optional<int64_t> pitch);
  /// A step of `group` on corelet 0's store unit: the `sticks` sticks the compute unit
  /// sends to out0, into `buffer` from byte `offset`, `pitch` bytes apart (as above).
  void streamSticksOut(int group, mlir::Location loc, const std::string& text, int buffer,
                       int64_t offset, int64_t sticks, std::optional<int64_t> pitch);
  /// The tensor value of `v`, or failure (reported) when it is not known.
  mlir::FailureOr<TVal> value(mlir::Value v);
  mlir::FailureOr<Expr> index(mlir::Value v) { return eval_.eval(v); }
  void bind(mlir::Value v, const TVal& t) { values_[v] = t; }

  /// Writes `t` into a buffer if it is uniform or not in the canonical dense layout.
  mlir::FailureOr<TVal> materialize(const TVal& t, mlir::Location loc, const std::string& what);
  /// Copies `src` into the dense value `dst` (same shape).
  mlir::LogicalResult copyInto(const TVal& src, const TVal& dst, mlir::Location loc);
  /// A lane-uniform stick holding `t`'s single element (a reduction result, or a
  /// one-element tensor whose padding is known). With `alone` (the element is the only one
  /// of its stick: a one-element tensor, a row of one), an unknown padding is written first.
  mlir::FailureOr<Scalar> scalarOf(const TVal& t, mlir::Location loc, bool alone = false);
  /// Whether `t` broadcasts a dense vector along the lanes (a per-row value: the last
  /// dimension has stride 0 over more than one element), which the SFU streams cannot read
  /// as it is.
  bool broadcastsAlongLanes(const TVal& t) const;
  /// `t` as such a value is read: every element of the vector in every lane of a stick of
  /// its own (sfu.lane.bcast), a lane-uniform value with `t`'s shape.
  mlir::FailureOr<TVal> spreadAlongLanes(const TVal& t, mlir::Location loc);
  /// The reverse: `t`, one element per lane-uniform stick (reduction results), packed into
  /// dense rows, so that it can meet a dense value of its shape in an SFU op (a running
  /// maximum carried by a loop next to a row's new maximum). Lanes past each row's last
  /// element hold its last element.
  mlir::FailureOr<TVal> packSparse(const TVal& t, mlir::Location loc);
  /// Writes `value` into the lanes past each row's last element of `t` (a dense value whose
  /// rows end inside a stick), in place: sfu.lane.mask and sfu.select over the last stick
  /// of every row. What is known of the buffer's padding is forgotten; `t` with `pad` set is
  /// returned.
  mlir::FailureOr<TVal> padRows(const TVal& t, double value, mlir::Location loc);

  /// `linalg.index dim` of a generic over `shape`: each element's position along loop
  /// `dim`, as i32 (LowerIndex.cpp).
  mlir::FailureOr<TVal> loopIndex(mlir::Operation* op, unsigned dim, llvm::ArrayRef<int64_t> shape);
  /// Index value `e` (of loop variables, tile positions and launch values), as an `elem`
  /// (i32, or a float: the value rounded, as arith.sitofp) equal in every element of a
  /// value of `shape`: one stick the compute unit fills with sfu.splat.int where the step
  /// runs (LowerIndex.cpp).
  mlir::FailureOr<TVal> indexInStick(mlir::Location loc, const Expr& e,
                                     llvm::ArrayRef<int64_t> shape, mlir::Type elem = {});
  /// Whether `op` converts element types (arith.extf, truncf, sitofp, fptosi).
  static bool isConversion(mlir::Operation* op);
  /// `src` converted to element type `to` as a value of `shape` by conversion `op`
  /// (sfu.cvt, LowerConvert.cpp): a new buffer, or a folded or lane-uniform value.
  mlir::FailureOr<TVal> convert(mlir::Operation* op, const TVal& src, mlir::Type to,
                                llvm::ArrayRef<int64_t> shape);
  /// An elementwise SFU computation over `out`'s shape: dst = kind(operands...).
  struct EwOperand {
    TVal value;
  };
  /// `corelet` >= 0 puts all of the work on that corelet (else it is split over them).
  mlir::LogicalResult elementwise(llvm::StringRef kind, llvm::ArrayRef<TVal> operands,
                                  const TVal& out, mlir::Location loc, const std::string& text,
                                  int corelet = -1);

  const SpyreArch& arch() const { return arch_; }
  const KernelArgs& args() const { return args_; }
  CoreSchedule& schedule() { return out_; }
  int core() const { return core_; }
  int numTiles() const { return numTiles_; }
  mlir::func::FuncOp func() { return func_; }
  /// Whether the schedule runs ring protocols (which reserve two tokens).
  bool usesRing() const { return usesRing_; }
  /// The READY token of the exchange `op` (LowerOptions::exchangeIndex) and the ARRIVE
  /// token all exchanges share.
  int readyToken(mlir::Operation* op) const;
  int arriveToken() const;

private:
  mlir::LogicalResult lowerBlock(mlir::Block& block);
  mlir::LogicalResult lowerOp(mlir::Operation* op);
  mlir::LogicalResult lowerFor(mlir::scf::ForOp op);
  mlir::LogicalResult lowerIf(mlir::scf::IfOp op);
  mlir::LogicalResult lowerElementwise(mlir::Operation* op);
  mlir::LogicalResult lowerGeneric(mlir::Operation* op);
  mlir::LogicalResult lowerReduce(mlir::Operation* op);
  mlir::LogicalResult lowerMatmul(mlir::Operation* op);
  /// A 2-D linalg.transpose through a device-memory buffer of the job (LowerTranspose.cpp).
  mlir::LogicalResult lowerTranspose(mlir::Operation* op);
  /// The dense matrix `src` [R, C] transposed on the SFU (R at most a stick's lanes): a
  /// new dense [C, R] (LowerTranspose.cpp).
  mlir::FailureOr<TVal> transposeOnChip(mlir::Operation* op, const TVal& src);
  mlir::LogicalResult lowerLoad(mlir::Operation* op);
  mlir::FailureOr<bool> copyInChunks(mlir::Operation* op);
  mlir::LogicalResult lowerStore(mlir::Operation* op);
  /// The block of the tile's own scratchpad (a `ct_local` view without `ct_id`) that
  /// access tile `tile` reaches, as a value of `shape` read or written in place; nothing
  /// when the tile is on another view; an error at the op or view when it cannot be read
  /// in place (LowerOwnScratchpad.cpp).
  mlir::FailureOr<std::optional<TVal>> ownScratchpadBlock(mlir::Operation* op, mlir::Value tile,
                                                          llvm::ArrayRef<int64_t> shape,
                                                          mlir::Type elem, bool load);
  /// Moves `chunk`, the part of the loaded or stored value starting at `start`, through
  /// the access tile of ktdp.load or ktdp.store `op` (LowerMemory.cpp).
  mlir::LogicalResult moveChunk(mlir::Operation* op, bool load, const TVal& chunk,
                                llvm::ArrayRef<Expr> start);
  /// Loads all of `t` with one transfer (LowerMemory.cpp).
  mlir::LogicalResult loadWhole(mlir::Operation* op, TVal& t);
  /// Loads `t`, in chunks of rows when it is large (ChunkedTransfers.cpp).
  mlir::LogicalResult loadInChunks(mlir::Operation* op, TVal& t);
  /// Moves the ktdp.stores of `loop`'s results that follow it into its last iteration,
  /// in chunks (ChunkedTransfers.cpp); `body` is the loop's node. The stores moved are
  /// added to `sunk`.
  mlir::LogicalResult sinkResultStores(mlir::scf::ForOp loop, Node* body,
                                       std::vector<mlir::Operation*>& sunk);
  mlir::LogicalResult lowerProduce(mlir::Operation* op);
  mlir::LogicalResult lowerReduceDelivery(mlir::Operation* op);
  /// inter_tile_reduce with producer_dependency_per_consumer: every consumer folds the
  /// partials of its own dependency set, point to point (LowerReduceRouted.cpp).
  /// Whether a reduction result of `resShape` can be folded in place of `partial`'s bytes
  /// (same elements, same stick padding, or the same shape); an error at `op` if not.
  mlir::LogicalResult checkFoldable(mlir::Operation* op, const TVal& partial,
                                    llvm::ArrayRef<int64_t> resShape, mlir::Type elem);
  /// This tile's partial of `future` (a dense value, as inter_tile_produce materialises
  /// it; of `bytes` bytes unless that is negative); an internal error at `op` otherwise.
  mlir::FailureOr<TVal> densePartial(mlir::Operation* op, mlir::Value future,
                                     int64_t bytes = -1) const;
  /// inter_tile_consume from one producer per group: a chain per ring direction through
  /// the consumers, pipelined in chunks (LowerConsume.cpp).
  mlir::LogicalResult broadcastChains(mlir::Operation* op,
                                      const std::map<int64_t, int64_t>& sourceOf,
                                      const std::vector<int64_t>& resShape, mlir::Type elem);
  /// inter_tile_gather with producer_dependency_per_consumer: each consumer assembles the
  /// partials of its own set, point to point (LowerGather.cpp).
  mlir::LogicalResult gatherPerConsumer(mlir::Operation* op, const Delivery& d,
                                        mlir::IntegerSet dependency);
  mlir::LogicalResult lowerReducePerConsumer(mlir::Operation* op, const TVal& identity,
                                             const std::string& kind);
  /// inter_tile_consume: a broadcast from one producer per group over the ring.
  mlir::LogicalResult lowerConsume(mlir::Operation* op);
  /// The ring reduce-scatter of `partial` over `producers` (every one a consumer), split
  /// over the leading dimensions `dims`.
  mlir::LogicalResult lowerReduceScatter(mlir::Operation* op, const TVal& partial,
                                         const std::string& kind,
                                         const std::vector<int64_t>& producers,
                                         llvm::ArrayRef<int64_t> dims);
  /// inter_tile_gather: the producers' partials concatenated over the leading dimensions,
  /// to one consumer or (all-gather) to every producer (LowerGather.cpp).
  mlir::LogicalResult lowerGather(mlir::Operation* op);
  /// inter_tile_scatter: one producer's partial split over the leading dimensions, a slice
  /// per consumer (LowerGather.cpp).
  mlir::LogicalResult lowerScatter(mlir::Operation* op);
  /// inter_tile_all_to_all: slice l of every producer to consumer l, split and concatenated
  /// over the leading dimensions (LowerGather.cpp).
  mlir::LogicalResult lowerAllToAll(mlir::Operation* op);
  mlir::LogicalResult lowerViewLike(mlir::Operation* op);
  /// The value `op`'s result should be written to: an operand buffer that dies here, a
  /// loop-carried buffer the result is yielded to, or a new buffer.
  TVal resultBuffer(mlir::Operation* op, mlir::Value result, llvm::ArrayRef<TVal> operands,
                    const std::string& what);
  /// Whether `v` (and every view of it) has no use after `op` in its block, and lives in
  /// `op`'s block (not carried around a loop).
  bool diesAt(mlir::Value v, mlir::Operation* op);
  /// Opens a conditional node (a loop of `taken` iterations, 0 or 1) in the current one
  /// and makes it current; returns the node that was current.
  Node* openConditional(const Expr& taken, const std::string& text);
  /// Fill `t` (dense, in a buffer) with `s` on every element.
  mlir::LogicalResult fill(const TVal& t, const Scalar& s, mlir::Location loc);

  mlir::func::FuncOp func_;
  int core_, numTiles_;
  const KernelArgs& args_;
  const SpyreArch& arch_;
  CoreSchedule& out_;
  LowerOptions options_;
  IndexEval eval_;
  Node* current_ = nullptr;
  int nextLoop_ = 0, nextGroup_ = 0;
  llvm::DenseMap<mlir::Value, TVal> values_;
  /// Values a loop body yields into a loop-carried buffer: result -> destination.
  llvm::DenseMap<mlir::Value, TVal> destinations_;
  /// Futures of inter_tile_produce: the partial each tile contributes.
  llvm::DenseMap<mlir::Value, TVal> futures_;
  int collectives_ = 0;
  int transposes_ = 0; ///< linalg.transpose ops lowered (each has its own job buffer)
  bool usesRing_ = false;
  llvm::DenseSet<mlir::Operation*> handled_; ///< ops already lowered with an earlier one
  /// The buffers of the tile's own scratchpad views, by byte address.
  std::map<int64_t, int> ownBuffers_;
  /// Loop-carried buffers whose loop starts them as zeros: buffer -> the loop's node.
  std::map<int, Node*> zeroInFirstIteration_;
  std::optional<mlir::Location> currentLoc_;
};

} // namespace chipless::sched

#endif // DATAFLOW_LIB_SCHEDULER_LOWERING_H
