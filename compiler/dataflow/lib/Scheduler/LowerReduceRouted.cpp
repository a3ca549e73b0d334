//===- LowerReduceRouted.cpp - reductions over per-consumer producer sets -===//
//
// Part of chipless. See Lowering.h. `ktdp.inter_tile_reduce` with
// `producer_dependency_per_consumer`: consumer c folds the partials of the producers its
// dependency set names (the others count as the identity), so consumers may get different
// results (pairwise or windowed sums, a reduce of a subset to one tile). Point to point:
//   * consumer c: R = its own partial when it depends on itself, else the identity (a fill
//     before the exchange); READY to every other producer it depends on; ARRIVE from each;
//   * producer p: waits for READY from every other consumer that depends on it, then adds
//     (max, min) its partial into each one's R over the ring, as data arrives.
// R is the exchange buffer (the same address on every core). READY goes out before any
// wait, so producers that are each other's consumers cannot deadlock.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"
#include "RingGroups.h"
#include "dataflow/Dialect/Dfir/DfirOps.h"
#include "ktir/Dialect/Ktdp/KtdpOps.h"
#include "ktir/Dialect/Ktdp/KtdpTileSets.h"

#include "llvm/ADT/STLExtras.h"

#include <map>
#include <string>
#include <vector>

using namespace mlir;

namespace chipless::sched {

LogicalResult Lowering::lowerReducePerConsumer(Operation* o, const TVal& identity,
                                               const std::string& kind) {
  auto op = cast<ktdp::InterTileReduceOp>(o);
  auto produce = op.getFuture().getDefiningOp<ktdp::InterTileProduceOp>();
  auto type = cast<ktdp::TileFutureType>(op.getFuture().getType());
  auto resType = cast<RankedTensorType>(op.getResult(0).getType());
  std::vector<int64_t> resShape(resType.getShape().begin(), resType.getShape().end());
  Type elem = resType.getElementType();
  IntegerSet dependency = op.getProducerDependencyPerConsumer()->getValue();

  // consumer -> the producers it folds.
  auto sources = sourcesPerConsumer(o, produce, type, op.getConsumerTilesPerGroup().getValue(),
                                    dependency, numTiles_);
  if (failed(sources)) return failure();
  const std::map<int64_t, std::vector<int64_t>>& depsOf = *sources;
  const auto mine = depsOf.find(core_);
  const bool consumer = mine != depsOf.end();
  const bool selfIncluded = consumer && llvm::is_contained(mine->second, core_);
  std::vector<int64_t> from; // producers this core waits for
  if (consumer)
    for (int64_t p : mine->second)
      if (p != core_) from.push_back(p);
  std::vector<int64_t> to; // consumers this core adds into
  for (const auto& [c, deps] : depsOf)
    if (c != core_ && llvm::is_contained(deps, core_)) to.push_back(c);
  if (!consumer && to.empty()) return success();

  auto pit = futures_.find(op.getFuture());
  const bool needPartial = selfIncluded || !to.empty();
  if (needPartial && pit == futures_.end())
    return op.emitOpError("internal error: no partial for this tile");
  const TVal* partial = needPartial ? &pit->second : nullptr;
  if (partial && failed(checkFoldable(o, *partial, resShape, elem))) return failure();
  const int64_t bytes = denseBytes(resShape, elem);

  TVal result = exchangeBuffer(resShape, elem, o);
  if (consumer && !selfIncluded && failed(fill(result, identity.scalar, op.getLoc())))
    return failure();

  const int ready = readyToken(o), arrive = arriveToken();
  usesRing_ = true;
  std::string text = "reduce " + kind;
  if (consumer) {
    text += " of cores";
    for (int64_t p : mine->second) text += " " + std::to_string(p);
  }
  if (!to.empty()) {
    text += std::string(consumer ? ";" : "") + " into cores";
    for (int64_t c : to) text += " " + std::to_string(c);
  }
  Step& s = addStep(Engines::ring(), op.getLoc(), text);
  const int pbuf = partial ? partial->buffer : -1, rbuf = result.buffer, me = core_;
  if (partial) s.accesses.push_back(scratch(pbuf, 0, bytes, false));
  if (consumer) s.accesses.push_back(scratch(rbuf, 0, bytes, true));
  s.emit = [=](ProgramWriter& w, int) {
    if (selfIncluded)
      w.b.create<dfir::RingSendOp>(w.loc, w.c(me), w.get(w.addr(pbuf)), w.get(w.addr(rbuf)),
                                   w.c(bytes), StringAttr(), StringAttr(), Value(), Value(),
                                   TypeAttr::get(elem));
    for (int64_t p : from) w.b.create<dfir::TokenSendOp>(w.loc, w.c(ready), w.c(p));
    for (size_t k = 0; k < to.size(); ++k) w.b.create<dfir::TokenWaitOp>(w.loc, w.c(ready));
    for (int64_t c : to)
      w.b.create<dfir::RingSendOp>(w.loc, w.c(c), w.get(w.addr(pbuf)), w.get(w.addr(rbuf)),
                                   w.c(bytes), StringAttr(), w.str(kind), w.c(arrive), Value(),
                                   TypeAttr::get(elem));
    for (size_t k = 0; k < from.size(); ++k) w.b.create<dfir::TokenWaitOp>(w.loc, w.c(arrive));
  };
  if (consumer) bind(op.getResult(0), result);
  return success();
}

} // namespace chipless::sched
