//===- LowerCollective.cpp - inter-tile exchanges on the ring -------------===//
//
// Part of chipless. See Lowering.h. `ktdp.inter_tile_produce` names this tile's partial;
// the delivery op moves it over the ring, one step of the core's ring engine that runs a
// whole protocol with the other cores of the group (each core's schedule is built
// separately, but every core of a group runs the same protocol on the same sizes):
//
//  * all-reduce (consumers == producers): the ring algorithm of models/kernels/allreduce.s.
//    The result buffer R starts as a copy of the partial; after a READY handshake with its
//    successor, each core does G-1 reduce-scatter steps (send chunk (j - t) mod G to the
//    successor with op = add) and G-1 all-gather steps (chunk (j + 1 - t) mod G, op = none),
//    waiting for its predecessor's chunk after every step. A partial of fewer sticks than
//    cores has empty chunks: such a step sends one stick into a sink buffer of the
//    successor instead, so that its ARRIVE lands after the previous step's data (the same
//    ring path, in order); a bare token could overtake that data and let the successor
//    read its chunk before the predecessor's addition landed.
//  * reduce to one consumer: the consumer copies its partial into R and tells every
//    producer READY; each producer adds its partial into the consumer's R.
//  * reduce-scatter (inter_tile_reduce_scatter, consumers == producers): the reduce-scatter
//    half of the all-reduce, with the slices shifted by one (step t sends slice
//    (j - 1 - t) mod G) so that slice j of the sum completes on core j; the result is a
//    view of that slice of R. Slices are split over the leading dimensions, so each is one
//    contiguous run of whole sticks.
//
// Token ids at the top of every core's bank are reserved for the protocols: ARRIVE (data
// landed) and one READY per exchange op (from the core that will receive;
// LowerOptions::exchangeIndex). Each is only ever sent by one kind of sender to one waiting
// engine (the ring engine), so counts stay in step. inter_tile_consume: LowerConsume.cpp.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"
#include "RingGroups.h"
#include "dataflow/Dialect/Dfir/DfirOps.h"
#include "ktir/Dialect/Ktdp/KtdpOps.h"
#include "ktir/Dialect/Ktdp/KtdpTileSets.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace mlir;

namespace chipless::sched {

namespace {

/// add, max or min from a delivery combiner (linalg named op, arith op or generic body).
std::string combinerOf(Region& region) {
  Block& b = region.front();
  auto yield = b.getTerminator();
  if (yield->getNumOperands() != 1) return "";
  Operation* def = yield->getOperand(0).getDefiningOp();
  if (!def) return "";
  if (isa<linalg::AddOp, arith::AddFOp, arith::AddIOp>(def)) return "add";
  if (isa<linalg::MaxOp, arith::MaximumFOp, arith::MaxNumFOp>(def)) return "max";
  if (isa<linalg::MinOp, arith::MinimumFOp, arith::MinNumFOp>(def)) return "min";
  return "";
}

/// The start of the ring protocols: R = partial (a copy through this core's ring engine),
/// then READY to the predecessor, which may now add into R, and the wait for the
/// successor's READY. False when the group is this core alone (nothing more to do).
bool beginRingExchange(ProgramWriter& w, int me, int pbuf, int rbuf, int64_t bytes, int G, int prev,
                       int ready, Type dtype) {
  w.b.create<dfir::RingSendOp>(w.loc, w.c(me), w.get(w.addr(pbuf)), w.get(w.addr(rbuf)), w.c(bytes),
                               StringAttr(), StringAttr(), Value(), Value(), TypeAttr::get(dtype));
  if (G == 1) return false;
  w.b.create<dfir::TokenSendOp>(w.loc, w.c(ready), w.c(prev));
  w.b.create<dfir::TokenWaitOp>(w.loc, w.c(ready));
  return true;
}

double identityFor(const std::string& kind) {
  return kind == "max" ? -INFINITY : kind == "min" ? INFINITY : 0.0;
}

} // namespace

LogicalResult Lowering::lowerProduce(Operation* o) {
  auto op = cast<ktdp::InterTileProduceOp>(o);
  auto type = cast<ktdp::TileFutureType>(op.getFuture().getType());
  if (type.getNumPartials() != 1)
    return op.emitOpError("contributes several partials; only one is supported");
  Block& body = op.getBody().front();
  auto yield = body.getTerminator();
  for (int64_t g : groupsOf(type, numTiles_)) {
    auto producers = membersOf(op.getProducerTilesPerGroup().getValue(), g, numTiles_);
    if (!llvm::is_contained(producers, core_)) continue;
    if (futures_.count(op.getFuture()))
      return op.emitOpError("makes this tile produce for several groups; not supported");
    if (body.getNumArguments() > 0) eval_.fixed[body.getArgument(0)] = Expr(g);
    if (failed(lowerBlock(body))) return failure();
    auto t = value(yield->getOperand(0));
    if (failed(t)) return failure();
    auto m = materialize(*t, op.getLoc(), "partial");
    if (failed(m)) return failure();
    futures_[op.getFuture()] = *m;
  }
  return success();
}

namespace {

/// What inter_tile_reduce and inter_tile_reduce_scatter have in common.
struct ReduceDelivery {
  Value future;
  ValueRange identity;
  Region* combiner;
  IntegerSet consumers;
  bool dependency;
  std::optional<ArrayRef<int64_t>> scatterDims; ///< reduce_scatter only
};

ReduceDelivery reduceDeliveryOf(Operation* o) {
  if (auto op = dyn_cast<ktdp::InterTileReduceScatterOp>(o))
    return {op.getFuture(),
            op.getIdentity(),
            &op.getCombiner(),
            op.getConsumerTilesPerGroup().getValue(),
            op.getProducerDependencyPerConsumer().has_value(),
            op.getScatterDimensions()};
  auto op = cast<ktdp::InterTileReduceOp>(o);
  return {op.getFuture(),
          op.getIdentity(),
          &op.getCombiner(),
          op.getConsumerTilesPerGroup().getValue(),
          op.getProducerDependencyPerConsumer().has_value(),
          std::nullopt};
}

} // namespace

LogicalResult Lowering::lowerReduceDelivery(Operation* o) {
  ReduceDelivery op = reduceDeliveryOf(o);
  const bool scatter = op.scatterDims.has_value();
  if (op.dependency && scatter)
    return o->emitOpError("scatters with producer_dependency_per_consumer; not supported (the "
                          "ring reduce-scatter folds every producer)");
  if (o->getNumResults() != 1) return o->emitOpError("delivers several results; not supported");
  auto produce = op.future.getDefiningOp<ktdp::InterTileProduceOp>();
  if (!produce) return o->emitOpError("reduces a future that is not produced in this function");
  std::string kind = combinerOf(*op.combiner);
  if (kind.empty())
    return o->emitOpError("has a combiner that is not an add, max or min (the ring reduces "
                          "with those as data arrives)");
  for (Value id : op.identity) {
    auto t = value(id);
    if (failed(t)) return failure();
    if (t->kind != TVal::Kind::Uniform || !t->scalar.isConst ||
        t->scalar.value != identityFor(kind))
      return o->emitOpError("has an identity that is not the combiner's neutral element");
  }
  if (op.dependency) {
    FailureOr<TVal> identity = value(op.identity.front());
    return lowerReducePerConsumer(o, *identity, kind);
  }
  auto type = cast<ktdp::TileFutureType>(op.future.getType());
  auto resType = cast<RankedTensorType>(o->getResult(0).getType());
  std::vector<int64_t> resShape(resType.getShape().begin(), resType.getShape().end());
  Type elem = resType.getElementType();
  for (int64_t g : groupsOf(type, numTiles_)) {
    auto producers = membersOf(produce.getProducerTilesPerGroup().getValue(), g, numTiles_);
    auto consumers = membersOf(op.consumers, g, numTiles_);
    bool isProducer = llvm::is_contained(producers, core_);
    bool isConsumer = llvm::is_contained(consumers, core_);
    if (!isProducer && !isConsumer) continue;
    const bool allReduce = consumers == producers;
    if (scatter && !allReduce)
      return o->emitOpError("scatters to a set of consumers that is not the producers; the "
                            "ring reduce-scatter gives every producer one slice");
    if (!allReduce && consumers.size() != 1)
      return o->emitOpError("delivers to a set of consumers that is neither the producers nor "
                            "one tile");
    auto pit = futures_.find(op.future);
    if (pit == futures_.end()) return o->emitOpError("internal error: no partial for this tile");
    const TVal partial = pit->second;
    if (scatter) return lowerReduceScatter(o, partial, kind, producers, *op.scatterDims);
    if (failed(checkFoldable(o, partial, resShape, elem))) return failure();
    const int64_t bytes = out_.buffers[static_cast<size_t>(partial.buffer)].bytes;
    TVal result = exchangeBuffer(resShape, elem, o);
    const int stickBytes = static_cast<int>(stick());
    const int64_t sticks = bytes / stickBytes;
    const int G = static_cast<int>(producers.size());
    const int j =
        static_cast<int>(std::find(producers.begin(), producers.end(), core_) - producers.begin());
    const int ready = readyToken(o), arrive = arriveToken();
    usesRing_ = true;
    const int pbuf = partial.buffer, rbuf = result.buffer;
    const int me = core_;
    std::string text =
        (allReduce ? "all-reduce " : "reduce to " + std::to_string(consumers[0]) + " ") + kind +
        " over cores";
    for (int64_t p : producers) text += " " + std::to_string(p);
    // A stick that empty chunks are sent to (see the file comment).
    const int sinkBuf =
        allReduce && sticks < G ? exchangeBuffer({lanes(elem)}, elem, o, "sink").buffer : -1;
    Step& s = addStep(Engines::ring(), o->getLoc(), text);
    s.accesses.push_back(scratch(pbuf, 0, bytes, false));
    s.accesses.push_back(scratch(rbuf, 0, bytes, true));
    if (sinkBuf >= 0) s.accesses.push_back(scratch(sinkBuf, 0, stickBytes, true));
    std::string opName = kind;
    Type dtype = elem;
    if (allReduce) {
      const int next = static_cast<int>(producers[static_cast<size_t>((j + 1) % G)]);
      const int prev = static_cast<int>(producers[static_cast<size_t>((j + G - 1) % G)]);
      s.emit = [=](ProgramWriter& w, int) {
        auto chunk = [&](int c) {
          int64_t lo = static_cast<int64_t>(c) * sticks / G,
                  hi = static_cast<int64_t>(c + 1) * sticks / G;
          return std::make_pair(lo * stickBytes, (hi - lo) * stickBytes);
        };
        auto send = [&](int c, bool reduce) {
          auto [off, n] = chunk(c);
          if (n == 0) {
            w.b.create<dfir::RingSendOp>(w.loc, w.c(next), w.get(w.addr(rbuf)),
                                         w.get(w.addr(sinkBuf)), w.c(stickBytes), StringAttr(),
                                         StringAttr(), w.c(arrive), Value(), TypeAttr::get(dtype));
            return;
          }
          Value at = w.get(w.addr(rbuf, Expr(off)));
          w.b.create<dfir::RingSendOp>(w.loc, w.c(next), at, at, w.c(n), StringAttr(),
                                       reduce ? w.str(opName) : StringAttr(), w.c(arrive), Value(),
                                       TypeAttr::get(dtype));
        };
        if (!beginRingExchange(w, me, pbuf, rbuf, bytes, G, prev, ready, dtype)) return;
        for (int t = 0; t < G - 1; ++t) {
          send(((j - t) % G + G) % G, true);
          w.b.create<dfir::TokenWaitOp>(w.loc, w.c(arrive));
        }
        for (int t = 0; t < G - 1; ++t) {
          send(((j + 1 - t) % G + G) % G, false);
          w.b.create<dfir::TokenWaitOp>(w.loc, w.c(arrive));
        }
      };
    } else {
      const int root = static_cast<int>(consumers[0]);
      std::vector<int64_t> others;
      for (int64_t p : producers)
        if (p != root) others.push_back(p);
      s.emit = [=](ProgramWriter& w, int) {
        if (me == root) {
          w.b.create<dfir::RingSendOp>(w.loc, w.c(me), w.get(w.addr(pbuf)), w.get(w.addr(rbuf)),
                                       w.c(bytes), StringAttr(), StringAttr(), Value(), Value(),
                                       TypeAttr::get(dtype));
          for (int64_t p : others) w.b.create<dfir::TokenSendOp>(w.loc, w.c(ready), w.c(p));
          for (size_t k = 0; k < others.size(); ++k)
            w.b.create<dfir::TokenWaitOp>(w.loc, w.c(arrive));
          return;
        }
        w.b.create<dfir::TokenWaitOp>(w.loc, w.c(ready));
        // R is an exchange buffer: at the same address on every core.
        w.b.create<dfir::RingSendOp>(w.loc, w.c(root), w.get(w.addr(pbuf)), w.get(w.addr(rbuf)),
                                     w.c(bytes), StringAttr(), w.str(opName), w.c(arrive), Value(),
                                     TypeAttr::get(dtype));
      };
    }
    if (isConsumer) bind(o->getResult(0), result);
  }
  return success();
}

LogicalResult Lowering::checkFoldable(Operation* o, const TVal& partial, ArrayRef<int64_t> resShape,
                                      Type elem) {
  // The result lies in the scratchpad as the partial does: same bytes, same order.
  int64_t n = 1;
  for (int64_t d : resShape) n *= d;
  if (partial.elements() != n)
    return o->emitOpError("returns a tensor with another number of elements than the partial");
  const int64_t bytes = out_.buffers[static_cast<size_t>(partial.buffer)].bytes;
  const int64_t lanesPer = lanes(elem);
  if (denseBytes(resShape, elem) != bytes ||
      (partial.shape.empty() ? 1 : partial.shape.back()) % lanesPer != 0 ||
      (resShape.empty() ? 1 : resShape.back()) % lanesPer != 0) {
    if (ArrayRef<int64_t>(partial.shape) != resShape)
      return o->emitOpError("reshapes the partial into rows that are padded differently; "
                            "not supported");
  }
  return success();
}

LogicalResult Lowering::lowerReduceScatter(Operation* o, const TVal& partial,
                                           const std::string& kind,
                                           const std::vector<int64_t>& producers,
                                           ArrayRef<int64_t> dims) {
  auto resType = cast<RankedTensorType>(o->getResult(0).getType());
  std::vector<int64_t> resShape(resType.getShape().begin(), resType.getShape().end());
  Type elem = resType.getElementType();
  const int G = static_cast<int>(producers.size());
  // Slice l of the sum must be one contiguous run of R (the partial's dense layout):
  // the partial is split over its leading dimensions.
  for (size_t k = 0; k < dims.size(); ++k)
    if (dims[k] != static_cast<int64_t>(k))
      return o->emitOpError("scatters over dimensions that are not the leading ones; the ring "
                            "reduce-scatter splits the sum into slices that are contiguous in "
                            "the scratchpad (scatter_dimensions = [0], [0, 1], ...)");
  if (partial.sparse || partial.offset != 0 ||
      partial.strides != denseStrides(partial.shape, partial.elem))
    return o->emitOpError("internal error: the partial is not a dense value");
  const size_t rank = partial.shape.size();
  int64_t flat = 1;
  for (size_t k = 0; k < dims.size(); ++k) flat *= partial.shape[k];
  if (rank == 0 || flat % G != 0)
    return o->emitOpError("splits ") << flat << " rows over " << G << " consumers";
  const int64_t es = esize(elem);
  int64_t unit = dims.size() < rank ? partial.strides[dims.size() - 1] : es;
  if (dims.size() == rank && rank >= 2 && (partial.shape.back() * es) % stick() != 0)
    return o->emitOpError("scatters over every dimension of a partial whose rows end inside a "
                          "stick; the slices would not be contiguous");
  const int64_t sliceBytes = flat / G * unit;
  if (sliceBytes % stick() != 0)
    return o->emitOpError("gives every consumer a slice of ")
           << sliceBytes << " bytes, not a whole number of " << stick()
           << "-byte sticks; the ring moves whole sticks";
  if (denseBytes(resShape, elem) != sliceBytes)
    return o->emitOpError("returns a slice laid out with other row padding than the partial; "
                          "not supported");
  const int64_t bytes = out_.buffers[static_cast<size_t>(partial.buffer)].bytes;
  TVal whole = exchangeBuffer(partial.shape, elem, o);
  const int j =
      static_cast<int>(std::find(producers.begin(), producers.end(), core_) - producers.begin());
  const int ready = readyToken(o), arrive = arriveToken();
  usesRing_ = true;
  const int next = static_cast<int>(producers[static_cast<size_t>((j + 1) % G)]);
  const int prev = static_cast<int>(producers[static_cast<size_t>((j + G - 1) % G)]);
  const int pbuf = partial.buffer, rbuf = whole.buffer;
  const int me = core_;
  std::string text = "reduce-scatter " + kind + " over cores";
  for (int64_t p : producers) text += " " + std::to_string(p);
  Step& s = addStep(Engines::ring(), o->getLoc(), text);
  s.accesses.push_back(scratch(pbuf, 0, bytes, false));
  s.accesses.push_back(scratch(rbuf, 0, bytes, true));
  const std::string opName = kind;
  s.emit = [=](ProgramWriter& w, int) {
    if (!beginRingExchange(w, me, pbuf, rbuf, bytes, G, prev, ready, elem)) return;
    // Step t sends slice (j - 1 - t) mod G, with add-on-arrival, to the successor; the
    // slice that completes here in the last step is slice j.
    for (int t = 0; t < G - 1; ++t) {
      int c = ((j - 1 - t) % G + G) % G;
      Value at = w.get(w.addr(rbuf, Expr(c * sliceBytes)));
      w.b.create<dfir::RingSendOp>(w.loc, w.c(next), at, at, w.c(sliceBytes), StringAttr(),
                                   w.str(opName), w.c(arrive), Value(), TypeAttr::get(elem));
      w.b.create<dfir::TokenWaitOp>(w.loc, w.c(arrive));
    }
  };
  // This core's slice: a view of R.
  TVal mine;
  mine.kind = TVal::Kind::Buffer;
  mine.shape = resShape;
  mine.elem = elem;
  mine.buffer = whole.buffer;
  mine.offset = static_cast<int64_t>(j) * sliceBytes;
  mine.strides = denseStrides(resShape, elem);
  bind(o->getResult(0), mine);
  return success();
}

} // namespace chipless::sched
