//===- ChunkedTransfers.cpp - large transfers in chunks of rows -----------===//
//
// Part of chipless. See Lowering.h. The synchroniser orders engines by the bytes their
// steps touch, so a transfer cut into chunks of rows lets the engine on the other side
// start on the first chunk instead of waiting for all of it:
//
//  * a large ktdp.load becomes one DMA per chunk of rows: the first PT or SFU work that
//    reads only the first rows starts when they have arrived (this matters in the first
//    iteration of a loop, before double buffering hides the loads);
//  * a kernel that accumulates through scf.for iter_args usually stores the loop's result
//    right after the loop. Lowered as written, that store waits for the whole loop and
//    only then moves the whole result. Moved into the last iteration and cut into chunks,
//    each chunk leaves as soon as the last iteration has written its rows, while the rest
//    of the iteration still computes. Each chunk sits in its own conditional node (an
//    scf.if of the last iteration), so its DMA waits only for the steps writing its rows.
//
// Chunks are at most LowerOptions::transferChunkBytes, in whole rows.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"
#include "ktir/Dialect/Ktdp/KtdpOps.h"

#include <cassert>

using namespace mlir;

namespace chipless::sched {

namespace {

/// Rows per chunk: the largest divisor of `rows` whose chunk fits `limit` bytes (at least 1).
int64_t chunkRows(int64_t rows, int64_t rowBytes, int64_t limit) {
  int64_t r = rows;
  while (r > 1 && (r * rowBytes > limit || rows % r != 0)) --r;
  return r;
}

/// Whether `t` is a dense value in a buffer that can be cut along its first dimension.
bool cuttable(const TVal& t) {
  return t.kind == TVal::Kind::Buffer && !t.sparse && t.shape.size() >= 2 && t.shape[0] > 1 &&
         !t.strides.empty() && t.strides[0] > 0;
}

/// Rows [r0, r0 + rows) of `t`.
TVal rowsOf(const TVal& t, int64_t r0, int64_t rows) {
  TVal c = t;
  c.shape[0] = rows;
  c.offset = t.offset + r0 * t.strides[0];
  return c;
}

} // namespace

LogicalResult Lowering::loadInChunks(Operation* op, TVal& t) {
  const int64_t limit = options_.transferChunkBytes;
  const int64_t lastDim = t.shape.empty() ? 1 : t.shape.back();
  // Rows ending inside a stick get their padding filled first: keep those whole.
  if (limit <= 0 || !cuttable(t) || lastDim % lanes(t.elem) != 0 ||
      t.shape[0] * t.strides[0] <= limit)
    return loadWhole(op, t);
  const int64_t rows = t.shape[0], per = chunkRows(rows, t.strides[0], limit);
  for (int64_t r0 = 0; r0 < rows; r0 += per) {
    std::vector<Expr> start(t.shape.size(), Expr(0));
    start[0] = Expr(r0);
    if (failed(moveChunk(op, true, rowsOf(t, r0, std::min(per, rows - r0)), start)))
      return failure();
  }
  return success();
}

LogicalResult Lowering::sinkResultStores(scf::ForOp loop, Node* body,
                                         std::vector<Operation*>& sunk) {
  assert(current_ == body && "called while lowering the loop's body");
  // The stores of the loop's results that follow it, with only lazy ops in between.
  std::vector<ktdp::StoreOp> stores;
  for (Operation* op = loop->getNextNode(); op; op = op->getNextNode()) {
    if (isLazy(op)) continue;
    auto store = dyn_cast<ktdp::StoreOp>(op);
    if (!store) break;
    auto res = dyn_cast<OpResult>(store.getValue());
    if (!res || res.getOwner() != loop.getOperation()) break;
    if (!store.getAccessTile().getDefiningOp<ktdp::ConstructAccessTileOp>()) break;
    stores.push_back(store);
  }
  if (stores.empty() || options_.transferChunkBytes <= 0) return success();

  // 1 in the last iteration, else 0: i never passes the last value, so last - i >= 0.
  const Expr i = Expr::var(body->loop);
  const Expr last = body->lb + floorDiv(body->ub - body->lb - Expr(1), body->stride) * body->stride;
  const Expr taken = Expr(1) - min(Expr(1), last - i);

  for (ktdp::StoreOp store : stores) {
    auto v = value(store.getValue());
    if (failed(v)) return failure();
    const TVal t = *v;
    if (!cuttable(t)) continue; // lowered after the loop, as written
    const int64_t rows = t.shape[0];
    const int64_t per = chunkRows(rows, t.strides[0], options_.transferChunkBytes);
    for (int64_t r0 = 0; r0 < rows; r0 += per) {
      Node* saved = openConditional(taken, "last iteration: store rows from " + std::to_string(r0));
      std::vector<Expr> start(t.shape.size(), Expr(0));
      start[0] = Expr(r0);
      LogicalResult ok = moveChunk(store, false, rowsOf(t, r0, std::min(per, rows - r0)), start);
      current_ = saved;
      if (failed(ok)) return failure();
    }
    handled_.insert(store);
    sunk.push_back(store);
  }
  return success();
}

} // namespace chipless::sched
