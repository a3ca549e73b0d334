//===- Gathers.cpp - embedding lookups (part of tpu-decompose) ------------===//
//
// Part of chipless. tensor.gather of rows of a matrix by i32 indices (an embedding lookup)
// is a kernel of its own: each unit copies its indices into SMEM and issues one DMA per row
// from the table row its index names (KernelEmitter). tpu-decompose checks the form and
// makes the result rank-reduced ([K, D] rather than [K, 1, D], an expand_shape restoring
// it), so that the kernel's iteration space is the rows it gathers.
//
//===----------------------------------------------------------------------===//

#include "Common.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace chipless::tpuc {

LogicalResult decomposeGathers(ModuleOp module) {
  SmallVector<tensor::GatherOp> todo;
  module.walk([&](tensor::GatherOp g) { todo.push_back(g); });
  IRRewriter rw(module.getContext());
  for (tensor::GatherOp g : todo) {
    auto src = cast<RankedTensorType>(g.getSource().getType());
    auto idx = cast<RankedTensorType>(g.getIndices().getType());
    ArrayRef<int64_t> dims = g.getGatherDims();
    if (src.getRank() != 2 || dims.size() != 1 || dims[0] != 0 || idx.getRank() != 2 ||
        idx.getShape()[1] != 1 || !idx.getElementType().isInteger(32))
      return g.emitError("tpu-compile gathers rows of a matrix by i32 indices only "
                         "(gather_dims([0]) of a rank-2 source, indices [K, 1] of i32)"),
             failure();
    auto flat = RankedTensorType::get({idx.getShape()[0], src.getShape()[1]}, src.getElementType());
    if (g.getResultType() == flat) continue;
    rw.setInsertionPoint(g);
    auto rows = rw.create<tensor::GatherOp>(g.getLoc(), flat, g.getSource(), g.getIndices(), dims,
                                            g.getUnique());
    rw.replaceOpWithNewOp<tensor::ExpandShapeOp>(g, g.getResultType(), rows.getResult(),
                                                 SmallVector<ReassociationIndices>{{0, 1}, {2}});
  }
  return success();
}

} // namespace chipless::tpuc
