//===- FormKernels.cpp - tpu-form-kernels: fuse ops into tpu.kernel -------===//
//
// Part of chipless. Walks the graph's compute ops in order and groups them into kernels:
//
// - a linalg.matmul / linalg.batch_matmul starts a kernel (its operands are read from HBM);
// - a linalg.generic joins the current kernel when its iteration space is the kernel's space
//   [batch..., M, N] (element-wise, or a reduction over N) or the kernel's column space
//   [batch..., M] (element-wise on reduction results), and each operand is a value of the
//   kernel accessed element for element (or, for a column value, broadcast along N), a
//   constant, or a tensor from HBM that is contiguous along N (possibly broadcast over rows);
// - any other generic starts a kernel of its own.
//
// Values a kernel computes and anything outside uses become the kernel's results (written
// to HBM). View ops (reshapes, transposes, slices) stay outside kernels: they describe how a
// later kernel reads a tensor. Returned values that are not results of a compute op or of a
// concatenation (function arguments, views, constants, a value returned twice) get a copy
// kernel. A concatenation is no kernel either: its parts are written into its slices.
//
//===----------------------------------------------------------------------===//

#include "Common.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "tpuc/Passes.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"

#include <set>

using namespace mlir;

namespace chipless::tpuc {

namespace {

struct Group {
  Operation* root = nullptr;
  SmallVector<Operation*> ops;
  SmallVector<int64_t> space; ///< [batch..., M, N]
};

/// How a generic sits in a kernel's space.
enum class Place { Full, Column, None };

struct FormKernelsPass : PassWrapper<FormKernelsPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(FormKernelsPass)
  StringRef getArgument() const override { return "tpu-form-kernels"; }
  void getDependentDialects(DialectRegistry& registry) const override {
    registry.insert<TpuDialect, linalg::LinalgDialect, tensor::TensorDialect>();
  }
  StringRef getDescription() const override {
    return "Group the graph's ops into tpu.kernel ops: a matmul or generic root with the "
           "element-wise ops and reductions over N that follow it fused";
  }

  std::vector<Group> groups;
  llvm::DenseMap<Value, int> groupOf; ///< values computed by a group
  llvm::DenseMap<Value, bool> column; ///< in-group values that are per-row (column) values
  llvm::DenseSet<Operation*> cuts;    ///< generics that start a kernel (register budget)

  static SmallVector<int64_t> loops(linalg::GenericOp g) {
    return SmallVector<int64_t>(g.getStaticLoopRanges());
  }
  static bool reduces(linalg::GenericOp g) {
    auto it = g.getIteratorTypesArray();
    return !it.empty() && it.back() == utils::IteratorType::reduction;
  }

  /// Where generic g would sit in a kernel of `space`. A generic that reads nothing (an
  /// identity made of linalg.index, for a transpose on the MXU) is no per-row value: one of
  /// shape [B, 1, 1] placed as one would escape to the transpose that reads it and be remade
  /// by vectorizeEscapingColumns for ever.
  static Place placeIn(linalg::GenericOp g, ArrayRef<int64_t> space) {
    SmallVector<int64_t> l = loops(g);
    if (ArrayRef<int64_t>(l) == space) return Place::Full;
    if (!reduces(g) && g.getNumDpsInputs() > 0 && ArrayRef<int64_t>(l) == space.drop_back())
      return Place::Column;
    return Place::None;
  }

  /// Whether `map` (over `rank` loops) reads element for element / broadcasts a column along
  /// the last loop.
  static bool isIdentity(AffineMap map, unsigned rank) {
    if (map.getNumResults() != rank) return false;
    for (unsigned i = 0; i < rank; ++i)
      if (map.getDimPosition(i) != i) return false;
    return true;
  }
  static bool isColumnBroadcast(AffineMap map, unsigned rank) {
    if (map.getNumResults() != rank - 1) return false;
    for (unsigned i = 0; i + 1 < rank; ++i)
      if (map.getDimPosition(i) != i) return false;
    return true;
  }

  /// Whether `map` reads one element per row of a space of `rank` loops (the last N), broadcast
  /// along N (and possibly along batch loops): its results are loops in order, the last M.
  static bool isPerRowRead(AffineMap map, unsigned rank) {
    const unsigned r = map.getNumResults();
    if (r == 0 || !map.isProjectedPermutation() || map.getDimPosition(r - 1) != rank - 2)
      return false;
    for (unsigned i = 1; i < r; ++i)
      if (map.getDimPosition(i) <= map.getDimPosition(i - 1)) return false;
    return true;
  }

  /// Operands of g the body reads: inputs, and inits whose block argument is used (element-wise
  /// ops reading their output tensor).
  static SmallVector<OpOperand*> readOperands(linalg::GenericOp g) {
    SmallVector<OpOperand*> r;
    for (OpOperand* in : g.getDpsInputOperands()) r.push_back(in);
    if (!reduces(g))
      for (OpOperand& init : g.getDpsInitsMutable())
        if (!g.getMatchingBlockArgument(&init).use_empty()) r.push_back(&init);
    return r;
  }

  /// Whether `x` is a view (through view ops) or a concatenation of a value computed by group
  /// `grp`: read from HBM, it would be read before the kernel wrote it.
  bool viewsValueOf(Value x, int grp) const {
    Operation* def = x.getDefiningOp();
    if (!def || !(isViewOp(def) || isa<tensor::ConcatOp>(def))) return false;
    const unsigned sources = isViewOp(def) ? 1 : def->getNumOperands();
    for (unsigned i = 0; i < sources; ++i) {
      Value src = def->getOperand(i);
      auto it = groupOf.find(src);
      if ((it != groupOf.end() && it->second == grp) || viewsValueOf(src, grp)) return true;
    }
    return false;
  }

  /// Whether generic g can join group `grp` (index) at `place`; `why` says what prevents it.
  bool fits(linalg::GenericOp g, int grp, Place place, std::string& why) {
    const unsigned rank = g.getNumLoops();
    for (OpOperand* operand : readOperands(g)) {
      Value x = operand->get();
      AffineMap map = g.getMatchingIndexingMap(operand);
      if (constantValue(x)) continue;
      auto it = groupOf.find(x);
      if (it != groupOf.end() && it->second == grp) {
        const bool col = column.lookup(x);
        if (place == Place::Full) {
          if (!col && isIdentity(map, rank)) continue;
          if (col && isColumnBroadcast(map, rank)) continue;
        } else if (col && isIdentity(map, rank)) {
          continue;
        }
        why = "operand " + std::to_string(operand->getOperandNumber()) +
              " is a value of the kernel read through another indexing map";
        return false;
      }
      // A view of the kernel's own value is read from HBM after the kernel has written it.
      if (viewsValueOf(x, grp)) {
        why = "operand " + std::to_string(operand->getOperandNumber()) +
              " is a view of a value of the kernel";
        return false;
      }
      // From HBM: a per-row float vector broadcast along N (loaded as a column value),
      // contiguous along N (the last loop), or broadcast over rows. A per-row op reads no
      // HBM: its result would then differ from the same op on the vector the kernel writes
      // (made on the MXU, rounded in f32), and eager and DeferAndFuse results would part.
      if (place == Place::Full && rank >= 2 && isPerRowRead(map, rank) &&
          isa<FloatType>(getElementTypeOrSelf(x.getType())))
        continue;
      if (place == Place::Column) {
        why = "a per-row operation reads a tensor from HBM";
        return false;
      }
      if (map.getNumResults() == 0 ||
          !map.getResult(map.getNumResults() - 1).isFunctionOfDim(rank - 1) ||
          map.getDimPosition(map.getNumResults() - 1) != rank - 1) {
        why = "operand " + std::to_string(operand->getOperandNumber()) +
              " is read from HBM broadcast along (or not contiguous in) the innermost dimension";
        return false;
      }
    }
    return true;
  }

  void runOnOperation() override {
    ModuleOp m = getOperation();
    func::FuncOp f = graphFunction(m);
    if (!f) {
      m.emitError("expected one func.func (run tpu-verify-graph first)");
      return signalPassFailure();
    }
    FailureOr<TpuArch> arch = targetArch(m);
    if (failed(arch)) return signalPassFailure();
    Block& body = f.getBody().front();
    copyForMerges(f, arch->vpu.lanes, arch->dma.alignment_bytes);

    // Group; where a per-row value is used outside its kernel, or a kernel would need more
    // scalar registers than the core has, rewrite or cut and group again. Each round removes
    // an escape or cuts a kernel, so the rounds are bounded by the ops; a round past that
    // bound is the compiler's error, reported rather than looped on.
    const size_t rounds = 4 * body.getOperations().size() + 16;
    for (size_t round = 0;; ++round) {
      if (round == rounds) {
        f.emitError() << "internal error: forming kernels did not settle after " << rounds
                      << " rounds (a per-row value keeps escaping its kernel)";
        return signalPassFailure();
      }
      addCopies(f);      // a vector made below may be returned (through a view)
      copyForConcats(f); // ... or concatenated
      if (failed(group(body))) return signalPassFailure();
      FailureOr<bool> rewritten = vectorizeEscapingColumns();
      if (failed(rewritten)) return signalPassFailure();
      if (*rewritten) continue;
      if (!cutForRegisters(arch->scalar.registers)) break;
    }
    for (size_t i = 0; i < groups.size(); ++i) buildKernel(f, static_cast<int>(i));
    // Drop init ops nothing uses any more.
    bool changed = true;
    while (changed) {
      changed = false;
      for (Operation& op : llvm::make_early_inc_range(body))
        if (isInitOp(&op) && op.use_empty()) {
          op.erase();
          changed = true;
        }
    }
  }

  /// Groups the body's compute ops in order; fails with an error at a generic that fits in no
  /// kernel.
  LogicalResult group(Block& body) {
    groups.clear();
    groupOf.clear();
    column.clear();
    int current = -1;
    for (Operation& o : body) {
      Operation* op = &o;
      if (isMatmul(op) || isa<tensor::GatherOp>(op)) {
        startGroup(op,
                   SmallVector<int64_t>(cast<ShapedType>(op->getResult(0).getType()).getShape()));
        // A gather is a kernel of its own: nothing fuses after it.
        current = isa<tensor::GatherOp>(op) ? -1 : static_cast<int>(groups.size()) - 1;
        continue;
      }
      auto g = dyn_cast<linalg::GenericOp>(op);
      if (!g) continue;
      std::string why;
      if (current >= 0 && !cuts.contains(op)) {
        Place place = placeIn(g, groups[static_cast<size_t>(current)].space);
        if (place != Place::None && fits(g, current, place, why)) {
          join(g, current, place);
          continue;
        }
      }
      startGroup(g, loops(g));
      current = static_cast<int>(groups.size()) - 1;
      groups.back().ops.clear();
      why.clear();
      if (!fits(g, current, Place::Full, why))
        return g.emitError() << "cannot be compiled: " << why
                             << " (supported only for values computed in the same kernel)";
      join(g, current, Place::Full);
    }
    return success();
  }

  /// A per-row value (a reduction's result, or an op on such values) that ops outside its
  /// kernel use becomes a contiguous vector they read (columnAsVector), one per kernel and
  /// round; whether anything changed. One that cannot (its type) is left for buildKernel to
  /// report.
  FailureOr<bool> vectorizeEscapingColumns() {
    IRRewriter rw(&getContext());
    bool changed = false;
    for (Group& grp : groups) {
      llvm::SmallPtrSet<Operation*, 16> inGroup(grp.ops.begin(), grp.ops.end());
      auto outside = [&](OpOperand& use) { return !inGroup.contains(use.getOwner()); };
      for (Operation* op : grp.ops) {
        Value r = op->getNumResults() == 1 ? op->getResult(0) : Value();
        if (!r || !column.lookup(r) || !llvm::any_of(r.getUses(), outside)) continue;
        // Views of r between it and the kernel's end move after the vector they now read.
        Operation* last = grp.ops.back();
        SmallVector<Operation*> early;
        llvm::DenseSet<Value> reached{r};
        for (Operation* o = op->getNextNode(); op != last && o && o != last; o = o->getNextNode())
          if (!inGroup.contains(o) &&
              llvm::any_of(o->getOperands(), [&](Value v) { return reached.contains(v); })) {
            early.push_back(o);
            for (Value res : o->getResults()) reached.insert(res);
          }
        FailureOr<Value> flat = columnAsVector(r, grp.space.back(), last, rw, outside);
        if (failed(flat)) continue;
        Operation* after = flat->getDefiningOp();
        for (Operation* o : early) {
          o->moveAfter(after);
          after = o;
        }
        if (failed(materializeTransposesOf(*flat))) return failure();
        changed = true;
        break;
      }
    }
    return changed;
  }

  /// Scalar registers the emitter needs for a kernel of grp.ops[0, end) (KernelEmitter):
  /// three for the unit loop and four for a unit's rows (its batch, first row, row count and
  /// blocks: fewer when the units divide the rows evenly); per result one for its HBM offset
  /// and two for its buffer; per tensor the vector code reads from HBM two buffer pointers
  /// (one for a row broadcast over the rows); two for index values.
  int registersNeeded(const Group& grp, size_t end) const {
    llvm::SmallPtrSet<Operation*, 16> prefix(grp.ops.begin(), grp.ops.begin() + end);
    int regs = 3 + 4;
    llvm::DenseSet<Value> inputs;
    for (size_t i = 0; i < end; ++i) {
      Operation* op = grp.ops[i];
      for (Value r : op->getResults())
        if (llvm::any_of(r.getUsers(), [&](Operation* u) { return !prefix.contains(u); }))
          regs += 3;
      if (isMatmul(op)) {
        Value init = cast<linalg::LinalgOp>(op).getDpsInits()[0];
        if (!constantValue(init)) regs += 2;
        continue;
      }
      if (isa<tensor::GatherOp>(op)) {
        regs += 2 + 6; // the table's buffer; the indices' offset and size, the row loop
        continue;
      }
      auto g = cast<linalg::GenericOp>(op);
      if (!g.getBody()->getOps<linalg::IndexOp>().empty()) regs += 2;
      const unsigned rank = g.getNumLoops();
      for (OpOperand* operand : readOperands(g)) {
        Value x = operand->get();
        Operation* def = x.getDefiningOp();
        if (constantValue(x) || (def && prefix.contains(def)) || !inputs.insert(x).second) continue;
        AffineMap map = g.getMatchingIndexingMap(operand);
        const bool rowVector = rank >= 2 && !map.isFunctionOfDim(rank - 2);
        regs += rowVector ? 1 : 2;
      }
    }
    return regs;
  }

  /// Cuts the first kernel that needs more than `registers` scalar registers before the op
  /// that takes it over (that op starts a kernel of its own); whether one was cut.
  bool cutForRegisters(int registers) {
    for (const Group& grp : groups)
      for (size_t end = 2; end <= grp.ops.size(); ++end)
        if (registersNeeded(grp, end) > registers) {
          cuts.insert(grp.ops[end - 1]);
          return true;
        }
    return false;
  }

  void startGroup(Operation* root, SmallVector<int64_t> space) {
    Group grp;
    grp.root = root;
    grp.space = std::move(space);
    grp.ops.push_back(root);
    groups.push_back(grp);
    for (Value r : root->getResults()) {
      groupOf[r] = static_cast<int>(groups.size()) - 1;
      column[r] = false;
    }
  }

  void join(linalg::GenericOp g, int grp, Place place) {
    Group& group = groups[static_cast<size_t>(grp)];
    if (group.ops.empty() || group.ops.back() != g.getOperation()) group.ops.push_back(g);
    const bool col = place == Place::Column || reduces(g);
    for (Value r : g->getResults()) {
      groupOf[r] = grp;
      column[r] = col;
    }
  }

  /// An identity linalg.generic copying `v` (before `before`).
  static Value copyOf(OpBuilder& b, Location loc, Value v) {
    auto t = cast<RankedTensorType>(v.getType());
    Value empty = b.create<tensor::EmptyOp>(loc, t.getShape(), t.getElementType());
    AffineMap id = b.getMultiDimIdentityMap(t.getRank());
    SmallVector<utils::IteratorType> iters(t.getRank(), utils::IteratorType::parallel);
    auto g = b.create<linalg::GenericOp>(
        loc, TypeRange{t}, ValueRange{v}, ValueRange{empty}, ArrayRef<AffineMap>{id, id}, iters,
        [](OpBuilder& nb, Location l, ValueRange args) { nb.create<linalg::YieldOp>(l, args[0]); });
    return g.getResult(0);
  }

  /// A `tensor.collapse_shape` that merges the innermost dimension (padded to `lanes` in
  /// HBM, so not in place) of an argument, or of a result that is used elsewhere too
  /// (either possibly through views), reads a copy instead: the copy's only use is the reshape, so
  /// tpu-alloc-hbm writes it in the merged layout (when its rows are whole DMA runs of
  /// `alignBytes`).
  void copyForMerges(func::FuncOp f, int64_t lanes, int64_t alignBytes) {
    SmallVector<tensor::CollapseShapeOp> todo;
    f.walk([&](tensor::CollapseShapeOp c) {
      Value src = c.getSrc();
      auto type = cast<RankedTensorType>(src.getType());
      const int64_t last = type.getRank() - 1;
      if (last < 1) return;
      // (An innermost dimension of one element merges in place: its stride is the row's. A
      // copy written merged needs rows of whole DMA runs.)
      const int64_t n = type.getShape()[last];
      std::optional<DType> dt = dtypeOf(type.getElementType());
      if (!dt) return;
      const int64_t rowBytes = n * static_cast<int64_t>(dtypeSize(*dt));
      if (n == 1 || n % lanes == 0 || rowBytes % alignBytes != 0) return;
      for (const ReassociationIndices& group : c.getReassociationIndices()) {
        if (group.back() != last) continue;
        bool merges = false;
        for (int64_t d : group) merges |= d != last && type.getShape()[d] > 1;
        // An argument, or a value (a view) that another reader takes in its own layout: no
        // kernel writes it merged.
        Value root = src;
        bool shared = !src.hasOneUse();
        while (Operation* d = root.getDefiningOp()) {
          if (!isViewOp(d)) break;
          root = d->getOperand(0);
          shared |= !root.hasOneUse();
        }
        Operation* def = root.getDefiningOp();
        if (merges && (!def || (isComputeOp(def) && shared))) todo.push_back(c);
      }
    });
    for (tensor::CollapseShapeOp c : todo) {
      OpBuilder b(c);
      c->setOperand(0, copyOf(b, c.getLoc(), c.getSrc()));
    }
  }

  /// Every part of a tensor.concat is written in place into its slice of the result
  /// (tpu-alloc-hbm): a part that is not a kernel's value used only there (an argument, a
  /// view, a constant, a value used elsewhere too) is concatenated as a copy. A concatenation
  /// used only by another is a part written in place too.
  void copyForConcats(func::FuncOp f) {
    f.walk([&](tensor::ConcatOp c) {
      if (isLhsConcat(c)) return; // read in place, part by part
      for (OpOperand& part : c->getOpOperands()) {
        Value v = part.get();
        Operation* def = v.getDefiningOp();
        if (def && (isComputeOp(def) || isa<tensor::ConcatOp>(def)) && v.hasOneUse()) continue;
        OpBuilder b(c);
        part.set(copyOf(b, c.getLoc(), v));
      }
    });
  }

  void addCopies(func::FuncOp f) {
    auto ret = cast<func::ReturnOp>(f.getBody().front().getTerminator());
    OpBuilder b(ret);
    llvm::DenseSet<Value> seen;
    for (OpOperand& operand : ret->getOpOperands()) {
      Value v = operand.get();
      Operation* def = v.getDefiningOp();
      const bool direct =
          def && (isComputeOp(def) || isa<tensor::ConcatOp>(def)) && !seen.contains(v);
      seen.insert(v);
      if (!direct) operand.set(copyOf(b, ret.getLoc(), v));
    }
  }

  static std::string kernelName(int index, const Group& g) {
    std::string kind;
    if (isa<linalg::MatmulOp>(g.root))
      kind = "matmul";
    else if (isa<linalg::BatchMatmulOp>(g.root))
      kind = "batch_matmul";
    else if (isContraction(g.root))
      kind = "contraction";
    else if (isa<tensor::GatherOp>(g.root))
      kind = "gather";
    else {
      bool reduction = false;
      for (Operation* op : g.ops)
        if (auto gen = dyn_cast<linalg::GenericOp>(op)) reduction |= reduces(gen);
      kind = reduction ? "rowwise" : "elementwise";
    }
    return "k" + std::to_string(index) + "_" + kind;
  }

  void buildKernel(func::FuncOp f, int index) {
    Group& grp = groups[static_cast<size_t>(index)];
    llvm::SmallPtrSet<Operation*, 16> inGroup(grp.ops.begin(), grp.ops.end());
    // Results: values of the group used outside it.
    SmallVector<Value> results;
    for (Operation* op : grp.ops)
      for (Value r : op->getResults())
        for (Operation* user : r.getUsers())
          if (!inGroup.contains(user)) {
            results.push_back(r);
            break;
          }
    for (Value r : results)
      if (column.lookup(r)) {
        // Name a user outside the kernel (the use list also holds the kernel's own uses).
        Operation* outside = nullptr;
        for (Operation* user : r.getUsers())
          if (!inGroup.contains(user)) outside = user;
        r.getDefiningOp()->emitError()
            << "the result of this reduction is used outside its kernel (by '" << outside->getName()
            << "'); only element-wise uses in the same kernel are supported";
        return signalPassFailure();
      }
    Operation* last = grp.ops.back();
    OpBuilder b(f.getContext());
    b.setInsertionPointAfter(last);
    SmallVector<Type> types;
    for (Value r : results) types.push_back(r.getType());
    auto kernel = b.create<KernelOp>(grp.root->getLoc(), types, kernelName(index, grp));
    Block* kb = new Block();
    kernel.getBody().push_back(kb);
    OpBuilder kbld = OpBuilder::atBlockEnd(kb);
    auto yield = kbld.create<YieldOp>(kernel.getLoc(), ValueRange(results));
    // Move the ops in; clone the init ops they use.
    IRMapping inits;
    for (Operation* op : grp.ops) {
      op->moveBefore(yield);
      for (OpOperand& operand : op->getOpOperands()) {
        Operation* def = operand.get().getDefiningOp();
        if (!def || !isInitOp(def) || kernel->isAncestor(def)) continue;
        if (!inits.contains(operand.get())) {
          OpBuilder ib(op);
          // linalg.fill's operands (the constant, the empty tensor) come along.
          for (Value sub : def->getOperands())
            if (Operation* sd = sub.getDefiningOp(); sd && isInitOp(sd) && !inits.contains(sub))
              inits.map(sub, ib.clone(*sd)->getResult(0));
          Operation* c = ib.clone(*def, inits);
          for (auto [o, n] : llvm::zip(def->getResults(), c->getResults())) inits.map(o, n);
        }
        operand.set(inits.lookup(operand.get()));
      }
    }
    for (auto [i, r] : llvm::enumerate(results))
      r.replaceUsesWithIf(kernel.getResult(static_cast<unsigned>(i)),
                          [&](OpOperand& use) { return !kernel->isAncestor(use.getOwner()); });
    // Ops before the kernel that use its results (views) move after it.
    SmallVector<Operation*> toMove;
    llvm::DenseSet<Value> produced(kernel->getResults().begin(), kernel->getResults().end());
    Block* fb = kernel->getBlock();
    SmallVector<Operation*> before;
    for (Operation& op : *fb) {
      if (&op == kernel.getOperation()) break;
      before.push_back(&op);
    }
    for (Operation* op : before) {
      bool uses = false;
      for (Value v : op->getOperands()) uses |= produced.contains(v);
      if (!uses) continue;
      toMove.push_back(op);
      for (Value r : op->getResults()) produced.insert(r);
    }
    Operation* after = kernel;
    for (Operation* op : toMove) {
      op->moveAfter(after);
      after = op;
    }
  }
};

} // namespace

std::unique_ptr<Pass> createFormKernelsPass() {
  return std::make_unique<FormKernelsPass>();
}

} // namespace chipless::tpuc
