//===- LowerConsume.cpp - inter_tile_consume: broadcast and routing -------===//
//
// Part of chipless. See Lowering.h. `ktdp.inter_tile_consume` gives every consumer exactly
// one producer's partial: the group's one producer (a broadcast), or the producer that
// `producer_dependency_per_consumer` names for it (routing: shifts, reversals, any
// permutation or fan-out). Every route is one point-to-point copy over the ring into the
// consumer's exchange buffer (the same address on every core); a consumer whose source is
// itself takes its own partial.
//
// One step of each core's ring engine runs the core's part of the whole exchange:
//   1. if it receives from another core: send READY to its source (its exchange buffer
//      may be written; the step starts only once earlier readers of the buffer are done);
//   2. if it sends: wait for READY from each of its destinations, then send the partial
//      to each (ARRIVE on landing);
//   3. if it receives: wait for ARRIVE.
// READY goes out before any wait, so cores that send to each other (a swap) cannot
// deadlock; READY is this exchange's own token (LowerOptions::exchangeIndex).
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"
#include "RingGroups.h"
#include "dataflow/Dialect/Dfir/DfirOps.h"
#include "ktir/Dialect/Ktdp/KtdpOps.h"
#include "ktir/Dialect/Ktdp/KtdpTileSets.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

using namespace mlir;

namespace chipless::sched {

LogicalResult Lowering::lowerConsume(Operation* o) {
  auto op = cast<ktdp::InterTileConsumeOp>(o);
  if (op->getNumResults() != 1) return op.emitOpError("delivers several results; not supported");
  auto produce = op.getFuture().getDefiningOp<ktdp::InterTileProduceOp>();
  if (!produce) return op.emitOpError("consumes a future that is not produced in this function");
  auto type = cast<ktdp::TileFutureType>(op.getFuture().getType());
  auto resType = cast<RankedTensorType>(op.getResult(0).getType());
  std::vector<int64_t> resShape(resType.getShape().begin(), resType.getShape().end());
  Type elem = resType.getElementType();
  const int64_t bytes = denseBytes(resShape, elem);
  std::optional<IntegerSet> dependency;
  if (auto d = op.getProducerDependencyPerConsumer()) dependency = d->getValue();

  // Every route of the exchange: consumer -> its one source.
  auto sources = sourcesPerConsumer(o, produce, type, op.getConsumerTilesPerGroup().getValue(),
                                    dependency, numTiles_);
  if (failed(sources)) return failure();
  std::map<int64_t, int64_t> sourceOf;
  for (const auto& [c, from] : *sources) {
    if (from.size() != 1)
      return op.emitOpError("gives consumer ")
             << c << " " << from.size()
             << " sources; each consumer receives exactly one partial (name it with "
                "producer_dependency_per_consumer)";
    sourceOf[c] = from[0];
  }
  std::optional<int64_t> source;
  if (auto it = sourceOf.find(core_); it != sourceOf.end()) source = it->second;
  std::vector<int64_t> destinations;
  for (const auto& [c, s] : sourceOf)
    if (s == core_ && c != core_) destinations.push_back(c);
  const bool receives = source && *source != core_;
  if (!source && destinations.empty()) return success();

  const TVal* partial = nullptr;
  if (!destinations.empty() || (source && *source == core_)) {
    auto pit = futures_.find(op.getFuture());
    if (pit == futures_.end()) return op.emitOpError("internal error: no partial for this tile");
    partial = &pit->second;
    if (partial->sparse || partial->offset != 0 ||
        partial->strides != denseStrides(partial->shape, partial->elem) ||
        out_.buffers[static_cast<size_t>(partial->buffer)].bytes != bytes)
      return op.emitOpError("internal error: the partial is not a dense value of the result's "
                            "size");
  }
  std::optional<TVal> received;
  if (receives) {
    received = newDense(resShape, elem, "inter_tile_consume");
    out_.buffers[static_cast<size_t>(received->buffer)].exchange = locationKey(op.getLoc());
  }
  // Every core allocates the exchange buffer at the same address, so a sender writes a
  // receiver's copy at the address of its own.
  if (!destinations.empty() && !received) {
    TVal shadow = newDense(resShape, elem, "inter_tile_consume");
    out_.buffers[static_cast<size_t>(shadow.buffer)].exchange = locationKey(op.getLoc());
    received = shadow;
  }

  const int ready = readyToken(o), arrive = arriveToken();
  usesRing_ = true;
  std::string text = "inter_tile_consume";
  if (receives) text += ": from core " + std::to_string(*source);
  if (!destinations.empty()) {
    text += std::string(receives ? ";" : ":") + " to cores";
    for (int64_t c : destinations) text += " " + std::to_string(c);
  }
  Step& s = addStep(Engines::ring(), op.getLoc(), text);
  const int pbuf = partial ? partial->buffer : -1, rbuf = received->buffer;
  if (partial && !destinations.empty()) s.accesses.push_back(scratch(pbuf, 0, bytes, false));
  if (receives) s.accesses.push_back(scratch(rbuf, 0, bytes, true));
  const int64_t from = receives ? *source : -1;
  s.emit = [=](ProgramWriter& w, int) {
    if (from >= 0) w.b.create<dfir::TokenSendOp>(w.loc, w.c(ready), w.c(from));
    for (size_t k = 0; k < destinations.size(); ++k)
      w.b.create<dfir::TokenWaitOp>(w.loc, w.c(ready));
    for (int64_t c : destinations)
      w.b.create<dfir::RingSendOp>(w.loc, w.c(c), w.get(w.addr(pbuf)), w.get(w.addr(rbuf)),
                                   w.c(bytes), StringAttr(), StringAttr(), w.c(arrive), Value(),
                                   TypeAttr::get(elem));
    if (from >= 0) w.b.create<dfir::TokenWaitOp>(w.loc, w.c(arrive));
  };
  if (source) bind(op.getResult(0), receives ? *received : *partial);
  return success();
}

} // namespace chipless::sched
