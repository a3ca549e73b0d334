//===- Kernels.cpp - grouping a graph's ops into Spyre kernels ------------===//
//
// Part of chipless. See Kernels.h.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

#include "GraphRewrites.h"
#include "RowForm.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "support/spyre_arch.h"

#include "llvm/ADT/SmallBitVector.h"

#include <functional>
#include <optional>

using namespace mlir;

namespace chipless::frontend {

int64_t rowsOf(ArrayRef<int64_t> shape) {
  int64_t r = 1;
  for (size_t i = 0; i + 1 < shape.size(); ++i) r *= shape[i];
  return r;
}

int64_t spreadPeriod(const KernelGroup& k, Value v) {
  return k.rows / rowsOf(cast<RankedTensorType>(v.getType()).getShape());
}

bool isInitOp(Operation* op) {
  if (isa<tensor::EmptyOp, arith::ConstantOp>(op)) return true;
  if (auto fill = dyn_cast<linalg::FillOp>(op))
    return fill.getInputs()[0].getDefiningOp<arith::ConstantOp>() != nullptr;
  return false;
}

Value memoryRoot(const KernelPlan& plan, Value v) {
  auto it = plan.views.find(v);
  return it == plan.views.end() ? v : it->second.root;
}

namespace {

/// Marks a re-layout whose result is packed row-major (a vector of one value per row).
constexpr const char* kFlatAttr = "frontend.flat";

bool isViewOp(Operation* op) {
  return isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp, tensor::ExtractSliceOp,
             linalg::TransposeOp>(op);
}

/// The result of view op `op` as a strided view of `src`; empty when it is not one.
std::optional<TensorView> viewOf(Operation* op, const TensorView& src) {
  ArrayRef<int64_t> out = shapeOf(op->getResult(0));
  auto groupsOf = [](SmallVector<ReassociationIndices> r) {
    std::vector<SmallVector<int64_t, 2>> g;
    for (auto& x : r) g.emplace_back(x.begin(), x.end());
    return g;
  };
  if (auto e = dyn_cast<tensor::ExpandShapeOp>(op))
    return reshapeView(src, out, groupsOf(e.getReassociationIndices()), /*expand=*/true);
  if (auto c = dyn_cast<tensor::CollapseShapeOp>(op))
    return reshapeView(src, out, groupsOf(c.getReassociationIndices()), /*expand=*/false);
  if (auto t = dyn_cast<linalg::TransposeOp>(op)) return permuteView(src, t.getPermutation());
  auto slice = cast<tensor::ExtractSliceOp>(op);
  auto v =
      sliceView(src, slice.getStaticOffsets(), slice.getStaticSizes(), slice.getStaticStrides());
  if (!v) return v;
  // A rank-reducing slice drops dimensions of one element.
  llvm::SmallBitVector dropped = slice.getDroppedDims();
  std::vector<DimLayout> kept;
  for (size_t i = 0; i < v->dims.size(); ++i)
    if (!dropped.test(static_cast<unsigned>(i))) kept.push_back(v->dims[i]);
  v->dims = std::move(kept);
  return v;
}

/// Whether a view of `v` (through reshapes, permutations and slices) splits or merges its
/// last dimension with another: the view then folds stick columns into rows or rows into
/// sticks.
bool reshapesLastDim(Value v) {
  for (OpOperand& use : v.getUses()) {
    Operation* op = use.getOwner();
    if (use.getOperandNumber() != 0 || !isViewOp(op)) continue;
    const int64_t last = static_cast<int64_t>(shapeOf(v).size()) - 1;
    auto wide = [](ArrayRef<int64_t> shape, const ReassociationIndices& g) {
      int64_t n = 0;
      for (int64_t i : g) n += shape[static_cast<size_t>(i)] != 1;
      return n;
    };
    if (auto e = dyn_cast<tensor::ExpandShapeOp>(op)) {
      if (wide(shapeOf(e.getResult()), e.getReassociationIndices()[static_cast<size_t>(last)]) > 1)
        return true;
    } else if (auto c = dyn_cast<tensor::CollapseShapeOp>(op)) {
      if (wide(shapeOf(v), c.getReassociationIndices().back()) > 1) return true;
    }
    if (reshapesLastDim(op->getResult(0))) return true;
  }
  return false;
}

/// Whether a kernel of `kind` can read `v` in form `f` as it lies.
bool readable(KernelGroup::Kind kind, Form f, const TensorView& v) {
  if (kind == KernelGroup::Kind::Relayout) return true;
  if (kind == KernelGroup::Kind::Window) {
    // Boxes of the image: every dimension but the channels one strided factor.
    for (size_t i = 0; i + 1 < v.dims.size(); ++i)
      if (v.dims[i].factors.size() != 1) return false;
    return matrixView(v).has_value();
  }
  if (f == Form::Matrix || f == Form::Repeated || f == Form::Spread)
    return matrixView(v).has_value();
  return vectorView(v).has_value();
}

} // namespace

FailureOr<KernelPlan> formKernels(func::FuncOp f, const MemoryParams& memory) {
  KernelPlan plan;
  llvm::DenseMap<Value, int> producer; // tensor -> index of the kernel computing it
  auto stickElems = [&](Value v) {
    return elementsInStick(memory.stickBytes,
                           cast<ShapedType>(v.getType()).getElementTypeBitWidth() / 8);
  };
  auto makeRoot = [&](Value v, RootLayout layout, ArrayRef<int64_t> layoutShape) {
    // Stick columns padded to spread them over the DRAM channels, unless a reshape folds
    // them into rows (a view of heads), which needs them exactly one after another. An
    // argument lies as the device's canonical layout has it (a device tensor is bound where
    // it lies): such a reshape of it reads a re-layout.
    int64_t padded = 0;
    if (layout == RootLayout::Stick && !layoutShape.empty() &&
        (isa<BlockArgument>(v) || !reshapesLastDim(v))) {
      const int64_t rows = rowsOf(layoutShape);
      const int64_t sticks = (layoutShape.back() + stickElems(v) - 1) / stickElems(v);
      const int64_t p = paddedRows(rows, sticks, memory);
      if (p != rows) padded = p;
    }
    auto view = rootView(v, shapeOf(v), layoutShape, layout, stickElems(v), padded);
    if (!view) return false;
    plan.views[v] = *view;
    plan.roots[v] = {layout, std::vector<int64_t>(layoutShape.begin(), layoutShape.end()), padded};
    return true;
  };
  for (BlockArgument a : f.getArguments())
    if (isa<RankedTensorType>(a.getType())) makeRoot(a, RootLayout::Stick, shapeOf(a));
  // A copy of `v`, before `before`, into a tensor of its own laid out as `layout`.
  auto copyOf = [&](Value v, Operation* before, RootLayout layout) {
    OpBuilder b(before);
    auto t = cast<RankedTensorType>(v.getType());
    Value empty = b.create<tensor::EmptyOp>(before->getLoc(), t.getShape(), t.getElementType());
    auto c = b.create<linalg::CopyOp>(before->getLoc(), v, empty);
    if (layout == RootLayout::Flat) c->setAttr(kFlatAttr, b.getUnitAttr());
    return c;
  };

  // A copy kernel of `op` (named after `word`): tensor `in`, lying as `source`, into `dest`,
  // a box of `result`'s memory (a part of a concatenation, a padded tensor's interior).
  auto boxCopy = [&](Operation* op, const char* word, Value in, const TensorView& source,
                     const TensorView& dest, Value result) {
    ArrayRef<int64_t> part = shapeOf(in);
    KernelGroup k;
    k.kind = KernelGroup::Kind::Relayout;
    k.name = "k" + std::to_string(plan.kernels.size() + 1) + "_" + word;
    for (size_t i = 0; i + 2 < part.size(); ++i) k.batch *= part[i];
    k.rows = rowsOf(part);
    k.cols = part.back();
    k.copyFrom = in;
    k.source = source;
    k.dest = dest;
    k.ops.push_back(op);
    k.forms[in] = Form::Matrix;
    k.forms[result] = Form::Matrix;
    k.inputs.push_back({in, Form::Matrix});
    k.outputs.push_back({result, Form::Matrix});
    plan.kernels.push_back(std::move(k));
    producer[result] = static_cast<int>(plan.kernels.size()) - 1;
  };

  // A concatenation: its result a tensor of its own (packed when a part starts inside a
  // stick), each input copied into its box by a kernel of its own.
  auto concatenate = [&](tensor::ConcatOp cat) -> LogicalResult {
    Value result = cat.getResult();
    ArrayRef<int64_t> shape = shapeOf(result);
    const size_t dim = cat.getDim();
    RootLayout layout = RootLayout::Stick;
    int64_t offset = 0;
    for (Value in : cat.getInputs()) {
      if (dim + 1 == shape.size() && offset % stickElems(result) != 0) layout = RootLayout::Flat;
      offset += shapeOf(in)[dim];
    }
    if (!makeRoot(result, layout, shape))
      return cat.emitError("internal error: the Spyre front end found no layout for this "
                           "result");
    offset = 0;
    for (Value in : cat.getInputs()) {
      ArrayRef<int64_t> part = shapeOf(in);
      auto src = plan.views.find(in);
      if (src == plan.views.end())
        return cat.emitError("the Spyre front end concatenates tensors in device memory only "
                             "(an input is a constant)");
      std::vector<int64_t> offsets(shape.size(), 0), ones(shape.size(), 1);
      offsets[dim] = offset;
      offset += part[dim];
      auto box = sliceView(plan.views[result], offsets, part, ones);
      if (!box)
        return cat.emitError("internal error: the Spyre front end cannot place a part of the "
                             "concatenation");
      boxCopy(cat, "concat", in, src->second, *box, result);
    }
    return success();
  };

  // A kernel of `op` setting every element of `result` (a root of its own) to `value`.
  auto fillKernel = [&](Operation* op, Value result, Attribute value) {
    ArrayRef<int64_t> shape = shapeOf(result);
    KernelGroup fill;
    fill.kind = KernelGroup::Kind::Fill;
    fill.name = "k" + std::to_string(plan.kernels.size() + 1) + "_fill";
    fill.rows = rowsOf(shape);
    fill.cols = shape.back();
    fill.copyFrom = result;
    fill.source = fill.dest = plan.views[result];
    fill.fillValue = value;
    fill.ops.push_back(op);
    fill.forms[result] = Form::Matrix;
    fill.outputs.push_back({result, Form::Matrix});
    plan.kernels.push_back(std::move(fill));
  };

  // `v`, when a linalg.fill of a constant not in device memory yet, given memory of its own
  // and a fill kernel writing it; anything else is left as it is.
  auto fillInMemory = [&](Value v) -> LogicalResult {
    auto fill = v.getDefiningOp<linalg::FillOp>();
    Attribute value;
    if (!fill || plan.views.count(v) || shapeOf(v).empty() ||
        !matchPattern(fill.getInputs()[0], m_Constant(&value)) || !isa<FloatAttr>(value))
      return success();
    if (!makeRoot(v, RootLayout::Stick, shapeOf(v)))
      return fill.emitError("internal error: the Spyre front end found no layout for this "
                            "constant");
    fillKernel(fill, v, value);
    return success();
  };

  // A padded tensor: its own memory set to the padding value, then the source copied into
  // its interior.
  auto pad = [&](tensor::PadOp p) -> LogicalResult {
    Value result = p.getResult(), src = p.getSource();
    ArrayRef<int64_t> shape = shapeOf(result);
    Value yielded = p.getConstantPaddingValue();
    Attribute value;
    if (yielded) matchPattern(yielded, m_Constant(&value));
    if (!value || !isa<FloatAttr>(value))
      return p.emitError("the Spyre front end pads with a constant value only");
    for (int64_t v : llvm::concat<const int64_t>(p.getStaticLow(), p.getStaticHigh()))
      if (ShapedType::isDynamic(v) || v < 0)
        return p.emitError("the Spyre front end pads by constant amounts only");
    auto from = plan.views.find(src);
    if (from == plan.views.end())
      return p.emitError("the Spyre front end pads tensors in device memory only (this one is a "
                         "constant)");
    // Packed when the interior starts inside a stick.
    const RootLayout layout =
        p.getStaticLow().back() % stickElems(result) != 0 ? RootLayout::Flat : RootLayout::Stick;
    if (!makeRoot(result, layout, shape))
      return p.emitError("internal error: the Spyre front end found no layout for this result");
    fillKernel(p, result, value);
    auto interior = sliceView(plan.views[result], p.getStaticLow(), shapeOf(src),
                              std::vector<int64_t>(shape.size(), 1));
    if (!interior)
      return p.emitError("internal error: the Spyre front end cannot place the padded tensor's "
                         "interior");
    boxCopy(p, "pad", src, from->second, *interior, result);
    return success();
  };

  // Re-layouts made so far: (tensor, layout) -> its copy.
  llvm::DenseMap<std::pair<Value, int>, Value> relaidOut;

  std::function<LogicalResult(Operation*)> process = [&](Operation* op) -> LogicalResult {
    if (isa<func::ReturnOp>(op) || isInitOp(op)) return success();
    if (isViewOp(op)) {
      Value src = op->getOperand(0);
      auto it = plan.views.find(src);
      if (it == plan.views.end()) {
        if (op->use_empty()) return success();
        return op->emitError("the Spyre front end views tensors in device memory only (this "
                             "one is a constant)");
      }
      std::optional<TensorView> v = viewOf(op, it->second);
      if (!v) {
        // Not a strided view of the same memory (a dimension padded to sticks split or
        // merged): the source is first copied packed row-major, whose views all are.
        auto c = copyOf(src, op, RootLayout::Flat);
        if (failed(process(c))) return failure();
        op->setOperand(0, c->getResult(0));
        v = viewOf(op, plan.views[c->getResult(0)]);
        if (!v)
          return op->emitError("the Spyre front end cannot view this tensor as a strided box "
                               "of device memory");
      }
      plan.views[op->getResult(0)] = *v;
      return success();
    }
    if (auto cat = dyn_cast<tensor::ConcatOp>(op)) return concatenate(cat);
    if (auto p = dyn_cast<tensor::PadOp>(op)) return pad(p);
    FailureOr<RowForm> rf = rowFormOf(op);
    if (failed(rf)) return failure();
    // i32 tensors are the indices of an embedding lookup: the SFU does not compute on them.
    if (rf->kind != KernelGroup::Kind::Gather && rf->kind != KernelGroup::Kind::Relayout)
      for (const auto* list : {&rf->reads, &rf->writes})
        for (const Operand& o : *list)
          if (cast<ShapedType>(o.value.getType()).getElementType().isInteger(32))
            return op->emitError("the Spyre front end takes i32 tensors as the indices of a "
                                 "tensor.gather only");
    // A tensor filled with a constant that the op reads (a broadcast of a one): written to
    // device memory by a fill kernel first, then read like any other.
    for (const Operand& r : rf->reads)
      if (failed(fillInMemory(r.value))) return failure();
    auto suits = [&](const Operand& r) {
      auto it = plan.views.find(r.value);
      return it == plan.views.end() || readable(rf->kind, r.form, it->second);
    };
    KernelGroup* cur = plan.kernels.empty() ? nullptr : &plan.kernels.back();
    const int curIndex = static_cast<int>(plan.kernels.size()) - 1;
    // Join the kernel before when the op reads something it computes (or a tensor it reads)
    // and the division of that kernel suits the op too.
    bool join = false;
    if (cur && rf->kind == KernelGroup::Kind::Rows && rf->rows == cur->rows) {
      bool reads = false, lies = true;
      // It reads what the kernel computes, or a tensor the kernel already reads (siblings:
      // the tensor is loaded once for both); what it reads from memory lies as the kernel
      // reads it.
      for (const Operand& r : rf->reads) {
        auto p = producer.find(r.value);
        const bool inKernel = p != producer.end() && p->second == curIndex;
        if (inKernel) reads = true;
        if (cur->forms.count(r.value) && cur->kind == KernelGroup::Kind::Rows) reads = true;
        if (!inKernel && !suits(r)) lies = false;
      }
      reads &= lies;
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
      // A tensor that does not lie as this kernel reads it is re-laid out first (restickify:
      // a transposed or padded view copied into the stick layout; a vector packed).
      for (Operand& r : rf->reads) {
        if (suits(r)) continue;
        const bool vector = r.form == Form::PerRow || r.form == Form::PerCol;
        const RootLayout layout = vector ? RootLayout::Flat : RootLayout::Stick;
        // One re-layout of a tensor serves every later reader that needs it.
        Value copy = relaidOut.lookup({r.value, static_cast<int>(layout)});
        if (!copy) {
          auto c = copyOf(r.value, op, layout);
          if (failed(process(c))) return failure();
          copy = c->getResult(0);
          relaidOut[{r.value, static_cast<int>(layout)}] = copy;
        }
        op->replaceUsesOfWith(r.value, copy);
        for (Operand& same : rf->reads)
          if (same.value == r.value) same.value = copy;
      }
      KernelGroup k;
      k.kind = rf->kind;
      k.rows = rf->rows;
      k.cols = rf->cols;
      k.depth = rf->depth;
      k.batch = rf->batch;
      k.name = "k" + std::to_string(plan.kernels.size() + 1) + "_" + kindWord(op);
      if (k.kind == KernelGroup::Kind::Relayout) {
        k.copyFrom = rf->reads.front().value;
        k.source = plan.views[k.copyFrom];
        // A new stick dimension (the source's last dimension is not contiguous): restickify.
        if (k.source.dims.back().factors.back().stride != 1)
          k.name = "k" + std::to_string(plan.kernels.size() + 1) + "_restickify";
      }
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
      // Where the tensor lies if it leaves the kernel: in the stick layout; a convolution's
      // unfolded rows as the matrix the matmul reads (packed where a window's channels are
      // not whole sticks); one value per row packed where the stick layout would spread
      // the values over sticks.
      ArrayRef<int64_t> shape = shapeOf(w.value);
      std::vector<int64_t> layoutShape(shape.begin(), shape.end());
      RootLayout layout = RootLayout::Stick;
      if (op->hasAttr(kUnfoldAttr)) {
        layoutShape = {shape[0] * shape[1] * shape[2], shape[3] * shape[4] * shape[5]};
        if (shape[5] % stickElems(w.value) != 0) layout = RootLayout::Flat;
      } else if (op->hasAttr(kFlatAttr)) {
        layout = RootLayout::Flat;
      } else if (w.form == Form::PerRow) {
        auto stick = rootView(w.value, shape, shape, RootLayout::Stick, stickElems(w.value));
        if (!stick || !vectorView(*stick)) layout = RootLayout::Flat;
      }
      if (!makeRoot(w.value, layout, layoutShape))
        return op->emitError("internal error: the Spyre front end found no layout for this "
                             "result");
      if (cur->kind == KernelGroup::Kind::Relayout) cur->dest = plan.views[w.value];
    }
    return success();
  };
  for (Operation& o : llvm::make_early_inc_range(f.getBody().front()))
    if (failed(process(&o))) return failure();

  // Every graph result is a tensor of its own in the stick layout, as the host reads it: a
  // view, an argument, a tensor returned twice or one laid out otherwise is copied.
  auto ret = cast<func::ReturnOp>(f.getBody().front().getTerminator());
  llvm::DenseSet<Value> returned;
  for (unsigned i = 0; i < ret.getNumOperands(); ++i) {
    Value v = ret.getOperand(i);
    // A result filled with a constant (a tensor zeroed): a fill kernel writes it.
    if (failed(fillInMemory(v))) return failure();
    auto view = plan.views.find(v);
    if (view == plan.views.end())
      return ret.emitError("result ") << i << " is a constant: the Spyre front end returns "
                                      << "tensors the graph computes or takes";
    // A result may be its root's memory itself when it lies there exactly as a tensor of
    // its shape would (a root, or a reshape that only adds or drops dimensions of one).
    Value root = view->second.root;
    const RootInfo& info = plan.roots[root];
    std::optional<TensorView> own =
        rootView(root, shapeOf(v), shapeOf(v), info.layout, stickElems(v), info.paddedRows);
    // Its rows padded as the device's canonical layout pads them: a root left unpadded for a
    // reshape of its last dimension into rows is copied.
    const int64_t last = shapeOf(v).empty() ? 1 : shapeOf(v).back();
    const int64_t sticks = (last + stickElems(v) - 1) / stickElems(v);
    const int64_t rows = rowsOf(shapeOf(v));
    const int64_t canonical = paddedRows(rows, sticks, memory);
    const bool alias = !isa<BlockArgument>(root) && info.layout == RootLayout::Stick && own &&
                       own->describe() == view->second.describe() && !returned.contains(root) &&
                       info.paddedRows == (canonical != rows ? canonical : 0);
    if (!alias) {
      // A re-layout a kernel already reads is the result's tensor too; else a copy.
      Value copy = relaidOut.lookup({v, static_cast<int>(RootLayout::Stick)});
      if (!copy || returned.contains(copy)) {
        auto c = copyOf(v, ret, RootLayout::Stick);
        if (failed(process(c))) return failure();
        copy = c->getResult(0);
      }
      ret.setOperand(i, copy);
      root = copy;
    }
    returned.insert(root);
  }

  // What each kernel reads from and writes to device memory.
  for (size_t k = 0; k < plan.kernels.size(); ++k) {
    KernelGroup& kg = plan.kernels[k];
    // A concatenation's, a padding's or a fill's kernels: their input and the result, set
    // above.
    if (isa<tensor::ConcatOp, tensor::PadOp>(kg.ops.front()) || kg.kind == KernelGroup::Kind::Fill)
      continue;
    llvm::DenseSet<Operation*> inKernel(kg.ops.begin(), kg.ops.end());
    llvm::DenseSet<Value> seen;
    for (Operation* op : kg.ops) {
      for (Value v : op->getOperands()) {
        if (!isa<RankedTensorType>(v.getType()) || seen.contains(v)) continue;
        Operation* def = v.getDefiningOp();
        // (a constant the kernel makes itself, unless a fill kernel wrote it to memory)
        if (def && (inKernel.contains(def) || (isInitOp(def) && !plan.roots.count(v)))) continue;
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
