//===- LowerConsume.cpp - inter_tile_consume: broadcast and routing -------===//
//
// Part of chipless. See Lowering.h. `ktdp.inter_tile_consume` gives every consumer exactly
// one producer's partial: the group's one producer (a broadcast), or the producer that
// `producer_dependency_per_consumer` names for it (routing: shifts, reversals, any
// permutation or fan-out). Data lands in the consumer's exchange buffer (the same address
// on every core); a consumer whose source is itself takes its own partial.
//
// Broadcasts (broadcastChains) go down two chains through the consumers, one per ring
// direction, ordered by distance from the producer: each tile sends READY to its feeder,
// waits for READY from the next tile, then, chunk by chunk, waits for the chunk to land
// (ARRIVE) and forwards it. Every link carries one copy, and the chunks pipeline the chain.
//
// Routes (and broadcasts where a producer also receives another group's partial) are
// point to point; one step of each core's ring engine runs the core's part:
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

#include <algorithm>
#include <cmath>
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
  // Broadcasts go down chains, unless a tile both sends its own partial and receives
  // another's (then every route is point to point, below).
  bool rootReceives = false;
  for (const auto& [c, s] : sourceOf)
    if (s != c) rootReceives |= sourceOf.count(s) && sourceOf.at(s) != s;
  if (!dependency && !rootReceives) return broadcastChains(o, sourceOf, resShape, elem);
  std::optional<int64_t> source;
  if (auto it = sourceOf.find(core_); it != sourceOf.end()) source = it->second;
  std::vector<int64_t> destinations;
  for (const auto& [c, s] : sourceOf)
    if (s == core_ && c != core_) destinations.push_back(c);
  const bool receives = source && *source != core_;
  if (!source && destinations.empty()) return success();

  std::optional<TVal> partial;
  if (!destinations.empty() || (source && *source == core_)) {
    auto p = densePartial(o, op.getFuture(), bytes);
    if (failed(p)) return failure();
    partial = *p;
  }
  if (!receives && destinations.empty()) { // its own source, and nobody else's
    bind(op.getResult(0), *partial);
    return success();
  }
  // A sender needs the buffer too: it writes a receiver's copy at the address of its own.
  const TVal received = exchangeBuffer(resShape, elem, o);

  const int ready = readyToken(o), arrive = arriveToken();
  usesRing_ = true;
  std::string text = "inter_tile_consume";
  if (receives) text += ": from core " + std::to_string(*source);
  if (!destinations.empty()) {
    text += std::string(receives ? ";" : ":") + " to cores";
    for (int64_t c : destinations) text += " " + std::to_string(c);
  }
  Step& s = addStep(Engines::ring(), op.getLoc(), text);
  const int pbuf = partial ? partial->buffer : -1, rbuf = received.buffer;
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
  if (source) bind(op.getResult(0), receives ? received : *partial);
  return success();
}

LogicalResult Lowering::broadcastChains(Operation* o, const std::map<int64_t, int64_t>& sourceOf,
                                        const std::vector<int64_t>& resShape, Type elem) {
  auto op = cast<ktdp::InterTileConsumeOp>(o);
  const int64_t bytes = denseBytes(resShape, elem);
  const int64_t cores = arch_.chip.cores;
  // Per root, its other consumers in two chains, one per ring direction, each ordered by
  // distance: node i is fed by node i - 1 (the first by the root).
  std::map<int64_t, std::vector<int64_t>> others;
  for (const auto& [c, root] : sourceOf)
    if (c != root) others[root].push_back(c);
  std::map<int64_t, int64_t> feeder;
  std::map<int64_t, std::vector<int64_t>> fed;
  size_t longest = 0;
  for (auto& [root, list] : others) {
    std::vector<std::pair<int64_t, int64_t>> cw, ccw; // (distance, core)
    for (int64_t c : list) {
      const int64_t d = ((c - root) % cores + cores) % cores;
      if (d <= cores - d)
        cw.push_back({d, c});
      else
        ccw.push_back({cores - d, c});
    }
    for (auto* chain : {&cw, &ccw}) {
      std::sort(chain->begin(), chain->end());
      int64_t prev = root;
      for (const auto& [d, c] : *chain) {
        feeder[c] = prev;
        fed[prev].push_back(c);
        prev = c;
      }
      longest = std::max(longest, chain->size());
    }
  }
  const auto mine = sourceOf.find(core_);
  const bool isRoot = fed.count(core_) && !feeder.count(core_);
  const bool receives = feeder.count(core_) != 0;
  if (mine == sourceOf.end() && !isRoot) return success();
  if (!isRoot && !receives) { // its own source, and nobody else's
    auto pit = futures_.find(op.getFuture());
    if (pit == futures_.end()) return op.emitOpError("internal error: no partial for this tile");
    bind(op.getResult(0), pit->second);
    return success();
  }
  // Chunks pipeline the chain: node i forwards chunk k while chunk k + 1 comes in. About
  // sqrt((L - 1) T / o) chunks minimise (K + L - 1) (T / K + o) for a chain of L nodes, a
  // copy of T link cycles and o cycles per chunk (its token and the hops to the next core).
  const int64_t stickBytes = stick(), sticks = (bytes + stickBytes - 1) / stickBytes;
  const double linkCycles = static_cast<double>(bytes) / arch_.ring.bytes_per_cycle;
  const double perChunk = arch_.sync.token_latency_cycles + 2.0 * arch_.ring.hop_latency_cycles;
  int64_t chunks = 1;
  if (longest > 1)
    chunks = std::clamp<int64_t>(
        std::llround(std::sqrt((static_cast<double>(longest) - 1) * linkCycles / perChunk)), 1,
        sticks);
  const int64_t chunkSticks = (sticks + chunks - 1) / chunks;

  std::optional<TVal> partial;
  if (isRoot) {
    auto p = densePartial(o, op.getFuture(), bytes);
    if (failed(p)) return failure();
    partial = *p;
  }
  // Every core allocates the exchange buffer at the same address, so a sender writes a
  // receiver's copy at the address of its own.
  TVal received = exchangeBuffer(resShape, elem, o);
  const std::vector<int64_t> next = fed.count(core_) ? fed.at(core_) : std::vector<int64_t>{};
  const int64_t from = receives ? feeder.at(core_) : -1;

  const int ready = readyToken(o), arrive = arriveToken();
  usesRing_ = true;
  std::string text = "broadcast";
  if (receives) text += ": from core " + std::to_string(from);
  if (!next.empty()) {
    text += std::string(receives ? ";" : ":") + " to cores";
    for (int64_t c : next) text += " " + std::to_string(c);
  }
  if (chunks > 1) text += " in " + std::to_string(chunks) + " chunks";
  Step& s = addStep(Engines::ring(), op.getLoc(), text);
  const int rbuf = received.buffer, sbuf = isRoot ? partial->buffer : rbuf;
  if (isRoot) s.accesses.push_back(scratch(sbuf, 0, bytes, false));
  if (receives) s.accesses.push_back(scratch(rbuf, 0, bytes, true));
  s.emit = [=](ProgramWriter& w, int) {
    if (from >= 0) w.b.create<dfir::TokenSendOp>(w.loc, w.c(ready), w.c(from));
    for (size_t k = 0; k < next.size(); ++k) w.b.create<dfir::TokenWaitOp>(w.loc, w.c(ready));
    for (int64_t k = 0; k * chunkSticks < sticks; ++k) {
      const int64_t off = k * chunkSticks * stickBytes;
      const int64_t n = std::min(bytes, off + chunkSticks * stickBytes) - off;
      // A relay forwards a chunk once it has landed.
      if (from >= 0) w.b.create<dfir::TokenWaitOp>(w.loc, w.c(arrive));
      for (int64_t c : next)
        w.b.create<dfir::RingSendOp>(w.loc, w.c(c), w.get(w.addr(sbuf, Expr(off))),
                                     w.get(w.addr(rbuf, Expr(off))), w.c(n), StringAttr(),
                                     StringAttr(), w.c(arrive), Value(), TypeAttr::get(elem));
    }
  };
  if (mine != sourceOf.end()) bind(op.getResult(0), receives ? received : *partial);
  return success();
}

} // namespace chipless::sched
