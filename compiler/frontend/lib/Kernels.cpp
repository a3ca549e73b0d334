//===- Kernels.cpp - grouping a graph's ops into Spyre kernels ------------===//
//
// Part of chipless. See Kernels.h.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

#include "GraphRewrites.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <optional>

using namespace mlir;

namespace chipless::frontend {

int64_t rowsOf(ArrayRef<int64_t> shape) {
  int64_t r = 1;
  for (size_t i = 0; i + 1 < shape.size(); ++i) r *= shape[i];
  return r;
}

bool isInitOp(Operation* op) {
  if (isa<tensor::EmptyOp, arith::ConstantOp>(op)) return true;
  if (auto fill = dyn_cast<linalg::FillOp>(op))
    return fill.getInputs()[0].getDefiningOp<arith::ConstantOp>() != nullptr;
  return false;
}

Value memoryRoot(const KernelPlan& plan, Value v) {
  for (auto it = plan.memoryOf.find(v); it != plan.memoryOf.end(); it = plan.memoryOf.find(v))
    v = it->second;
  return v;
}

namespace {

ArrayRef<int64_t> shapeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape();
}

/// One op in row form: its kind of kernel, its domain and the form of each tensor it reads
/// and writes.
struct RowForm {
  KernelGroup::Kind kind = KernelGroup::Kind::Rows;
  int64_t rows = 1, cols = 1, depth = 0, batch = 1;
  bool elementwise = true; ///< no reduction along the rows (fuses after a matmul)
  std::vector<Operand> reads, writes;
};

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
                "per column or a matrix repeated along the leading dimensions";
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
  ArrayRef<int64_t> out = shapeOf(op->getResult(0));
  f.rows = out[0] * out[1]; // images x output rows
  f.cols = 1;
  for (size_t i = 2; i < out.size(); ++i) f.cols *= out[i];
  if (auto p = dyn_cast<linalg::LinalgOp>(op); p && !isa<linalg::GenericOp>(op)) {
    // Pooling: windows that tile the image (stride = window, no dilation).
    ArrayRef<int64_t> in = shapeOf(p.getDpsInputs()[0]), win = shapeOf(p.getDpsInputs()[1]);
    auto strides = op->getAttrOfType<DenseIntElementsAttr>("strides");
    auto dilations = op->getAttrOfType<DenseIntElementsAttr>("dilations");
    bool tiles = in[1] == out[1] * win[0] && in[2] == out[2] * win[1];
    if (strides) {
      auto sv = llvm::to_vector(strides.getValues<int64_t>());
      tiles &= sv.size() == 2 && sv[0] == win[0] && sv[1] == win[1];
    }
    if (dilations)
      tiles &= llvm::all_of(dilations.getValues<int64_t>(), [](int64_t v) { return v == 1; });
    if (!tiles)
      return op->emitError("the Spyre front end pools with windows that tile the image (strides "
                           "equal to the window, no dilation, the image a whole number of "
                           "windows)");
    f.reads.push_back({p.getDpsInputs()[0], Form::Matrix});
  } else {
    f.reads.push_back({op->getOperand(0), Form::Matrix});
  }
  f.writes.push_back({op->getResult(0), Form::Matrix});
  return f;
}

FailureOr<RowForm> rowFormOf(Operation* op) {
  RowForm f;
  auto matrix = [&](Value v) { return Operand{v, Form::Matrix}; };
  if (op->hasAttr(kUnfoldAttr) || isa<linalg::PoolingNhwcMaxOp, linalg::PoolingNhwcSumOp>(op))
    return windowForm(op);
  if (isa<linalg::Conv2DNhwcHwcfOp>(op))
    return op->emitError("the Spyre front end convolves with strides and dilations of 1 only");
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
  if (auto t = dyn_cast<linalg::TransposeOp>(op)) {
    ArrayRef<int64_t> out = shapeOf(t->getResult(0));
    if (out.size() > 3)
      return t.emitError("the Spyre front end permutes tensors of rank 2 and 3 only (got rank ")
             << out.size() << ")";
    // Written a block of output rows at a time, read through a view of the input with
    // its strides permuted: the DMA engines do the permutation.
    f.kind = KernelGroup::Kind::Transpose;
    f.batch = out.size() == 3 ? out[0] : 1;
    f.rows = rowsOf(out);
    f.cols = out.back();
    f.elementwise = false;
    f.reads.push_back(matrix(t.getInput()));
    f.writes.push_back(matrix(t->getResult(0)));
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
  if (isa<linalg::TransposeOp>(op)) return "transpose";
  if (isa<linalg::ReduceOp>(op)) return "reduce";
  return "rows";
}

} // namespace

FailureOr<KernelPlan> formKernels(func::FuncOp f) {
  KernelPlan plan;
  llvm::DenseMap<Value, int> producer; // tensor -> index of the kernel computing it
  for (Operation& o : f.getBody().front()) {
    Operation* op = &o;
    if (isa<func::ReturnOp>(op) || isInitOp(op)) continue;
    if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(op)) {
      // A reshape of a row-major tensor is a view of the same memory.
      plan.memoryOf[op->getResult(0)] = op->getOperand(0);
      continue;
    }
    if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op)) {
      // A box of the source's memory, when it is one in row form: the first dimension and
      // the last may be cut, the others are whole; the source is a tensor of its own.
      Value src = slice.getSource();
      ArrayRef<int64_t> in = shapeOf(src), out = shapeOf(slice.getResult());
      auto offsets = slice.getStaticOffsets();
      bool box = !plan.memoryOf.count(src) && !plan.slices.count(src);
      for (size_t d = 1; d + 1 < in.size(); ++d) box &= out[d] == in[d] && offsets[d] == 0;
      if (!box)
        return slice.emitError("the Spyre front end slices the first and the last dimension of "
                               "a tensor that is not itself a view only"),
               failure();
      KernelPlan::Slice s;
      s.row = in.size() > 1 ? offsets[0] * (rowsOf(in) / in[0]) : 0;
      s.col = offsets.back();
      plan.memoryOf[slice.getResult()] = src;
      plan.slices[slice.getResult()] = s;
      continue;
    }
    FailureOr<RowForm> rf = rowFormOf(op);
    if (failed(rf)) return failure();
    KernelGroup* cur = plan.kernels.empty() ? nullptr : &plan.kernels.back();
    const int curIndex = static_cast<int>(plan.kernels.size()) - 1;
    // Join the kernel before when the op reads something it computes (or a tensor it reads)
    // and the division of that kernel suits the op too.
    bool join = false;
    if (cur && rf->kind == KernelGroup::Kind::Rows && rf->rows == cur->rows) {
      bool reads = false;
      // It reads what the kernel computes, or a tensor the kernel already reads (siblings:
      // the tensor is loaded once for both).
      for (const Operand& r : rf->reads) {
        auto p = producer.find(r.value);
        if (p != producer.end() && p->second == curIndex) reads = true;
        if (cur->forms.count(r.value) && cur->kind == KernelGroup::Kind::Rows) reads = true;
      }
      if (cur->kind == KernelGroup::Kind::Rows)
        join = reads;
      else if (cur->kind == KernelGroup::Kind::Matmul)
        // Element-wise ops; and, after a batch matmul (attention's scores), ops along whole
        // rows (a softmax), its tiles then taking whole rows: each matrix of the batch is
        // small, so little is lost. After a plain matmul (a projection) forcing whole rows
        // costs more than a second kernel saves (docs/performance.md).
        join = reads && rf->cols == cur->cols && (rf->elementwise || cur->batch > 1);
      // An epilogue's whole operands must be blocks of the output.
      if (join && cur->kind == KernelGroup::Kind::Matmul)
        for (const Operand& r : rf->reads)
          if (r.form == Form::Matrix && shapeOf(r.value).back() != cur->cols) join = false;
    }
    if (!join) {
      KernelGroup k;
      k.kind = rf->kind;
      k.rows = rf->rows;
      k.cols = rf->cols;
      k.depth = rf->depth;
      k.batch = rf->batch;
      k.name = "k" + std::to_string(plan.kernels.size() + 1) + "_" + kindWord(op);
      plan.kernels.push_back(std::move(k));
      cur = &plan.kernels.back();
    } else if (isa<linalg::SoftmaxOp>(op) && cur->name.find("softmax") == std::string::npos) {
      cur->name += "_softmax";
    }
    const int index = static_cast<int>(plan.kernels.size()) - 1;
    if (join && cur->kind == KernelGroup::Kind::Matmul && !rf->elementwise) cur->wholeRows = true;
    cur->ops.push_back(op);
    for (const Operand& r : rf->reads) {
      auto [it, inserted] = cur->forms.try_emplace(r.value, r.form);
      if (!inserted && it->second != r.form)
        return op->emitError("the Spyre front end reads one tensor in two forms in one kernel "
                             "(a whole matrix and a vector)");
    }
    for (const Operand& w : rf->writes) {
      cur->forms[w.value] = w.form;
      producer[w.value] = index;
    }
  }
  // What each kernel reads from and writes to device memory.
  for (size_t k = 0; k < plan.kernels.size(); ++k) {
    KernelGroup& kg = plan.kernels[k];
    llvm::DenseSet<Operation*> inKernel(kg.ops.begin(), kg.ops.end());
    llvm::DenseSet<Value> seen;
    for (Operation* op : kg.ops) {
      for (Value v : op->getOperands()) {
        if (!isa<RankedTensorType>(v.getType()) || seen.contains(v)) continue;
        Operation* def = v.getDefiningOp();
        if (def && (inKernel.contains(def) || isInitOp(def))) continue;
        if (!kg.forms.count(v)) continue; // an init the op does not read
        seen.insert(v);
        kg.inputs.push_back({v, kg.formOf(v)});
      }
      for (Value r : op->getResults()) {
        bool outside = false;
        for (Operation* user : r.getUsers()) outside |= !inKernel.contains(user);
        if (outside) kg.outputs.push_back({r, kg.formOf(r)});
      }
    }
  }
  return plan;
}

} // namespace chipless::frontend
