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
    auto steps = s.getStaticStrides(); // tpu-decompose's window slices step; the graph's do not
    llvm::SmallBitVector dropped = s.getDroppedDims();
    const int unit = unitDim(src);
    r.shape.clear();
    r.strides.clear();
    for (size_t d = 0; d < src.shape.size(); ++d) {
      r.offset += offsets[d] * src.strides[d];
      if (static_cast<int>(d) == unit) {
        r.contiguous = steps[d] == 1 ? src.contiguous - offsets[d] : 1;
        r.padTail = src.padTail && offsets[d] + sizes[d] == src.shape[d] && steps[d] == 1;
      }
      if (dropped.test(static_cast<unsigned>(d))) continue;
      r.shape.push_back(sizes[d]);
      r.strides.push_back(src.strides[d] * steps[d]);
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

View concatPart(tensor::ConcatOp concat, unsigned part, const View& result) {
  const auto dim = static_cast<size_t>(concat.getDim());
  int64_t start = 0;
  for (unsigned i = 0; i < part; ++i)
    start += cast<RankedTensorType>(concat.getOperand(i).getType()).getDimSize(dim);
  const int64_t size = cast<RankedTensorType>(concat.getOperand(part).getType()).getDimSize(dim);
  View r = result;
  r.offset += start * result.strides[dim];
  if (static_cast<int>(dim) == unitDim(result)) {
    r.contiguous = result.contiguous - start;
    // Only the last part may spill into the padding; the others are followed by a part.
    r.padTail = result.padTail && start + size == result.shape[dim];
  }
  r.shape[dim] = size;
  return r;
}

DictionaryAttr placementAttr(Builder& b, const View& v) {
  return b.getDictionaryAttr({
      b.getNamedAttr("symbol", b.getStringAttr(v.symbol)),
      b.getNamedAttr("offset", b.getI64IntegerAttr(v.offset * v.esize())),
      b.getNamedAttr("strides", b.getDenseI64ArrayAttr(v.strides)),
      b.getNamedAttr("contiguous", b.getI64IntegerAttr(v.contiguous)),
      b.getNamedAttr("pad_tail", b.getBoolAttr(v.padTail)),
  });
}

View placedView(DictionaryAttr d, Type type) {
  auto t = cast<RankedTensorType>(type);
  View r;
  r.symbol = d.getAs<StringAttr>("symbol").str();
  r.dtype = *dtypeOf(t.getElementType());
  r.offset = d.getAs<IntegerAttr>("offset").getInt() / r.esize();
  r.shape.assign(t.getShape().begin(), t.getShape().end());
  for (int64_t s : d.getAs<DenseI64ArrayAttr>("strides").asArrayRef()) r.strides.push_back(s);
  r.contiguous = d.getAs<IntegerAttr>("contiguous").getInt();
  r.padTail = d.getAs<BoolAttr>("pad_tail").getValue();
  return r;
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
    return placedView(cast<DictionaryAttr>(all[i]), v.getType());
  }
  if (auto c = dyn_cast_or_null<tensor::ConcatOp>(def)) {
    auto d = c->getAttrOfType<DictionaryAttr>(kResultsAttr);
    if (!d) {
      why = "the concatenation has no HBM placement (run tpu-alloc-hbm)";
      return failure();
    }
    return placedView(d, v.getType());
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
    // Whether a kernel writes `v`'s rows (each a DMA run rounded up to dma.alignment_bytes)
    // without overwriting the elements after them.
    auto writesWholeRuns = [&](const View& v) {
      const int64_t bytes = v.shape.back() * v.esize();
      const int64_t run = roundUpTo(bytes, arch->dma.alignment_bytes);
      return run <= v.contiguous * v.esize() && (run == bytes || v.padTail);
    };
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

    // Values other kernel results are written into (concatenations, and the views after
    // them): the byte offset of their block in scratch, once the first part has placed it.
    llvm::DenseMap<Value, int64_t> shared;
    auto returnedAs = [&](Value v) {
      for (OpOperand& use : v.getUses())
        if (use.getOwner() == ret.getOperation()) return static_cast<int>(use.getOperandNumber());
      return -1;
    };

    for (auto [ki, k] : llvm::enumerate(kernels)) {
      SmallVector<Attribute> placements;
      for (Value r : k->getResults()) {
        // Returned: the output argument.
        const int returned = returnedAs(r);
        if (returned >= 0) {
          placements.push_back(
              placementAttr(b, canonicalView(resultName(f, static_cast<unsigned>(returned)),
                                             r.getType(), lanes)));
          continue;
        }
        // Follow a single-use chain of reshapes, transposes and concatenations: r is written
        // through it into the layout of the chain's end (its slice of a concatenation).
        SmallVector<std::pair<Operation*, unsigned>> chain;
        Value u = r;
        while (u.hasOneUse()) {
          OpOperand& use = *u.getUses().begin();
          Operation* user = use.getOwner();
          if (!isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp, linalg::TransposeOp,
                   tensor::ConcatOp>(user) ||
              isLhsConcat(user)) // read in place by the matmul, not written
            break;
          chain.push_back({user, use.getOperandNumber()});
          u = user->getResult(0);
        }
        size_t concats = 0; // the chain up to its last concatenation, which must be kept
        for (size_t i = 0; i < chain.size(); ++i)
          if (isa<tensor::ConcatOp>(chain[i].first)) concats = i + 1;
        // The views of r and of each chain op's result, written back from the end of the
        // longest prefix that works and holds the last concatenation, or with none, nothing
        // (r in its own layout). (A copy merged by a reshape and then transposed lies merged.)
        SmallVector<size_t> prefixes;
        for (size_t len = chain.size() + 1; len-- > concats;) prefixes.push_back(len);
        if (concats > 0) prefixes.push_back(0);
        SmallVector<View> views;
        Value root = r;
        for (size_t len : prefixes) {
          root = len ? chain[len - 1].first->getResult(0) : r;
          const int out = returnedAs(root);
          View end = out >= 0 ? canonicalView(resultName(f, static_cast<unsigned>(out)),
                                              root.getType(), lanes)
                              : canonicalView("scratch", root.getType(), lanes);
          views.assign(len + 1, end);
          bool ok = true;
          std::string why;
          for (size_t i = len; ok && i-- > 0;) {
            Operation* op = chain[i].first;
            if (auto c = dyn_cast<tensor::ConcatOp>(op)) {
              views[i] = concatPart(c, chain[i].second, views[i + 1]);
            } else {
              FailureOr<View> back = backwardView(op, views[i + 1], why);
              ok = succeeded(back);
              if (ok) views[i] = *back;
            }
          }
          // Only layouts a kernel can write: rows contiguous along N, as whole DMA runs unless
          // the padding follows them (a concatenation's parts are checked where they are
          // written, tpu-alloc-vmem, which names the part).
          if (ok && views[0].strides.back() == 1 && (len == concats || writesWholeRuns(views[0])))
            break;
          if (len > 0 && len <= concats) {
            // tpu-form-kernels gives a concatenation only kernel results (or concatenations)
            // as parts, so this does not happen.
            chain[len - 1].first->emitError("internal: a part of this concatenation cannot be "
                                            "written in place");
            return signalPassFailure();
          }
        }
        if (returnedAs(root) < 0) {
          int64_t at = 0;
          if (auto it = shared.find(root); it != shared.end()) {
            at = it->second; // another part placed the concatenation
          } else {
            // Last kernel reading anything derived from the root.
            int last = static_cast<int>(ki);
            SmallVector<Value> work{r};
            while (!work.empty()) {
              Value w = work.pop_back_val();
              for (Operation* user : w.getUsers()) {
                if (auto pk = user->getParentOfType<KernelOp>()) last = std::max(last, index[pk]);
                if (isViewOp(user) || isa<tensor::ConcatOp>(user))
                  work.push_back(user->getResult(0));
              }
            }
            const int64_t bytes = roundUpTo(canonicalBytes(root.getType(), lanes), align);
            // First fit among the blocks freed before this kernel.
            live.erase(std::remove_if(
                           live.begin(), live.end(),
                           [&](const Block& blk) { return blk.lastUse < static_cast<int>(ki); }),
                       live.end());
            std::sort(live.begin(), live.end(),
                      [](const Block& x, const Block& y) { return x.offset < y.offset; });
            for (const Block& blk : live) {
              if (blk.offset - at >= bytes) break;
              at = std::max(at, blk.offset + blk.size);
            }
            live.push_back({at, bytes, last});
            scratch = std::max(scratch, at + bytes);
            shared[root] = at;
          }
          for (View& v : views) v.offset += at / v.esize();
        }
        // The concatenations on the way lie where their parts are written.
        for (size_t i = 0; i + 1 < views.size(); ++i)
          if (isa<tensor::ConcatOp>(chain[i].first))
            chain[i].first->setAttr(kResultsAttr, placementAttr(b, views[i + 1]));
        placements.push_back(placementAttr(b, views[0]));
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
