//===- Layout.cpp - views of HBM tensors and tpu-alloc-hbm ----------------===//
//
// Part of chipless. See Layout.h. tpu-alloc-hbm decides where each kernel result goes:
// - a returned result: the output argument of the same name (canonical layout);
// - a result whose only use is a chain of reshapes/transposes: the canonical layout of the
//   chain's end, written through the inverse views (so the consumer reads it contiguously;
//   attention heads are written straight into the [S, H*D] layout the projection reads);
// - otherwise its own canonical layout;
// in the `scratch` buffer, first fit, reusing space whose last reader has run.
//
//===----------------------------------------------------------------------===//

#include "Layout.h"

#include "Common.h"
#include "mlir/IR/Builders.h"
#include "tpuc/Passes.h"

#include <algorithm>
#include <map>

using namespace mlir;

namespace chipless::tpuc {

namespace {

int64_t roundUpTo(int64_t x, int64_t m) {
  return (x + m - 1) / m * m;
}

/// The dimension with stride 1 and more than one element (-1 if none).
int unitDim(const View& v) {
  for (int d = static_cast<int>(v.shape.size()) - 1; d >= 0; --d)
    if (v.strides[static_cast<size_t>(d)] == 1 && v.shape[static_cast<size_t>(d)] > 1) return d;
  return -1;
}

/// Splits dimension groups of `src` into the dims of `shape` (expand logic): result dim j of
/// group i gets strides so the group walks src dim i.
FailureOr<View> expandDims(const View& src, ArrayRef<ReassociationIndices> groups,
                           ArrayRef<int64_t> shape, std::string& why) {
  View r = src;
  r.shape.assign(shape.begin(), shape.end());
  r.strides.assign(shape.size(), 0);
  const int unit = unitDim(src);
  for (auto [i, group] : llvm::enumerate(groups)) {
    int64_t running = src.strides[i];
    for (int64_t j : llvm::reverse(group)) {
      r.strides[static_cast<size_t>(j)] = running;
      running *= shape[static_cast<size_t>(j)];
    }
    if (static_cast<int>(i) == unit) {
      const int64_t inner = shape[static_cast<size_t>(group.back())];
      r.contiguous = src.contiguous - (src.shape[i] - inner);
      r.padTail = src.padTail && src.shape[i] == inner;
      if (r.strides[static_cast<size_t>(group.back())] != 1) {
        why = "internal: split of the contiguous dimension";
        return failure();
      }
    }
  }
  return r;
}

/// Merges dimension groups of `src` (collapse logic); fails when a group is not contiguous.
FailureOr<View> collapseDims(const View& src, ArrayRef<ReassociationIndices> groups,
                             std::string& why) {
  View r = src;
  r.shape.clear();
  r.strides.clear();
  const int unit = unitDim(src);
  for (const ReassociationIndices& group : groups) {
    int64_t size = 1;
    SmallVector<int64_t> dims;
    for (int64_t d : group) {
      size *= src.shape[static_cast<size_t>(d)];
      if (src.shape[static_cast<size_t>(d)] != 1) dims.push_back(d);
    }
    for (size_t k = 0; k + 1 < dims.size(); ++k) {
      const size_t a = static_cast<size_t>(dims[k]), b = static_cast<size_t>(dims[k + 1]);
      if (src.strides[a] != src.strides[b] * src.shape[b]) {
        why = "dimensions " + std::to_string(a) + " and " + std::to_string(b) +
              " are not contiguous in HBM (the innermost dimension is padded to the vector "
              "lanes), so they cannot be merged in place";
        return failure();
      }
    }
    r.shape.push_back(size);
    const int64_t stride = dims.empty() ? src.strides[static_cast<size_t>(group.back())]
                                        : src.strides[static_cast<size_t>(dims.back())];
    r.strides.push_back(stride);
    if (!dims.empty() && dims.back() == unit && dims.size() > 1) {
      const int64_t inner = src.shape[static_cast<size_t>(unit)];
      r.contiguous = src.contiguous + (size / inner - 1) * inner;
    }
  }
  return r;
}

FailureOr<View> transposeDims(const View& src, ArrayRef<int64_t> perm) {
  View r = src;
  for (size_t i = 0; i < perm.size(); ++i) {
    r.shape[i] = src.shape[static_cast<size_t>(perm[i])];
    r.strides[i] = src.strides[static_cast<size_t>(perm[i])];
  }
  return r;
}

} // namespace

View canonicalView(const std::string& symbol, Type type, int64_t lanes, int64_t offset) {
  auto t = cast<RankedTensorType>(type);
  View v;
  v.symbol = symbol;
  v.offset = offset;
  v.dtype = *dtypeOf(t.getElementType());
  v.shape.assign(t.getShape().begin(), t.getShape().end());
  v.strides.assign(v.shape.size(), 1);
  const size_t k = v.shape.size();
  const int64_t np = roundUpTo(v.shape[k - 1], lanes);
  int64_t s = np;
  for (size_t i = k - 1; i-- > 0;) {
    v.strides[i] = s;
    s *= v.shape[i];
  }
  v.contiguous = np;
  v.padTail = true;
  return v;
}

int64_t canonicalBytes(Type type, int64_t lanes) {
  auto t = cast<RankedTensorType>(type);
  int64_t rows = 1;
  for (int64_t i = 0; i + 1 < t.getRank(); ++i) rows *= t.getDimSize(i);
  return rows * roundUpTo(t.getDimSize(t.getRank() - 1), lanes) *
         static_cast<int64_t>(dtypeSize(*dtypeOf(t.getElementType())));
}

FailureOr<View> forwardView(Operation* op, const View& src, std::string& why) {
  if (auto e = dyn_cast<tensor::ExpandShapeOp>(op))
    return expandDims(src, e.getReassociationIndices(), e.getResultType().getShape(), why);
  if (auto c = dyn_cast<tensor::CollapseShapeOp>(op))
    return collapseDims(src, c.getReassociationIndices(), why);
  if (auto t = dyn_cast<linalg::TransposeOp>(op)) return transposeDims(src, t.getPermutation());
  if (auto s = dyn_cast<tensor::ExtractSliceOp>(op)) {
    View r = src;
    auto offsets = s.getStaticOffsets();
    auto sizes = s.getStaticSizes();
    llvm::SmallBitVector dropped = s.getDroppedDims();
    const int unit = unitDim(src);
    r.shape.clear();
    r.strides.clear();
    for (size_t d = 0; d < src.shape.size(); ++d) {
      r.offset += offsets[d] * src.strides[d];
      if (static_cast<int>(d) == unit) {
        r.contiguous = src.contiguous - offsets[d];
        r.padTail = src.padTail && offsets[d] + sizes[d] == src.shape[d];
      }
      if (dropped.test(static_cast<unsigned>(d))) continue;
      r.shape.push_back(sizes[d]);
      r.strides.push_back(src.strides[d]);
    }
    return r;
  }
  why = "'" + op->getName().getStringRef().str() + "' is not a view";
  return failure();
}

FailureOr<View> backwardView(Operation* op, const View& result, std::string& why) {
  if (auto e = dyn_cast<tensor::ExpandShapeOp>(op))
    return collapseDims(result, e.getReassociationIndices(), why);
  if (auto c = dyn_cast<tensor::CollapseShapeOp>(op))
    return expandDims(result, c.getReassociationIndices(), c.getSrcType().getShape(), why);
  if (auto t = dyn_cast<linalg::TransposeOp>(op)) {
    View r = result;
    auto perm = t.getPermutation();
    for (size_t i = 0; i < perm.size(); ++i) {
      r.shape[static_cast<size_t>(perm[i])] = result.shape[i];
      r.strides[static_cast<size_t>(perm[i])] = result.strides[i];
    }
    return r;
  }
  why = "cannot write through '" + op->getName().getStringRef().str() + "'";
  return failure();
}

FailureOr<View> viewOf(Value v, int64_t lanes, std::string& why) {
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    auto f = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
    if (!f) {
      why = "not a function argument";
      return failure();
    }
    return canonicalView(argumentName(f, arg.getArgNumber()), v.getType(), lanes);
  }
  Operation* def = v.getDefiningOp();
  if (auto k = dyn_cast<KernelOp>(def)) {
    auto all = k->getAttrOfType<ArrayAttr>(kResultsAttr);
    const unsigned i = cast<OpResult>(v).getResultNumber();
    if (!all || i >= all.size()) {
      why = "kernel results have no HBM placement (run tpu-alloc-hbm)";
      return failure();
    }
    auto d = cast<DictionaryAttr>(all[i]);
    View r;
    r.symbol = d.getAs<StringAttr>("symbol").str();
    r.dtype = *dtypeOf(cast<RankedTensorType>(v.getType()).getElementType());
    r.offset = d.getAs<IntegerAttr>("offset").getInt() / r.esize();
    auto t = cast<RankedTensorType>(v.getType());
    r.shape.assign(t.getShape().begin(), t.getShape().end());
    for (int64_t s : d.getAs<DenseI64ArrayAttr>("strides").asArrayRef()) r.strides.push_back(s);
    r.contiguous = d.getAs<IntegerAttr>("contiguous").getInt();
    r.padTail = d.getAs<BoolAttr>("pad_tail").getValue();
    return r;
  }
  if (def && isViewOp(def)) {
    FailureOr<View> src = viewOf(def->getOperand(0), lanes, why);
    if (failed(src)) return failure();
    FailureOr<View> r = forwardView(def, *src, why);
    if (failed(r)) why = locString(def->getLoc()) + ": " + why;
    return r;
  }
  why = "the value is not in HBM (not an argument, a kernel result or a view of one)";
  return failure();
}

// ---- tpu-alloc-hbm -----------------------------------------------------------------------------

namespace {

struct AllocHbmPass : PassWrapper<AllocHbmPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(AllocHbmPass)
  StringRef getArgument() const override { return "tpu-alloc-hbm"; }
  StringRef getDescription() const override {
    return "Place every kernel result in HBM: an output argument, or the scratch buffer "
           "(written through the views that consume it)";
  }

  void runOnOperation() override {
    ModuleOp m = getOperation();
    FailureOr<TpuArch> arch = targetArch(m);
    if (failed(arch)) return signalPassFailure();
    const int64_t lanes = arch->vpu.lanes, align = arch->hbm.alignment_bytes;
    func::FuncOp f = graphFunction(m);
    if (!f) return signalPassFailure();
    SmallVector<KernelOp> kernels(f.getOps<KernelOp>());
    llvm::DenseMap<Operation*, int> index;
    for (auto [i, k] : llvm::enumerate(kernels)) index[k] = static_cast<int>(i);
    auto ret = cast<func::ReturnOp>(f.getBody().front().getTerminator());

    // Scratch: blocks [offset, offset+size) with the last kernel that reads them.
    struct Block {
      int64_t offset, size;
      int lastUse;
    };
    std::vector<Block> live;
    int64_t scratch = 0;
    Builder b(m.getContext());

    for (auto [ki, k] : llvm::enumerate(kernels)) {
      SmallVector<Attribute> placements;
      for (Value r : k->getResults()) {
        // Returned: the output argument.
        int returned = -1;
        for (OpOperand& use : r.getUses())
          if (use.getOwner() == ret.getOperation())
            returned = static_cast<int>(use.getOperandNumber());
        View view;
        Value root = r;
        if (returned >= 0) {
          view = canonicalView(resultName(f, static_cast<unsigned>(returned)), r.getType(), lanes);
        } else {
          // Follow a single-use chain of reshapes/transposes.
          SmallVector<Operation*> chain;
          Value u = r;
          while (u.hasOneUse()) {
            Operation* user = *u.getUsers().begin();
            if (!isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp, linalg::TransposeOp>(user))
              break;
            chain.push_back(user);
            u = user->getResult(0);
          }
          bool done = false;
          if (!chain.empty()) {
            View end = canonicalView("scratch", u.getType(), lanes);
            FailureOr<View> back = end;
            std::string why;
            for (Operation* op : llvm::reverse(chain)) {
              back = backwardView(op, *back, why);
              if (failed(back)) break;
            }
            // Only layouts a kernel can write: rows contiguous along N.
            if (succeeded(back) && back->strides.back() == 1) {
              view = *back;
              root = u;
              done = true;
            }
          }
          if (!done) view = canonicalView("scratch", r.getType(), lanes);
          // Last kernel reading anything derived from the root.
          int last = static_cast<int>(ki);
          SmallVector<Value> work{r};
          while (!work.empty()) {
            Value w = work.pop_back_val();
            for (Operation* user : w.getUsers()) {
              if (auto pk = user->getParentOfType<KernelOp>()) last = std::max(last, index[pk]);
              if (isViewOp(user)) work.push_back(user->getResult(0));
            }
          }
          const int64_t bytes = roundUpTo(canonicalBytes(root.getType(), lanes), align);
          // First fit among the blocks freed before this kernel.
          live.erase(
              std::remove_if(live.begin(), live.end(),
                             [&](const Block& blk) { return blk.lastUse < static_cast<int>(ki); }),
              live.end());
          std::sort(live.begin(), live.end(),
                    [](const Block& x, const Block& y) { return x.offset < y.offset; });
          int64_t at = 0;
          for (const Block& blk : live) {
            if (blk.offset - at >= bytes) break;
            at = std::max(at, blk.offset + blk.size);
          }
          live.push_back({at, bytes, last});
          scratch = std::max(scratch, at + bytes);
          view.offset += at / view.esize();
        }
        placements.push_back(b.getDictionaryAttr({
            b.getNamedAttr("symbol", b.getStringAttr(view.symbol)),
            b.getNamedAttr("offset", b.getI64IntegerAttr(view.offset * view.esize())),
            b.getNamedAttr("strides", b.getDenseI64ArrayAttr(view.strides)),
            b.getNamedAttr("contiguous", b.getI64IntegerAttr(view.contiguous)),
            b.getNamedAttr("pad_tail", b.getBoolAttr(view.padTail)),
        }));
      }
      k->setAttr(kResultsAttr, b.getArrayAttr(placements));
    }
    f->setAttr(kScratchAttr, b.getI64IntegerAttr(scratch));
  }
};

} // namespace

std::unique_ptr<Pass> createAllocHbmPass() {
  return std::make_unique<AllocHbmPass>();
}

} // namespace chipless::tpuc
