//===- Lowering.cpp - one tile's KTIR to a core schedule: the driver ------===//
//
// Part of chipless. See Lowering.h. This file holds the walk over the function, value
// views (shape casts, slices, broadcasts, splats, fills) and the buffer helpers; control
// flow is in LowerControlFlow.cpp, the ops that move or compute data in the Lower*.cpp files.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "RingGroups.h"
#include "ktir/Dialect/Ktdp/KtdpOps.h"
#include "ktir/Dialect/Spyreop/SpyreopOps.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include "llvm/Support/ErrorHandling.h"

#include <set>

using namespace mlir;

namespace chipless::sched {

int64_t TVal::elements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::map<std::string, int> numberExchanges(llvm::ArrayRef<func::FuncOp> funcs) {
  std::set<std::string> keys;
  for (func::FuncOp f : funcs)
    f.walk([&](Operation* op) {
      if (isa<ktdp::InterTileReduceOp, ktdp::InterTileReduceScatterOp, ktdp::InterTileConsumeOp,
              ktdp::InterTileGatherOp, ktdp::InterTileScatterOp, ktdp::InterTileAllToAllOp>(op))
        keys.insert(locationKey(op->getLoc()));
    });
  std::map<std::string, int> index;
  for (const std::string& k : keys) index.emplace(k, static_cast<int>(index.size()));
  return index;
}

TVal Lowering::exchangeBuffer(ArrayRef<int64_t> shape, Type elem, Operation* op,
                              const std::string& role) {
  TVal t =
      newDense(shape, elem, op->getName().stripDialect().str() + (role.empty() ? "" : " " + role));
  out_.buffers[static_cast<size_t>(t.buffer)].exchange =
      locationKey(op->getLoc()) + (role.empty() ? "" : "#" + role);
  return t;
}

int Lowering::readyToken(Operation* op) const {
  auto it = options_.exchangeIndex.find(locationKey(op->getLoc()));
  // Every delivery op was numbered before lowering; a miss is a bug of the scheduler.
  if (it == options_.exchangeIndex.end())
    llvm::report_fatal_error("Dataflow Scheduler: inter-tile exchange not numbered");
  return arch_.sync.tokens_per_core - 2 - it->second;
}

int Lowering::arriveToken() const {
  return arch_.sync.tokens_per_core - 1;
}

Lowering::Lowering(func::FuncOp func, int core, int numTiles, const KernelArgs& args,
                   const SpyreArch& arch, CoreSchedule& out, const LowerOptions& options)
    : func_(func), core_(core), numTiles_(numTiles), args_(args), arch_(arch), out_(out),
      options_(options) {
  out_.core = core;
  eval_.funcArg = [this](unsigned i) -> Expr {
    auto s = args_.scalarArg.find(static_cast<int>(i));
    if (s != args_.scalarArg.end()) return Expr::sym(s->second);
    return Expr::sym(pointerSymbol(i));
  };
}

int64_t Lowering::esize(Type t) const {
  if (t.isInteger(1)) return 2;
  unsigned bits = t.getIntOrFloatBitWidth();
  return bits <= 16 ? 2 : 4;
}

int Lowering::newBuffer(int64_t bytes, const std::string& what) {
  Buffer b;
  b.name = what;
  b.bytes = (bytes + stick() - 1) / stick() * stick();
  b.loc = currentLoc_;
  out_.buffers.push_back(b);
  return static_cast<int>(out_.buffers.size() - 1);
}

std::vector<int64_t> Lowering::denseStrides(ArrayRef<int64_t> shape, Type elem) const {
  std::vector<int64_t> st(shape.size());
  if (shape.empty()) return st;
  const int64_t es = esize(elem);
  st.back() = es;
  if (shape.size() >= 2) {
    int64_t pitch = (shape.back() * es + stick() - 1) / stick() * stick();
    st[shape.size() - 2] = pitch;
    for (size_t k = shape.size() - 2; k-- > 0;) st[k] = st[k + 1] * shape[k + 1];
  }
  return st;
}

std::vector<int64_t> Lowering::sparseStrides(ArrayRef<int64_t> shape) const {
  std::vector<int64_t> st(shape.size());
  int64_t s = stick();
  for (size_t k = shape.size(); k-- > 0;) {
    st[k] = s;
    s *= shape[k];
  }
  return st;
}

int64_t Lowering::denseBytes(ArrayRef<int64_t> shape, Type elem) const {
  int64_t rows = 1;
  for (size_t k = 0; k + 1 < shape.size(); ++k) rows *= shape[k];
  int64_t last = shape.empty() ? 1 : shape.back();
  int64_t pitch = (last * esize(elem) + stick() - 1) / stick() * stick();
  return std::max<int64_t>(rows * pitch, stick());
}

TVal Lowering::newDense(ArrayRef<int64_t> shape, Type elem, const std::string& what) {
  TVal t;
  t.kind = TVal::Kind::Buffer;
  t.shape.assign(shape.begin(), shape.end());
  t.elem = elem;
  t.buffer = newBuffer(denseBytes(shape, elem), what);
  t.strides = denseStrides(shape, elem);
  return t;
}

TVal Lowering::newSparse(ArrayRef<int64_t> shape, Type elem, const std::string& what) {
  TVal t;
  t.kind = TVal::Kind::Buffer;
  t.shape.assign(shape.begin(), shape.end());
  t.elem = elem;
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  t.buffer = newBuffer(std::max<int64_t>(n, 1) * stick(), what);
  t.strides = sparseStrides(shape);
  t.sparse = true;
  return t;
}

Step& Lowering::addStep(int engine, Location loc, const std::string& text) {
  auto node = std::make_unique<Node>();
  node->kind = Node::Kind::Step;
  node->step = std::make_unique<Step>(loc);
  node->step->engine = engine;
  node->step->text = text;
  Step& s = *node->step;
  current_->body.push_back(std::move(node));
  return s;
}

Access Lowering::scratch(int buffer, int64_t offset, int64_t bytes, bool write) {
  Access a;
  a.space = Access::Space::Scratch;
  a.buffer = buffer;
  a.lo = Expr(offset);
  a.hi = Expr(offset + bytes);
  a.write = write;
  return a;
}

FailureOr<TVal> Lowering::value(Value v) {
  auto it = values_.find(v);
  if (it != values_.end()) return it->second;
  // Values computed on demand: constants, tensor.empty.
  Operation* def = v.getDefiningOp();
  if (def) {
    if (auto c = dyn_cast<arith::ConstantOp>(def)) {
      TVal t;
      t.kind = TVal::Kind::Uniform;
      if (auto dense = dyn_cast<DenseElementsAttr>(c.getValue())) {
        if (!dense.isSplat())
          return def->emitOpError("is a constant tensor whose elements differ; only splat "
                                  "constants are supported"),
                 failure();
        auto type = cast<RankedTensorType>(dense.getType());
        t.shape.assign(type.getShape().begin(), type.getShape().end());
        t.elem = type.getElementType();
        if (auto f = dyn_cast<FloatType>(t.elem))
          t.scalar.value = dense.getSplatValue<APFloat>().convertToDouble();
        else
          t.scalar.value = static_cast<double>(dense.getSplatValue<APInt>().getSExtValue());
      } else if (auto f = dyn_cast<FloatAttr>(c.getValue())) {
        t.elem = f.getType();
        t.scalar.value = f.getValueAsDouble();
      } else if (auto i = dyn_cast<IntegerAttr>(c.getValue());
                 i && (i.getType().isInteger(32) || i.getType().isIndex())) {
        // An i32 or index constant in a linalg body (indices are i32 on the SFU).
        t.elem = IntegerType::get(def->getContext(), 32);
        t.scalar.value = static_cast<double>(i.getInt());
      } else {
        return def->emitOpError("is a constant the scheduler cannot place in a tensor"), failure();
      }
      values_[v] = t;
      return t;
    }
    if (auto empty = dyn_cast<tensor::EmptyOp>(def)) {
      // Never read before written in well-formed kernels; zeros where it is.
      TVal t;
      t.kind = TVal::Kind::Uniform;
      auto type = cast<RankedTensorType>(empty.getType());
      t.shape.assign(type.getShape().begin(), type.getShape().end());
      t.elem = type.getElementType();
      values_[v] = t;
      return t;
    }
  }
  if (def) return def->emitOpError("produces a value the scheduler has not placed"), failure();
  // A real scalar argument (`%eps: f16`): its launch value in every lane, splat from the
  // symbol by the SFU that uses it.
  if (auto arg = dyn_cast<BlockArgument>(v);
      arg && arg.getOwner()->getParentOp() == func_.getOperation()) {
    auto it = args_.scalarArg.find(static_cast<int>(arg.getArgNumber()));
    if (it != args_.scalarArg.end() && isa<FloatType>(v.getType())) {
      TVal t;
      t.kind = TVal::Kind::Uniform;
      t.elem = v.getType();
      t.scalar.isConst = false;
      t.scalar.symbol = it->second;
      values_[v] = t;
      return t;
    }
  }
  emitError(v.getLoc()) << "a value the scheduler has not placed";
  return failure();
}

bool Lowering::diesAt(Value v, Operation* op) {
  Operation* def = v.getDefiningOp();
  if (!def || def->getBlock() != op->getBlock()) return false;
  // The value and every view of it: no use after `op`.
  SmallVector<Value> work = {v};
  while (!work.empty()) {
    Value x = work.pop_back_val();
    for (OpOperand& use : x.getUses()) {
      Operation* user = use.getOwner();
      Operation* top = op->getBlock()->findAncestorOpInBlock(*user);
      if (!top) return false;
      if (top == op) continue;
      if (!top->isBeforeInBlock(op)) return false;
      if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp, tensor::ExtractSliceOp,
              linalg::BroadcastOp>(user) &&
          use.getOperandNumber() == 0)
        for (Value r : user->getResults()) work.push_back(r);
    }
  }
  return true;
}

TVal Lowering::resultBuffer(Operation* op, Value result, ArrayRef<TVal> operands,
                            const std::string& what) {
  auto dest = destinations_.find(result);
  if (dest != destinations_.end()) return dest->second;
  auto type = cast<RankedTensorType>(result.getType());
  Type elem = type.getElementType();
  std::vector<int64_t> shape(type.getShape().begin(), type.getShape().end());
  // Operands that are all one element per stick (reduction results, as many as the
  // result has elements): the result is too, in a dying operand's buffer or a new one.
  bool allSparse = !shape.empty() && llvm::any_of(operands, [](const TVal& o) {
    return o.kind == TVal::Kind::Buffer;
  });
  for (const TVal& o : operands)
    if (o.kind == TVal::Kind::Buffer &&
        (!o.sparse || o.shape != shape || o.strides != sparseStrides(shape)))
      allSparse = false;
  if (allSparse) {
    for (size_t i = 0; i < operands.size() && i < op->getNumOperands(); ++i) {
      const TVal& o = operands[i];
      if (o.kind != TVal::Kind::Buffer || o.offset != 0 || esize(o.elem) != esize(elem) ||
          !diesAt(op->getOperand(static_cast<unsigned>(i)), op))
        continue;
      TVal t = o;
      t.elem = isa<FloatType>(elem) || elem.isInteger(32) ? elem : o.elem;
      return t;
    }
    return newSparse(shape, elem.isInteger(1) ? operands.front().elem : elem, what);
  }
  for (size_t i = 0; i < operands.size() && i < op->getNumOperands(); ++i) {
    const TVal& o = operands[i];
    if (o.kind != TVal::Kind::Buffer || o.sparse || o.offset != 0) continue;
    if (o.shape != std::vector<int64_t>(type.getShape().begin(), type.getShape().end())) continue;
    if (esize(o.elem) != esize(elem) || o.strides != denseStrides(o.shape, o.elem)) continue;
    if (out_.buffers[static_cast<size_t>(o.buffer)].bytes != denseBytes(o.shape, o.elem)) continue;
    Value operand = op->getOperand(static_cast<unsigned>(i));
    if (!diesAt(operand, op)) continue;
    // Every other view of the buffer must be dead too: only values defined from this
    // operand's chain alias it, which diesAt checked.
    TVal t = o;
    t.elem = isa<FloatType>(elem) || elem.isInteger(32) ? elem : o.elem;
    t.pad.reset();
    return t;
  }
  return newDense(type.getShape(), elem.isInteger(1) ? operands.front().elem : elem, what);
}

//===----------------------------------------------------------------------===//
// The walk
//===----------------------------------------------------------------------===//

LogicalResult Lowering::run() {
  current_ = &out_.root;
  return lowerBlock(func_.getBody().front());
}

LogicalResult Lowering::lowerBlock(Block& block) {
  for (Operation& op : block.without_terminator())
    if (failed(lowerOp(&op))) return failure();
  return success();
}

namespace {

bool isIndexLike(Type t) {
  return t.isIntOrIndex();
}

} // namespace

bool isLazy(Operation* op) {
  if (isa<ktdp::ConstructMemoryViewOp, ktdp::ConstructDistributedMemoryViewOp,
          ktdp::ConstructAccessTileOp, ktdp::ConstructIndirectAccessTileOp,
          ktdp::RuntimeArgExtractOp, tensor::EmptyOp, affine::AffineApplyOp>(op))
    return true;
  if (isa<arith::ConstantOp>(op)) return true;
  if (op->getDialect() && op->getDialect()->getNamespace() == "arith" &&
      llvm::all_of(op->getResultTypes(), isIndexLike) &&
      llvm::all_of(op->getOperandTypes(), isIndexLike))
    return true;
  return false;
}

LogicalResult Lowering::lowerOp(Operation* op) {
  if (isLazy(op) || handled_.contains(op)) return success();
  currentLoc_ = op->getLoc();
  if (auto loop = dyn_cast<scf::ForOp>(op)) return lowerFor(loop);
  if (auto branch = dyn_cast<scf::IfOp>(op)) return lowerIf(branch);
  if (isa<ktdp::LoadOp>(op)) return lowerLoad(op);
  if (isa<ktdp::StoreOp>(op)) return lowerStore(op);
  if (isa<ktdp::InterTileProduceOp>(op)) return lowerProduce(op);
  if (isa<ktdp::InterTileReduceOp, ktdp::InterTileReduceScatterOp>(op))
    return lowerReduceDelivery(op);
  if (isa<ktdp::InterTileConsumeOp>(op)) return lowerConsume(op);
  if (isa<ktdp::InterTileGatherOp>(op)) return lowerGather(op);
  if (isa<ktdp::InterTileScatterOp>(op)) return lowerScatter(op);
  if (isa<ktdp::InterTileAllToAllOp>(op)) return lowerAllToAll(op);
  if (isa<linalg::MatmulOp>(op)) return lowerMatmul(op);
  if (isa<linalg::TransposeOp>(op)) return lowerTranspose(op);
  if (isa<linalg::ReduceOp>(op)) return lowerReduce(op);
  if (isa<linalg::GenericOp>(op)) return lowerGeneric(op);
  if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp, tensor::ExtractSliceOp, tensor::ExtractOp,
          tensor::SplatOp, linalg::FillOp, linalg::BroadcastOp, linalg::CopyOp, tensor::CastOp>(op))
    return lowerViewLike(op);
  if (isa<ktdp::GetComputeTileIdOp>(op))
    return op->emitOpError("internal error: left after SPMD specialisation");
  if (op->getNumRegions() == 0 && op->getNumResults() == 1 &&
      (op->getDialect()->getNamespace() == "arith" || op->getDialect()->getNamespace() == "math" ||
       op->getDialect()->getNamespace() == "spyreop" ||
       op->getDialect()->getNamespace() == "linalg"))
    return lowerElementwise(op);
  if (op->getDialect() && op->getDialect()->getNamespace() == "linalg") return lowerElementwise(op);
  return op->emitOpError("is not supported by the Dataflow Scheduler");
}

//===----------------------------------------------------------------------===//
// Views, splats and fills
//===----------------------------------------------------------------------===//

namespace {

std::vector<int64_t> shapeOf(Value v) {
  auto t = cast<RankedTensorType>(v.getType());
  return {t.getShape().begin(), t.getShape().end()};
}

} // namespace

LogicalResult Lowering::lowerViewLike(Operation* op) {
  Location loc = op->getLoc();
  if (auto splat = dyn_cast<tensor::SplatOp>(op)) {
    auto s = value(splat.getInput());
    if (failed(s)) return failure();
    if (s->kind != TVal::Kind::Uniform)
      return op->emitOpError("splats a value the scheduler does not hold in a register");
    TVal t = *s;
    t.shape = shapeOf(splat.getResult());
    bind(splat.getResult(), t);
    return success();
  }
  if (auto fill = dyn_cast<linalg::FillOp>(op)) {
    auto s = value(fill.getInputs()[0]);
    if (failed(s)) return failure();
    if (s->kind != TVal::Kind::Uniform)
      return op->emitOpError("fills with a value the scheduler does not hold in a register");
    TVal t = *s;
    t.shape = shapeOf(fill.getResult(0));
    t.elem = cast<RankedTensorType>(fill.getResult(0).getType()).getElementType();
    bind(fill.getResult(0), t);
    return success();
  }
  if (auto extract = dyn_cast<tensor::ExtractOp>(op)) {
    auto t = value(extract.getTensor());
    if (failed(t)) return failure();
    if (t->kind == TVal::Kind::Uniform) {
      TVal s = *t;
      s.shape.clear();
      bind(extract.getResult(), s);
      return success();
    }
    // One element of a buffer: its address from the (constant) indices.
    int64_t off = t->offset;
    for (auto [k, idx] : llvm::enumerate(extract.getIndices())) {
      auto e = index(idx);
      if (failed(e)) return failure();
      if (!e->isConst())
        return op->emitOpError("extracts at an index that is not known when the kernel is "
                               "compiled");
      off += e->constant() * t->strides[k];
    }
    TVal one = *t;
    one.shape.clear();
    one.strides.clear();
    one.offset = off;
    auto s = scalarOf(one, loc, t->shape.empty() || t->shape.back() == 1);
    if (failed(s)) return failure();
    TVal u;
    u.kind = TVal::Kind::Uniform;
    u.elem = t->elem;
    u.scalar = *s;
    bind(extract.getResult(), u);
    return success();
  }
  Value src = op->getOperand(0);
  auto t = value(src);
  if (failed(t)) return failure();
  Value res = op->getResult(0);
  std::vector<int64_t> shape = shapeOf(res);
  if (t->kind == TVal::Kind::Uniform) {
    TVal u = *t;
    u.shape = shape;
    bind(res, u);
    return success();
  }
  if (isa<linalg::CopyOp, tensor::CastOp>(op)) {
    if (isa<linalg::CopyOp>(op)) {
      TVal out = newDense(shape, t->elem, "linalg.copy");
      if (failed(copyInto(*t, out, loc))) return failure();
      bind(res, out);
    } else {
      TVal v = *t;
      v.shape = shape;
      bind(res, v);
    }
    return success();
  }
  if (auto bcast = dyn_cast<linalg::BroadcastOp>(op)) {
    // Added dimensions get stride 0.
    ArrayRef<int64_t> added = bcast.getDimensions();
    TVal v = *t;
    v.shape = shape;
    v.strides.assign(shape.size(), 0);
    size_t k = 0;
    for (size_t d = 0; d < shape.size(); ++d) {
      if (llvm::is_contained(added, static_cast<int64_t>(d))) continue;
      v.strides[d] = t->strides[k++];
    }
    // A broadcast of a single element to every lane needs it in every lane of a stick.
    if (t->shape.empty() || t->elements() == 1) {
      if (!t->sparse) {
        auto s = scalarOf(*t, loc, /*alone=*/true);
        if (failed(s)) return failure();
        TVal u;
        u.kind = TVal::Kind::Uniform;
        u.elem = t->elem;
        u.shape = shape;
        u.scalar = *s;
        bind(res, u);
        return success();
      }
    }
    bind(res, v);
    return success();
  }
  if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op)) {
    TVal v = *t;
    auto offsets = slice.getMixedOffsets(), strides = slice.getMixedStrides();
    std::vector<int64_t> full(t->shape);
    std::vector<int64_t> newStrides;
    int64_t off = t->offset;
    for (size_t d = 0; d < full.size(); ++d) {
      auto o = getConstantIntValue(offsets[d]);
      auto s = getConstantIntValue(strides[d]);
      if (!o || !s) return op->emitOpError("has offsets or strides that are not constants");
      off += *o * t->strides[d];
      (void)s;
    }
    // Dropped unit dimensions.
    llvm::SmallBitVector dropped = slice.getDroppedDims();
    for (size_t d = 0; d < full.size(); ++d) {
      auto s = getConstantIntValue(strides[d]);
      if (!dropped.test(d)) newStrides.push_back(t->strides[d] * *s);
    }
    v.offset = off;
    v.shape = shape;
    v.strides = newStrides;
    v.pad.reset();
    bind(res, v);
    return success();
  }
  // expand_shape / collapse_shape: recompute the strides of the new dimensions.
  SmallVector<ReassociationIndices> groups;
  bool expand = false;
  if (auto e = dyn_cast<tensor::ExpandShapeOp>(op)) {
    groups = e.getReassociationIndices();
    expand = true;
  } else {
    groups = cast<tensor::CollapseShapeOp>(op).getReassociationIndices();
  }
  TVal v = *t;
  v.shape = shape;
  v.strides.assign(shape.size(), 0);
  const int64_t unit = t->sparse ? stick() : esize(t->elem);
  if (expand) {
    // Dimension g of the source splits into `group`: the innermost keeps its stride.
    for (auto [g, group] : llvm::enumerate(groups)) {
      int64_t s = t->strides.empty() ? unit : t->strides[g];
      for (size_t j = group.size(); j-- > 0;) {
        v.strides[group[j]] = s;
        s *= shape[group[j]];
      }
    }
  } else {
    // `group` of the source merges into dimension g: its strides must chain.
    for (auto [g, group] : llvm::enumerate(groups)) {
      int64_t s = -1, expected = -1;
      for (size_t j = group.size(); j-- > 0;) {
        int64_t d = group[j];
        if (t->shape[d] == 1) continue;
        if (s >= 0 && t->strides[d] != expected)
          return op->emitOpError("merges dimensions that do not lie one after the other in "
                                 "the scratchpad (rows padded to whole sticks); re-laying out "
                                 "(restickify) is not supported");
        if (s < 0) s = t->strides[d];
        expected = t->strides[d] * t->shape[d];
      }
      v.strides[g] = s < 0 ? unit : s;
    }
  }
  bind(res, v);
  return success();
}

} // namespace chipless::sched
