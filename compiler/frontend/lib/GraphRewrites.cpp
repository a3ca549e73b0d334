//===- GraphRewrites.cpp - a graph into the forms kernels take ------------===//
//
// Part of chipless. See GraphRewrites.h.
//
//===----------------------------------------------------------------------===//

#include "GraphRewrites.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;

namespace chipless::frontend {

namespace {

/// linalg.reduce over dimension rank - 2 -> linalg.transpose (swap the last two) +
/// linalg.reduce over dimension rank - 1. The reduced result is the same tensor.
void reduceAlongTheLast(linalg::ReduceOp r) {
  auto in = cast<RankedTensorType>(r.getInputs()[0].getType());
  const int64_t rank = in.getRank();
  auto dims = r.getDimensions();
  if (r.getInputs().size() != 1 || rank < 2 || dims.size() != 1 || dims[0] != rank - 2) return;
  OpBuilder b(r);
  Location loc = r.getLoc();
  SmallVector<int64_t> perm, shape;
  for (int64_t i = 0; i < rank; ++i) perm.push_back(i);
  std::swap(perm[rank - 1], perm[rank - 2]);
  for (int64_t p : perm) shape.push_back(in.getShape()[p]);
  Value empty = b.create<tensor::EmptyOp>(loc, shape, in.getElementType());
  Value t = b.create<linalg::TransposeOp>(loc, r.getInputs()[0], empty, perm)->getResult(0);
  Block& body = r.getRegion().front();
  auto n = b.create<linalg::ReduceOp>(loc, ValueRange{t}, r.getInits(), ArrayRef<int64_t>{rank - 1},
                                      [&](OpBuilder& nb, Location, ValueRange args) {
                                        IRMapping m;
                                        for (auto [from, to] : llvm::zip(body.getArguments(), args))
                                          m.map(from, to);
                                        for (Operation& op : body) nb.clone(op, m);
                                      });
  r->replaceAllUsesWith(n->getResults());
  r->erase();
}

} // namespace

void rewriteForKernels(func::FuncOp f) {
  SmallVector<linalg::ReduceOp> reduces;
  f.walk([&](linalg::ReduceOp r) { reduces.push_back(r); });
  for (linalg::ReduceOp r : reduces) reduceAlongTheLast(r);
}

} // namespace chipless::frontend
