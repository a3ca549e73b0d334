//===- CoreSpan.cpp - the device memory one tile addresses ----------------===//
//
// Part of chipless. See CoreSpan.h.
//
//===----------------------------------------------------------------------===//

#include "CoreSpan.h"

#include "RowForm.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <algorithm>

using namespace mlir;

namespace chipless::frontend {

int64_t boxSpanElements(const TensorView& v, const std::vector<int64_t>& box) {
  int64_t span = 0;
  for (size_t i = 0; i < v.dims.size() && i < box.size(); ++i) {
    const DimLayout& d = v.dims[i];
    // The positions of each factor the box takes: whole inner factors, a run of the next,
    // one of each outer one (the whole dimension: every factor whole).
    int64_t rest = std::min(box[i], d.size);
    for (size_t f = d.factors.size(); f-- > 0;) {
      const Factor& factor = d.factors[f];
      int64_t extent;
      if (box[i] >= d.size) {
        extent = factor.size;
      } else if (f > 0 && rest >= factor.size) {
        extent = factor.size;
        rest = (rest + factor.size - 1) / factor.size;
      } else {
        extent = std::min(rest, factor.size);
        rest = 1;
      }
      span += (extent - 1) * factor.stride;
    }
  }
  return span + 1;
}

namespace {

int64_t bytesOf(Value v) {
  return cast<ShapedType>(v.getType()).getElementTypeBitWidth() / 8;
}

/// The box one tile takes of tensor `v` (read or written by `k` in form `f`), in the
/// tensor's own dimensions: blocks of rows as the division cuts them, whole columns.
std::vector<int64_t> tileBox(const KernelGroup& k, const Division& d, Value v, Form f) {
  ArrayRef<int64_t> shape = shapeOf(v);
  std::vector<int64_t> box(shape.begin(), shape.end());
  if (box.empty()) return box;
  const bool matmul = k.kind == KernelGroup::Kind::Matmul;
  if (f == Form::PerCol) {
    if (matmul) box.back() = d.blockCols;
    return box;
  }
  // The rows the tile takes, as a box of the leading dimensions: the innermost leading
  // dimensions whole while the rows cover them, then a run of the next.
  auto rowsBox = [&](int64_t rows, size_t leading) {
    for (size_t i = leading; i-- > 0;) {
      if (rows >= box[i]) {
        rows = (rows + box[i] - 1) / box[i];
        continue;
      }
      box[i] = rows;
      for (size_t j = 0; j < i; ++j) box[j] = 1;
      break;
    }
  };
  if (matmul) {
    Operation* mm = k.ops.front();
    const int64_t span = k.depth / d.gridDepth;
    if (v == mm->getOperand(0)) {
      box.back() = span;
      rowsBox(d.blockRows, box.size() - 1);
    } else if (v == mm->getOperand(1)) {
      box.back() = d.blockCols;
      rowsBox(span, box.size() - 1);
      if (box.size() == 3) box[0] = 1; // one matrix of the batch
    } else {
      if (f != Form::PerRow) box.back() = d.blockCols;
      rowsBox(d.blockRows, f == Form::PerRow ? box.size() : box.size() - 1);
    }
    return box;
  }
  if (f == Form::Repeated || f == Form::Spread) return box; // rows of the whole matrix
  rowsBox(d.blockRows, f == Form::PerRow ? box.size() : box.size() - 1);
  return box;
}

} // namespace

TileSpan widestTileSpan(const KernelGroup& k, const Division& d, const KernelPlan& plan) {
  TileSpan widest;
  auto consider = [&](Value v, const TensorView& view, const std::vector<int64_t>& box) {
    const int64_t bytes = boxSpanElements(view, box) * bytesOf(v);
    if (bytes > widest.bytes) widest = {bytes, v};
  };
  Operation* op = k.ops.front();
  if (k.kind == KernelGroup::Kind::Gather) {
    // Any row of the table: the whole of it.
    Value table = op->getOperand(0);
    consider(table, plan.views.lookup(table),
             std::vector<int64_t>(shapeOf(table).begin(), shapeOf(table).end()));
  }
  if (k.kind == KernelGroup::Kind::Window) {
    // The image rows a block of output rows reaches through its windows, of one image.
    const Window w = windowOf(op);
    Value image = op->getOperand(0);
    std::vector<int64_t> box(shapeOf(image).begin(), shapeOf(image).end());
    box[0] = 1;
    box[1] = std::min(box[1], (d.blockRows - 1) * w.strideH + (w.KH - 1) * w.dilationH + 1);
    consider(image, plan.views.lookup(image), box);
    Value out = op->getResult(0);
    std::vector<int64_t> obox(shapeOf(out).begin(), shapeOf(out).end());
    obox[0] = 1;
    obox[1] = d.blockRows;
    consider(out, plan.views.lookup(out), obox);
    return widest;
  }
  if (k.kind == KernelGroup::Kind::Relayout || k.kind == KernelGroup::Kind::Fill) {
    std::vector<int64_t> box = k.source.shape();
    if (box.size() >= 3) {
      // A tile's box of batch positions (Division.h), every column.
      const std::vector<int64_t> batch =
          batchBox(llvm::ArrayRef<int64_t>(box).drop_back(2), d.blockBatch);
      std::fill(box.begin(), box.end() - 2, 1);
      std::copy(batch.begin(), batch.end(), box.begin());
    }
    if (box.size() >= 2) box[box.size() - 2] = d.blockRows;
    if (k.kind == KernelGroup::Kind::Relayout) box.back() = d.blockCols;
    consider(k.copyFrom, k.source, box);
    consider(k.copyFrom, k.dest, box);
    return widest;
  }
  for (const auto* list : {&k.inputs, &k.outputs})
    for (const Operand& o : *list) {
      if (k.kind == KernelGroup::Kind::Gather && o.value == op->getOperand(0)) continue;
      auto it = plan.views.find(o.value);
      if (it == plan.views.end()) continue;
      consider(o.value, it->second, tileBox(k, d, o.value, o.form));
    }
  return widest;
}

} // namespace chipless::frontend
