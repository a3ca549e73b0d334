//===- RowForm.cpp - each op of a graph in row form ------------------------===//
//
// Part of chipless. See RowForm.h.
//
//===----------------------------------------------------------------------===//

#include "RowForm.h"

#include "GraphRewrites.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <optional>

using namespace mlir;

namespace chipless::frontend {

Window windowOf(Operation* op) {
  Window w;
  auto pair = [](ArrayRef<int64_t> v, int64_t& h, int64_t& x) {
    if (v.size() == 2) {
      h = v[0];
      x = v[1];
    }
  };
  if (auto s = op->getAttrOfType<DenseI64ArrayAttr>(kWindowStridesAttr))
    pair(s.asArrayRef(), w.strideH, w.strideW);
  if (auto d = op->getAttrOfType<DenseI64ArrayAttr>(kWindowDilationsAttr))
    pair(d.asArrayRef(), w.dilationH, w.dilationW);
  auto dense = [&](DenseIntElementsAttr a, int64_t& h, int64_t& x) {
    if (a) pair(llvm::to_vector(a.getValues<int64_t>()), h, x);
  };
  ArrayRef<int64_t> out = cast<RankedTensorType>(op->getResult(0).getType()).getShape();
  if (auto p = dyn_cast<linalg::PoolingNhwcMaxOp>(op)) {
    dense(p.getStrides(), w.strideH, w.strideW);
    dense(p.getDilations(), w.dilationH, w.dilationW);
  } else if (auto p = dyn_cast<linalg::PoolingNhwcSumOp>(op)) {
    dense(p.getStrides(), w.strideH, w.strideW);
    dense(p.getDilations(), w.dilationH, w.dilationW);
  }
  if (out.size() == 6) { // an unfold [N, OH, OW, KH, KW, C]
    w.KH = out[3];
    w.KW = out[4];
  } else {
    ArrayRef<int64_t> win = cast<RankedTensorType>(op->getOperand(1).getType()).getShape();
    w.KH = win[0];
    w.KW = win[1];
  }
  return w;
}

namespace {

/// Whether `v` is only an initial value the op overwrites (an init it does not read).
bool isUnreadInit(linalg::LinalgOp op, OpOperand& operand) {
  return op.isDpsInit(&operand) && !op.payloadUsesValueFromOperand(&operand);
}

/// The form of one operand of a generic over `loops` loops with indexing map `m`.
std::optional<Form> formOfMap(AffineMap m, unsigned loops) {
  if (m.isIdentity() && m.getNumResults() == loops) return Form::Matrix;
  if (loops > 1 && m.getNumResults() == 1 && m.isProjectedPermutation() &&
      m.getDimPosition(0) == loops - 1)
    return Form::PerCol;
  // The trailing dimensions (two or more, fewer than all): a matrix repeated along the
  // leading ones.
  if (loops > 2 && m.getNumResults() >= 2 && m.getNumResults() < loops &&
      m.isProjectedPermutation()) {
    bool trailing = true;
    for (unsigned r = 0; r < m.getNumResults(); ++r)
      trailing &= m.getDimPosition(r) == loops - m.getNumResults() + r;
    if (trailing) return Form::Repeated;
  }
  // Leading dimensions, a run of dropped ones, then the last: a matrix broadcast along
  // middle dimensions.
  if (loops > 2 && m.getNumResults() >= 2 && m.getNumResults() < loops &&
      m.isProjectedPermutation() && m.getDimPosition(m.getNumResults() - 1) == loops - 1) {
    bool leading = true;
    for (unsigned r = 0; r + 1 < m.getNumResults(); ++r) leading &= m.getDimPosition(r) == r;
    if (leading) return Form::Spread;
  }
  if (loops > 1 && m.getNumResults() == loops - 1 && m.isProjectedPermutation()) {
    for (unsigned r = 0; r < loops - 1; ++r)
      if (m.getDimPosition(r) != r) return std::nullopt;
    return Form::PerRow;
  }
  return std::nullopt;
}

FailureOr<RowForm> rowFormOfGeneric(linalg::GenericOp g) {
  RowForm f;
  const unsigned loops = g.getNumLoops();
  SmallVector<int64_t> ranges = g.getStaticLoopRanges();
  auto iters = g.getIteratorTypesArray();
  for (unsigned i = 0; i + 1 < loops; ++i)
    if (iters[i] != utils::IteratorType::parallel)
      return g.emitError("the Spyre front end reduces along the last dimension only (loop ")
             << i << " of " << loops << " reduces)";
  const bool reduces = iters.back() == utils::IteratorType::reduction;
  if (reduces && loops < 2)
    return g.emitError("a reduction of a whole vector to one value is not supported by the "
                       "Spyre front end: reshape it to tensor<1xN> first");
  f.rows = rowsOf(ranges);
  f.cols = ranges.back();
  f.elementwise = !reduces;
  for (OpOperand& o : g->getOpOperands()) {
    if (isUnreadInit(g, o)) continue;
    auto form = formOfMap(g.getMatchingIndexingMap(&o), loops);
    if (!form)
      return g.emitError("operand ")
             << o.getOperandNumber() << " has indexing map "
             << AffineMapAttr::get(g.getMatchingIndexingMap(&o))
             << ": the Spyre front end takes whole operands, one value per row, one value "
                "per column, a matrix repeated along the leading dimensions or broadcast "
                "along the dimensions before the last that follow the ones it keeps";
    if (g.isDpsInit(&o) && reduces) continue; // the accumulator's initial value
    f.reads.push_back({o.get(), *form});
  }
  for (OpOperand& init : g.getDpsInitsMutable()) {
    auto form = formOfMap(g.getMatchingIndexingMap(&init), loops);
    if (!form || (reduces ? *form != Form::PerRow : *form != Form::Matrix))
      return g.emitError("its output must index ")
             << (reduces ? "every loop but the last" : "every loop") << " in order";
    f.writes.push_back({g.getTiedOpResult(&init), *form});
  }
  return f;
}

/// A window kernel: a convolution's unfold or a pooling, divided by rows of output pixels.
FailureOr<RowForm> windowForm(Operation* op) {
  RowForm f;
  f.kind = KernelGroup::Kind::Window;
  f.elementwise = false;
  ArrayRef<int64_t> out = shapeOf(op->getResult(0)), in = shapeOf(op->getOperand(0));
  f.rows = out[0] * out[1]; // images x output rows
  f.cols = 1;
  for (size_t i = 2; i < out.size(); ++i) f.cols *= out[i];
  // Every window lies inside the image (linalg does not pad).
  const Window w = windowOf(op);
  if ((out[1] - 1) * w.strideH + (w.KH - 1) * w.dilationH >= in[1] ||
      (out[2] - 1) * w.strideW + (w.KW - 1) * w.dilationW >= in[2])
    return op->emitError("its windows reach outside the ")
           << in[1] << " x " << in[2] << " image: " << out[1] << " x " << out[2]
           << " windows of " << w.KH << " x " << w.KW << " with strides " << w.strideH << ", "
           << w.strideW << " and dilations " << w.dilationH << ", " << w.dilationW;
  f.reads.push_back({op->getOperand(0), Form::Matrix});
  f.writes.push_back({op->getResult(0), Form::Matrix});
  return f;
}

} // namespace

FailureOr<RowForm> rowFormOf(Operation* op) {
  RowForm f;
  auto matrix = [&](Value v) { return Operand{v, Form::Matrix}; };
  if (op->hasAttr(kUnfoldAttr) || isa<linalg::PoolingNhwcMaxOp, linalg::PoolingNhwcSumOp>(op))
    return windowForm(op);
  if (isa<linalg::Conv2DNhwcHwcfOp>(op))
    return op->emitError("the Spyre front end convolves tensors of static shape only");
  if (auto g = dyn_cast<linalg::GenericOp>(op)) return rowFormOfGeneric(g);
  if (isa<linalg::AddOp, linalg::SubOp, linalg::MulOp, linalg::DivOp>(op)) {
    auto lin = cast<linalg::LinalgOp>(op);
    ArrayRef<int64_t> s = shapeOf(op->getResult(0));
    f.rows = rowsOf(s);
    f.cols = s.back();
    for (Value v : lin.getDpsInputs()) f.reads.push_back(matrix(v));
    f.writes.push_back(matrix(op->getResult(0)));
    return f;
  }
  if (auto r = dyn_cast<linalg::ReduceOp>(op)) {
    ArrayRef<int64_t> s = shapeOf(r.getInputs()[0]);
    auto dims = r.getDimensions();
    if (dims.size() != 1 || dims[0] != static_cast<int64_t>(s.size()) - 1 || s.size() < 2)
      return r.emitError("the Spyre front end reduces along the last dimension of a tensor of "
                         "rank 2 or more only (dimension ")
             << static_cast<int64_t>(s.size()) - 1 << ")";
    f.rows = rowsOf(s);
    f.cols = s.back();
    f.elementwise = false;
    f.reads.push_back(matrix(r.getInputs()[0]));
    f.writes.push_back({r->getResult(0), Form::PerRow});
    return f;
  }
  if (auto b = dyn_cast<linalg::BroadcastOp>(op)) {
    ArrayRef<int64_t> out = shapeOf(b.getInit());
    auto dims = b.getDimensions();
    const int64_t n = static_cast<int64_t>(out.size());
    f.rows = rowsOf(out);
    f.cols = out.back();
    bool lastOnly = dims.size() == 1 && dims[0] == n - 1 && n >= 2;
    bool leading = static_cast<int64_t>(dims.size()) == n - 1 && n >= 2;
    for (int64_t i = 0; leading && i < n - 1; ++i) leading = dims[i] == i;
    if (!lastOnly && !leading)
      return b.emitError("the Spyre front end broadcasts a vector along the rows (dimensions "
                         "= every one but the last) or along the columns (dimensions = the "
                         "last) only");
    f.reads.push_back({b.getInput(), lastOnly ? Form::PerRow : Form::PerCol});
    f.writes.push_back(matrix(b->getResult(0)));
    return f;
  }
  if (auto s = dyn_cast<linalg::SoftmaxOp>(op)) {
    ArrayRef<int64_t> sh = shapeOf(s.getInput());
    if (static_cast<int64_t>(s.getDimension()) != static_cast<int64_t>(sh.size()) - 1)
      return s.emitError("the Spyre front end computes softmax along the last dimension only "
                         "(dimension ")
             << sh.size() - 1 << ")";
    f.rows = rowsOf(sh);
    f.cols = sh.back();
    f.elementwise = false;
    f.reads.push_back(matrix(s.getInput()));
    f.writes.push_back(matrix(s->getResult(0)));
    return f;
  }
  if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op)) {
    auto m = cast<linalg::LinalgOp>(op);
    ArrayRef<int64_t> a = shapeOf(m.getDpsInputs()[0]), b = shapeOf(m.getDpsInputs()[1]);
    Value init = m.getDpsInits()[0];
    auto fill = init.getDefiningOp<linalg::FillOp>();
    auto zero = fill ? fill.getInputs()[0].getDefiningOp<arith::ConstantOp>() : nullptr;
    auto zeroValue = zero ? dyn_cast<FloatAttr>(zero.getValue()) : nullptr;
    if (!zeroValue || !zeroValue.getValue().isZero())
      return op->emitError("the Spyre front end multiplies into a zero fill only: add the init "
                           "with a linalg.add after the matmul");
    Type ea = cast<ShapedType>(m.getDpsInputs()[0].getType()).getElementType();
    Type eb = cast<ShapedType>(m.getDpsInputs()[1].getType()).getElementType();
    if ((!ea.isF16() && !ea.isBF16()) || ea != eb)
      return op->emitError("the PT array multiplies f16 or bf16 matrices of one type (got ")
             << ea << " and " << eb << ")";
    // A batch of matmuls: the rows of every batch, one after another.
    const bool batched = a.size() == 3;
    f.kind = KernelGroup::Kind::Matmul;
    f.batch = batched ? a[0] : 1;
    f.rows = f.batch * a[a.size() - 2];
    f.depth = a.back();
    f.cols = b.back();
    f.reads.push_back(matrix(m.getDpsInputs()[0]));
    f.reads.push_back(matrix(m.getDpsInputs()[1]));
    f.writes.push_back(matrix(op->getResult(0)));
    return f;
  }
  if (auto g = dyn_cast<tensor::GatherOp>(op)) {
    // Rows of a matrix by index: [N..., 1] indices into [V, D] give [N..., (1,) D].
    ArrayRef<int64_t> src = shapeOf(g.getSource()), idx = shapeOf(g.getIndices());
    auto dims = g.getGatherDims();
    Type it = cast<ShapedType>(g.getIndices().getType()).getElementType();
    if (src.size() != 2 || dims.size() != 1 || dims[0] != 0 || idx.back() != 1 ||
        !it.isInteger(32))
      return g.emitError("the Spyre front end gathers rows of a matrix by i32 indices only "
                         "(gather_dims([0]) of a rank-2 source, indices [..., 1] of i32)");
    f.kind = KernelGroup::Kind::Gather;
    f.rows = rowsOf(idx);
    f.cols = src.back();
    f.elementwise = false;
    f.reads.push_back(matrix(g.getSource()));
    f.reads.push_back({g.getIndices(), Form::PerRow});
    f.writes.push_back(matrix(g->getResult(0)));
    return f;
  }
  if (auto c = dyn_cast<linalg::CopyOp>(op)) {
    // A re-layout: a block of the result's rows at a time, read through the source's view.
    ArrayRef<int64_t> out = shapeOf(c->getResult(0));
    f.kind = KernelGroup::Kind::Relayout;
    f.batch = 1;
    for (size_t i = 0; i + 2 < out.size(); ++i) f.batch *= out[i];
    f.rows = rowsOf(out);
    f.cols = out.back();
    f.elementwise = false;
    f.reads.push_back(matrix(c.getInputs()[0]));
    f.writes.push_back(matrix(c->getResult(0)));
    return f;
  }
  return op->emitError("'") << op->getName()
                            << "' is not supported by the Spyre front end (docs/frontend.md)";
}

const char* kindWord(Operation* op) {
  if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op)) return "matmul";
  if (op->hasAttr(kUnfoldAttr)) return "unfold";
  if (isa<linalg::PoolingNhwcMaxOp, linalg::PoolingNhwcSumOp>(op)) return "pool";
  if (isa<linalg::SoftmaxOp>(op)) return "softmax";
  if (isa<linalg::CopyOp>(op)) return "relayout";
  if (isa<tensor::GatherOp>(op)) return "gather";
  if (isa<linalg::ReduceOp>(op)) return "reduce";
  return "rows";
}

} // namespace chipless::frontend
