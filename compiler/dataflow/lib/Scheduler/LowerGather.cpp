//===- LowerGather.cpp - gather, all-gather and scatter on the ring -------===//
//
// Part of chipless. See Lowering.h and LowerCollective.cpp (the READY / ARRIVE tokens).
// Both ops move whole partials or slices without combining them, so each piece is one
// contiguous run of sticks: the pieces are stacked along dimension 0 (the concatenated
// or split dimensions must be the leading ones, and only the first of them changes size).
//
//  * gather to one consumer: the consumer copies its partial into its slot of the result R
//    (an exchange buffer, at one address on every core) and tells every other producer
//    READY; producer k then writes its partial into slot k of the consumer's R (ARRIVE on
//    landing), and the consumer waits for P - 1 arrivals.
//  * all-gather (consumers == producers): the all-gather half of the ring all-reduce. Each
//    core copies its partial into its slot of R, trades READY with its neighbours, and in
//    step t = 0 .. P-2 sends slot (j - t) mod P to its successor, waiting for its
//    predecessor's slot after each step.
//  * gather with producer_dependency_per_consumer: consumer c assembles the partials of
//    its own set, in ascending tile order; it copies its own (if in the set) into its slot
//    and tells the others READY; each producer waits for READY from every consumer that
//    gathers it and writes its partial into its slot of each one's R (ARRIVE on landing).
//  * scatter (one producer per group): every other consumer tells the producer READY; the
//    producer sends slice l of its partial into consumer l's exchange buffer (ARRIVE on
//    landing). The producer's own result, when it is a consumer, is a view of its slice.
//  * all-to-all (consumers == producers): every core copies slice j of its partial into
//    slot j of its result R, tells every other core READY, waits for theirs, then sends
//    slice l of its partial into slot j of core l's R (ARRIVE on landing) and waits for
//    P - 1 arrivals: P (P - 1) point-to-point sends, each the short way round.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"
#include "RingGroups.h"
#include "dataflow/Dialect/Dfir/DfirOps.h"

#include <algorithm>

using namespace mlir;

namespace chipless::sched {

/// What every delivery op of this file starts from.
struct Delivery {
  ktdp::InterTileProduceOp produce;
  ktdp::TileFutureType type;
  RankedTensorType partType;
  std::vector<int64_t> resShape;
  Type elem;
};

namespace {

/// Checks that `whole` is `pieces` tensors of shape `piece` stacked along dimension 0,
/// with `dims` the leading dimensions; an error naming `what` otherwise.
LogicalResult checkStacked(Operation* o, llvm::StringRef what, ArrayRef<int64_t> dims,
                           ArrayRef<int64_t> piece, ArrayRef<int64_t> whole, int64_t pieces) {
  for (size_t k = 0; k < dims.size(); ++k)
    if (dims[k] != static_cast<int64_t>(k))
      return o->emitOpError() << what << " over dimensions that are not the leading ones; the "
                              << "ring moves each piece as one contiguous run of the scratchpad",
             failure();
  bool stacked = piece.size() == whole.size() && !piece.empty() && whole[0] == piece[0] * pieces;
  for (size_t k = 1; stacked && k < piece.size(); ++k) stacked = whole[k] == piece[k];
  if (!stacked)
    return o->emitOpError() << what << " pieces that are not stacked along dimension 0 (the "
                            << "result must keep every other dimension of the partial)",
           failure();
  return success();
}

/// Checks the parts of delivery op `o` (of `future`, routed when `routed`) that this file
/// does not lower; `verb` names what it does in messages.
FailureOr<Delivery> deliveryOf(Operation* o, Value future, bool routed, llvm::StringRef verb) {
  if (routed)
    return o->emitOpError("routes with producer_dependency_per_consumer; not supported"), failure();
  if (o->getNumResults() != 1)
    return o->emitOpError("delivers several results; not supported"), failure();
  Delivery d;
  d.produce = future.getDefiningOp<ktdp::InterTileProduceOp>();
  if (!d.produce)
    return o->emitOpError() << verb << " a future that is not produced in this function", failure();
  d.type = cast<ktdp::TileFutureType>(future.getType());
  auto resType = cast<RankedTensorType>(o->getResult(0).getType());
  d.partType = cast<RankedTensorType>(d.type.getPartialTypes()[0]);
  d.resShape.assign(resType.getShape().begin(), resType.getShape().end());
  d.elem = resType.getElementType();
  return d;
}

/// The position of `core` in `tiles`.
int indexOf(const std::vector<int64_t>& tiles, int core) {
  return static_cast<int>(std::find(tiles.begin(), tiles.end(), core) - tiles.begin());
}

} // namespace

FailureOr<TVal> Lowering::densePartial(Operation* o, Value future, int64_t bytes) const {
  auto pit = futures_.find(future);
  if (pit == futures_.end())
    return o->emitOpError("internal error: no partial for this tile"), failure();
  const TVal& partial = pit->second;
  if (partial.sparse || partial.offset != 0 ||
      partial.strides != denseStrides(partial.shape, partial.elem) ||
      (bytes >= 0 && out_.buffers[static_cast<size_t>(partial.buffer)].bytes != bytes))
    return o->emitOpError("internal error: the partial is not a dense value")
               << (bytes >= 0 ? " of the result's size" : ""),
           failure();
  return partial;
}

LogicalResult Lowering::lowerGather(Operation* o) {
  auto op = cast<ktdp::InterTileGatherOp>(o);
  auto found = deliveryOf(o, op.getFuture(), false, "gathers");
  if (failed(found)) return failure();
  Delivery d = *found; // a copy the emit lambdas capture
  if (auto dependency = op.getProducerDependencyPerConsumer())
    return gatherPerConsumer(o, d, dependency->getValue());
  const int64_t partBytes = denseBytes(d.partType.getShape(), d.elem);
  for (int64_t g : groupsOf(d.type, numTiles_)) {
    auto producers = membersOf(d.produce.getProducerTilesPerGroup().getValue(), g, numTiles_);
    auto consumers = membersOf(op.getConsumerTilesPerGroup().getValue(), g, numTiles_);
    const bool isProducer = llvm::is_contained(producers, core_);
    const bool isConsumer = llvm::is_contained(consumers, core_);
    if (!isProducer && !isConsumer) continue;
    const bool allGather = consumers == producers;
    if (!allGather && consumers.size() != 1)
      return op.emitOpError("delivers to a set of consumers that is neither the producers nor "
                            "one tile");
    const int P = static_cast<int>(producers.size());
    if (failed(checkStacked(o, "gathers", op.getGatherDimensions(), d.partType.getShape(),
                            d.resShape, P)))
      return failure();
    if (denseBytes(d.resShape, d.elem) != P * partBytes)
      return op.emitOpError("gathers partials of ")
             << d.partType.getShape()[0] << " row(s) that end inside a stick; each partial must be "
             << "a whole number of " << stick() << "-byte sticks";
    auto partialOr = densePartial(o, op.getFuture());
    if (failed(partialOr)) return failure();
    const TVal partial = *partialOr;
    TVal result = exchangeBuffer(d.resShape, d.elem, o);
    const int j = indexOf(producers, core_);
    const int ready = readyToken(o), arrive = arriveToken();
    usesRing_ = true;
    const int pbuf = partial.buffer, rbuf = result.buffer, me = core_;
    const int root = static_cast<int>(consumers[0]);
    std::string text = (allGather ? "all-gather" : "gather to core " + std::to_string(root)) +
                       std::string(" over cores");
    for (int64_t p : producers) text += " " + std::to_string(p);
    Step& s = addStep(Engines::ring(), op.getLoc(), text);
    s.accesses.push_back(scratch(pbuf, 0, partBytes, false));
    if (isConsumer) s.accesses.push_back(scratch(rbuf, 0, P * partBytes, true));
    auto copyOwn = [=](ProgramWriter& w) {
      w.b.create<dfir::RingSendOp>(
          w.loc, w.c(me), w.get(w.addr(pbuf)), w.get(w.addr(rbuf, Expr(j * partBytes))),
          w.c(partBytes), StringAttr(), StringAttr(), Value(), Value(), TypeAttr::get(d.elem));
    };
    if (allGather) {
      const int next = static_cast<int>(producers[static_cast<size_t>((j + 1) % P)]);
      const int prev = static_cast<int>(producers[static_cast<size_t>((j + P - 1) % P)]);
      s.emit = [=](ProgramWriter& w, int) {
        copyOwn(w);
        if (P == 1) return;
        w.b.create<dfir::TokenSendOp>(w.loc, w.c(ready), w.c(prev));
        w.b.create<dfir::TokenWaitOp>(w.loc, w.c(ready));
        for (int t = 0; t < P - 1; ++t) {
          const int c = ((j - t) % P + P) % P;
          Value at = w.get(w.addr(rbuf, Expr(c * partBytes)));
          w.b.create<dfir::RingSendOp>(w.loc, w.c(next), at, at, w.c(partBytes), StringAttr(),
                                       StringAttr(), w.c(arrive), Value(), TypeAttr::get(d.elem));
          w.b.create<dfir::TokenWaitOp>(w.loc, w.c(arrive));
        }
      };
    } else {
      std::vector<int64_t> others;
      for (int64_t p : producers)
        if (p != root) others.push_back(p);
      s.emit = [=](ProgramWriter& w, int) {
        if (me == root) {
          copyOwn(w);
          for (int64_t p : others) w.b.create<dfir::TokenSendOp>(w.loc, w.c(ready), w.c(p));
          for (size_t k = 0; k < others.size(); ++k)
            w.b.create<dfir::TokenWaitOp>(w.loc, w.c(arrive));
          return;
        }
        // R is an exchange buffer: slot j is at the same address on the consumer.
        w.b.create<dfir::TokenWaitOp>(w.loc, w.c(ready));
        w.b.create<dfir::RingSendOp>(w.loc, w.c(root), w.get(w.addr(pbuf)),
                                     w.get(w.addr(rbuf, Expr(j * partBytes))), w.c(partBytes),
                                     StringAttr(), StringAttr(), w.c(arrive), Value(),
                                     TypeAttr::get(d.elem));
      };
    }
    if (isConsumer) bind(op.getResult(0), result);
  }
  return success();
}

LogicalResult Lowering::gatherPerConsumer(Operation* o, const Delivery& d, IntegerSet dependency) {
  auto op = cast<ktdp::InterTileGatherOp>(o);
  auto sources = sourcesPerConsumer(o, d.produce, d.type, op.getConsumerTilesPerGroup().getValue(),
                                    dependency, numTiles_);
  if (failed(sources)) return failure();
  const auto mine = sources->find(core_);
  const bool consumer = mine != sources->end();
  // Where this core's partial goes: (consumer, slot) for every other consumer that
  // gathers it; the slot is its position in that consumer's (ascending) set.
  std::vector<std::pair<int64_t, int64_t>> to;
  int64_t ownSlot = -1;
  for (const auto& [c, from] : *sources) {
    auto at = std::find(from.begin(), from.end(), core_);
    if (at == from.end()) continue;
    if (c == core_)
      ownSlot = at - from.begin();
    else
      to.push_back({c, at - from.begin()});
  }
  if (!consumer && to.empty()) return success();
  const int64_t partBytes = denseBytes(d.partType.getShape(), d.elem);
  const int64_t P = static_cast<int64_t>(sources->begin()->second.size());
  if (failed(checkStacked(o, "gathers", op.getGatherDimensions(), d.partType.getShape(), d.resShape,
                          P)))
    return failure();
  if (denseBytes(d.resShape, d.elem) != P * partBytes)
    return op.emitOpError("gathers partials of ")
           << d.partType.getShape()[0] << " row(s) that end inside a stick; each partial must be "
           << "a whole number of " << stick() << "-byte sticks";
  std::optional<TVal> partial;
  if (!to.empty() || ownSlot >= 0) {
    auto partialOr = densePartial(o, op.getFuture());
    if (failed(partialOr)) return failure();
    partial = *partialOr;
  }
  std::vector<int64_t> from;
  if (consumer)
    for (int64_t p : mine->second)
      if (p != core_) from.push_back(p);
  // R is an exchange buffer: at the same address on every core, so slot k of a consumer's R
  // is at the address of slot k of this core's.
  TVal result = exchangeBuffer(d.resShape, d.elem, o);
  const int ready = readyToken(o), arrive = arriveToken();
  usesRing_ = true;
  std::string text = "gather";
  if (consumer) {
    text += " of cores";
    for (int64_t p : mine->second) text += " " + std::to_string(p);
  }
  if (!to.empty()) {
    text += std::string(consumer ? ";" : "") + " into cores";
    for (const auto& [c, slot] : to) text += " " + std::to_string(c);
  }
  Step& s = addStep(Engines::ring(), op.getLoc(), text);
  const int pbuf = partial ? partial->buffer : -1, rbuf = result.buffer, me = core_;
  if (partial) s.accesses.push_back(scratch(pbuf, 0, partBytes, false));
  if (consumer) s.accesses.push_back(scratch(rbuf, 0, P * partBytes, true));
  const Type elem = d.elem;
  s.emit = [=](ProgramWriter& w, int) {
    auto send = [&](int64_t core, int64_t slot, Value token) {
      w.b.create<dfir::RingSendOp>(w.loc, w.c(core), w.get(w.addr(pbuf)),
                                   w.get(w.addr(rbuf, Expr(slot * partBytes))), w.c(partBytes),
                                   StringAttr(), StringAttr(), token, Value(), TypeAttr::get(elem));
    };
    if (ownSlot >= 0) send(me, ownSlot, Value());
    for (int64_t p : from) w.b.create<dfir::TokenSendOp>(w.loc, w.c(ready), w.c(p));
    for (size_t k = 0; k < to.size(); ++k) w.b.create<dfir::TokenWaitOp>(w.loc, w.c(ready));
    for (const auto& [c, slot] : to) send(c, slot, w.c(arrive));
    for (size_t k = 0; k < from.size(); ++k) w.b.create<dfir::TokenWaitOp>(w.loc, w.c(arrive));
  };
  if (consumer) bind(op.getResult(0), result);
  return success();
}

LogicalResult Lowering::lowerScatter(Operation* o) {
  auto op = cast<ktdp::InterTileScatterOp>(o);
  auto found = deliveryOf(o, op.getFuture(), false, "scatters");
  if (failed(found)) return failure();
  Delivery d = *found; // a copy the emit lambdas capture
  const int64_t sliceBytes = denseBytes(d.resShape, d.elem);
  for (int64_t g : groupsOf(d.type, numTiles_)) {
    auto producers = membersOf(d.produce.getProducerTilesPerGroup().getValue(), g, numTiles_);
    auto consumers = membersOf(op.getConsumerTilesPerGroup().getValue(), g, numTiles_);
    const bool isProducer = llvm::is_contained(producers, core_);
    const bool isConsumer = llvm::is_contained(consumers, core_);
    if (!isProducer && !isConsumer) continue;
    if (producers.size() != 1)
      return op.emitOpError("has ")
             << producers.size() << " producers in group " << g << "; a scatter has one";
    const int C = static_cast<int>(consumers.size());
    if (failed(checkStacked(o, "scatters", op.getScatterDimensions(), d.resShape,
                            d.partType.getShape(), C)))
      return failure();
    if (denseBytes(d.partType.getShape(), d.elem) != C * sliceBytes)
      return op.emitOpError("scatters slices of ")
             << d.resShape[0] << " row(s) that end inside a stick; each slice must be a whole "
             << "number of " << stick() << "-byte sticks";
    const int root = static_cast<int>(producers[0]);
    std::vector<int64_t> others;
    for (int64_t c : consumers)
      if (c != root) others.push_back(c);
    TVal received = exchangeBuffer(d.resShape, d.elem, o);
    const int ready = readyToken(o), arrive = arriveToken();
    usesRing_ = true;
    const int rbuf = received.buffer, me = core_;
    std::string text = "scatter from core " + std::to_string(root) + " to cores";
    for (int64_t c : consumers) text += " " + std::to_string(c);
    auto localIndex = [&](int64_t c) {
      return static_cast<int64_t>(std::find(consumers.begin(), consumers.end(), c) -
                                  consumers.begin());
    };
    if (me == root) {
      auto partialOr = densePartial(o, op.getFuture());
      if (failed(partialOr)) return failure();
      const TVal partial = *partialOr;
      const int pbuf = partial.buffer;
      std::vector<std::pair<int64_t, int64_t>> sends; // consumer, its slice's offset
      for (int64_t c : others) sends.push_back({c, localIndex(c) * sliceBytes});
      Step& s = addStep(Engines::ring(), op.getLoc(), text);
      s.accesses.push_back(scratch(pbuf, 0, C * sliceBytes, false));
      s.emit = [=](ProgramWriter& w, int) {
        for (size_t k = 0; k < sends.size(); ++k) w.b.create<dfir::TokenWaitOp>(w.loc, w.c(ready));
        for (const auto& [c, off] : sends)
          w.b.create<dfir::RingSendOp>(w.loc, w.c(c), w.get(w.addr(pbuf, Expr(off))),
                                       w.get(w.addr(rbuf)), w.c(sliceBytes), StringAttr(),
                                       StringAttr(), w.c(arrive), Value(), TypeAttr::get(d.elem));
      };
      if (isConsumer) {
        TVal mine = partial;
        mine.shape = d.resShape;
        mine.offset = localIndex(me) * sliceBytes;
        mine.strides = denseStrides(d.resShape, d.elem);
        mine.pad.reset();
        bind(op.getResult(0), mine);
      }
      continue;
    }
    Step& s = addStep(Engines::ring(), op.getLoc(), text);
    s.accesses.push_back(scratch(rbuf, 0, sliceBytes, true));
    s.emit = [=](ProgramWriter& w, int) {
      w.b.create<dfir::TokenSendOp>(w.loc, w.c(ready), w.c(root));
      w.b.create<dfir::TokenWaitOp>(w.loc, w.c(arrive));
    };
    bind(op.getResult(0), received);
  }
  return success();
}

LogicalResult Lowering::lowerAllToAll(Operation* o) {
  auto op = cast<ktdp::InterTileAllToAllOp>(o);
  auto found =
      deliveryOf(o, op.getFuture(), op.getProducerDependencyPerConsumer().has_value(), "exchanges");
  if (failed(found)) return failure();
  Delivery d = *found; // a copy the emit lambdas capture
  for (int64_t g : groupsOf(d.type, numTiles_)) {
    auto producers = membersOf(d.produce.getProducerTilesPerGroup().getValue(), g, numTiles_);
    if (!llvm::is_contained(producers, core_)) continue;
    const int P = static_cast<int>(producers.size());
    // Slice l of a partial is rows [l r / P, (l + 1) r / P); the result stacks the P
    // slices it receives along dimension 0.
    std::vector<int64_t> slice(d.partType.getShape().begin(), d.partType.getShape().end());
    if (slice.empty() || slice[0] % P != 0)
      return op.emitOpError("splits a partial of ")
             << (slice.empty() ? 0 : slice[0]) << " rows over " << P << " consumers";
    slice[0] /= P;
    if (failed(
            checkStacked(o, "splits", op.getSplitDimensions(), slice, d.partType.getShape(), P)) ||
        failed(checkStacked(o, "concatenates", op.getConcatDimensions(), slice, d.resShape, P)))
      return failure();
    const int64_t sliceBytes = denseBytes(slice, d.elem);
    if (denseBytes(d.resShape, d.elem) != P * sliceBytes)
      return op.emitOpError("exchanges slices of ")
             << slice[0] << " row(s) that end inside a stick; each slice must be a whole "
             << "number of " << stick() << "-byte sticks";
    auto partialOr = densePartial(o, op.getFuture());
    if (failed(partialOr)) return failure();
    const TVal partial = *partialOr;
    TVal result = exchangeBuffer(d.resShape, d.elem, o);
    const int j = indexOf(producers, core_);
    const int ready = readyToken(o), arrive = arriveToken();
    usesRing_ = true;
    const int pbuf = partial.buffer, rbuf = result.buffer, me = core_;
    std::string text = "all-to-all over cores";
    for (int64_t p : producers) text += " " + std::to_string(p);
    Step& s = addStep(Engines::ring(), op.getLoc(), text);
    s.accesses.push_back(scratch(pbuf, 0, P * sliceBytes, false));
    s.accesses.push_back(scratch(rbuf, 0, P * sliceBytes, true));
    s.emit = [=](ProgramWriter& w, int) {
      auto send = [&](int64_t core, int64_t l, bool self) {
        w.b.create<dfir::RingSendOp>(w.loc, w.c(core), w.get(w.addr(pbuf, Expr(l * sliceBytes))),
                                     w.get(w.addr(rbuf, Expr(j * sliceBytes))), w.c(sliceBytes),
                                     StringAttr(), StringAttr(), self ? Value() : w.c(arrive),
                                     Value(), TypeAttr::get(d.elem));
      };
      send(me, j, true);
      for (int l = 0; l < P; ++l)
        if (l != j) w.b.create<dfir::TokenSendOp>(w.loc, w.c(ready), w.c(producers[l]));
      for (int k = 0; k < P - 1; ++k) w.b.create<dfir::TokenWaitOp>(w.loc, w.c(ready));
      for (int l = 0; l < P; ++l)
        if (l != j) send(producers[l], l, false);
      for (int k = 0; k < P - 1; ++k) w.b.create<dfir::TokenWaitOp>(w.loc, w.c(arrive));
    };
    bind(op.getResult(0), result);
  }
  return success();
}

} // namespace chipless::sched
