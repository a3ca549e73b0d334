//===- Kernel.cpp - a KTIR kernel's arguments and index values ------------===//
//
// Part of chipless. See Kernel.h.
//
//===----------------------------------------------------------------------===//

#include "Kernel.h"

#include "AffineToExpr.h"
#include "ktir/Dialect/Ktdp/KtdpOps.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinTypes.h"

#include <algorithm>
#include <set>
#include <sstream>

using namespace mlir;

namespace chipless::sched {

int64_t TensorArgument::elements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

const TensorArgument* KernelArgs::constantTensor(Type elemType, int64_t c, int space) const {
  for (const auto& t : tensors)
    if (t.funcArg < 0 && t.space == space && t.elemType == elemType && c >= t.constLo &&
        c < t.constHi)
      return &t;
  return nullptr;
}

std::string pointerSymbol(unsigned i) {
  return "%arg" + std::to_string(i);
}

//===----------------------------------------------------------------------===//
// Index values
//===----------------------------------------------------------------------===//

FailureOr<Expr> IndexEval::eval(Value v) {
  if (auto it = cache_.find(v); it != cache_.end()) return it->second;
  Expr result;
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    if (auto f = fixed.find(v); f != fixed.end()) return f->second;
    Operation* owner = arg.getOwner()->getParentOp();
    if (isa<func::FuncOp>(owner)) {
      result = funcArg(arg.getArgNumber());
    } else if (auto loop = dyn_cast<scf::ForOp>(owner); loop && arg == loop.getInductionVar()) {
      auto it = loopIds.find(loop);
      if (it == loopIds.end()) {
        emitError(v.getLoc()) << "internal error: loop variable of an unscheduled loop";
        return failure();
      }
      result = Expr::var(it->second);
    } else {
      emitError(v.getLoc()) << "an index value carried by a region argument (scf.for "
                               "iter_args, scf.if results) is not supported; compute it from "
                               "the loop variable";
      return failure();
    }
    cache_[v] = result;
    return result;
  }
  Operation* op = v.getDefiningOp();
  auto operand = [&](unsigned i) { return eval(op->getOperand(i)); };
  auto binary = [&](auto f) -> FailureOr<Expr> {
    auto a = operand(0);
    if (failed(a)) return failure();
    auto b = operand(1);
    if (failed(b)) return failure();
    return f(*a, *b);
  };
  FailureOr<Expr> r = failure();
  if (auto c = dyn_cast<arith::ConstantOp>(op)) {
    if (auto i = dyn_cast<IntegerAttr>(c.getValue()))
      r = Expr(i.getType().isInteger(1) ? static_cast<int64_t>(i.getValue().getZExtValue())
                                        : i.getValue().getSExtValue());
    else
      return op->emitOpError("is not an integer constant"), failure();
  } else if (isa<arith::AddIOp>(op)) {
    r = binary([](const Expr& a, const Expr& b) { return a + b; });
  } else if (isa<arith::SubIOp>(op)) {
    r = binary([](const Expr& a, const Expr& b) { return a - b; });
  } else if (isa<arith::MulIOp>(op)) {
    r = binary([](const Expr& a, const Expr& b) { return a * b; });
  } else if (isa<arith::DivSIOp, arith::DivUIOp, arith::FloorDivSIOp>(op)) {
    r = binary([](const Expr& a, const Expr& b) { return floorDiv(a, b); });
  } else if (isa<arith::CeilDivSIOp, arith::CeilDivUIOp>(op)) {
    r = binary([](const Expr& a, const Expr& b) { return ceilDiv(a, b); });
  } else if (isa<arith::RemSIOp, arith::RemUIOp>(op)) {
    r = binary([](const Expr& a, const Expr& b) { return mod(a, b); });
  } else if (isa<arith::MinSIOp, arith::MinUIOp>(op)) {
    r = binary([](const Expr& a, const Expr& b) { return min(a, b); });
  } else if (isa<arith::MaxSIOp, arith::MaxUIOp>(op)) {
    r = binary([](const Expr& a, const Expr& b) { return max(a, b); });
  } else if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp, arith::ExtUIOp,
                 arith::TruncIOp>(op)) {
    r = operand(0);
  } else if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
    auto a = operand(0), b = operand(1);
    if (failed(a) || failed(b)) return failure();
    Expr d = *a - *b;
    if (!d.isConst())
      return op->emitOpError("compares values that are not known when the kernel is "
                             "compiled; fix the scalars it depends on with --const"),
             failure();
    int64_t x = d.constant();
    bool t = false;
    switch (cmp.getPredicate()) {
    case arith::CmpIPredicate::eq:
      t = x == 0;
      break;
    case arith::CmpIPredicate::ne:
      t = x != 0;
      break;
    case arith::CmpIPredicate::slt:
    case arith::CmpIPredicate::ult:
      t = x < 0;
      break;
    case arith::CmpIPredicate::sle:
    case arith::CmpIPredicate::ule:
      t = x <= 0;
      break;
    case arith::CmpIPredicate::sgt:
    case arith::CmpIPredicate::ugt:
      t = x > 0;
      break;
    case arith::CmpIPredicate::sge:
    case arith::CmpIPredicate::uge:
      t = x >= 0;
      break;
    }
    r = Expr(t ? 1 : 0);
  } else if (auto sel = dyn_cast<arith::SelectOp>(op)) {
    auto c = operand(0);
    if (failed(c)) return failure();
    if (!c->isConst()) {
      // select(a < b, a, b) and friends: minimum and maximum.
      auto cmp = sel.getCondition().getDefiningOp<arith::CmpIOp>();
      auto a = eval(sel.getTrueValue()), b = eval(sel.getFalseValue());
      if (failed(a) || failed(b)) return failure();
      if (cmp) {
        auto l = eval(cmp.getLhs()), rr = eval(cmp.getRhs());
        if (succeeded(l) && succeeded(rr) && *l == *a && *rr == *b) {
          auto p = cmp.getPredicate();
          if (p == arith::CmpIPredicate::slt || p == arith::CmpIPredicate::sle ||
              p == arith::CmpIPredicate::ult || p == arith::CmpIPredicate::ule)
            r = min(*a, *b);
          else if (p == arith::CmpIPredicate::sgt || p == arith::CmpIPredicate::sge ||
                   p == arith::CmpIPredicate::ugt || p == arith::CmpIPredicate::uge)
            r = max(*a, *b);
        }
      }
      if (failed(r))
        return op->emitOpError("selects on a condition that is not known when the kernel is "
                               "compiled"),
               failure();
    } else {
      r = eval(c->constant() ? sel.getTrueValue() : sel.getFalseValue());
    }
  } else if (auto apply = dyn_cast<affine::AffineApplyOp>(op)) {
    AffineMap map = apply.getAffineMap();
    SmallVector<Expr> dims, syms;
    for (unsigned i = 0; i < apply.getNumOperands(); ++i) {
      auto x = operand(i);
      if (failed(x)) return failure();
      (i < map.getNumDims() ? dims : syms).push_back(*x);
    }
    bool ok = true;
    r = applyAffine(map.getResult(0), dims, syms, ok);
    if (!ok)
      return op->emitOpError("has an affine expression the scheduler cannot evaluate"), failure();
  } else if (auto extract = dyn_cast<ktdp::RuntimeArgExtractOp>(op)) {
    // value: the launch scalar of the function argument; granularity and upperbound: the
    // constants of its type.
    auto type = cast<ktdp::RuntimeArgType>(extract.getInput().getType());
    switch (extract.getKind()) {
    case ktdp::RuntimeArgExtractKind::value: {
      auto arg = dyn_cast<BlockArgument>(extract.getInput());
      if (!arg || !isa<func::FuncOp>(arg.getOwner()->getParentOp()))
        return op->emitOpError("reads a runtime argument that is not an argument of the "
                               "kernel function"),
               failure();
      r = funcArg(arg.getArgNumber());
      break;
    }
    case ktdp::RuntimeArgExtractKind::granularity:
      r = Expr(type.getGranularity().value_or(1));
      break;
    case ktdp::RuntimeArgExtractKind::upperbound:
      if (!type.getUpperbound())
        return op->emitOpError("reads the upperbound of a runtime argument that declares none"),
               failure();
      r = Expr(*type.getUpperbound());
      break;
    }
  } else {
    return op->emitOpError("computes an index the scheduler cannot evaluate (it supports "
                           "arith integer ops, affine.apply and values fixed by --const)"),
           failure();
  }
  if (failed(r)) return failure();
  cache_[v] = *r;
  return *r;
}

//===----------------------------------------------------------------------===//
// Argument discovery
//===----------------------------------------------------------------------===//

namespace {

/// One global memory view of one tile.
struct ViewUse {
  Operation* view;
  Type elemType;
  int pointer = -1;       ///< function argument, or -1 for a constant base
  int64_t lo = 0, hi = 0; ///< element footprint relative to the pointer (or absolute)
  std::vector<int64_t> strides, sizes;
  bool read = false, written = false;
  Location constLoc; ///< constant base: where the constant is defined
  int space = -1;    ///< -1 global, else the tile whose scratchpad it views
  /// Dimensions whose size is a runtime argument's value: dimension -> function argument
  /// (`sizes` holds the argument's upperbound there).
  std::map<size_t, int> runtimeSizes = {};
  /// Some strides are launch values: those of the row-major array of the sizes.
  bool stridesFollowSizes = false;
};

/// Which ops read and write through `view` (through access tiles, distributed views and
/// indirect tiles).
void rolesOf(Value view, bool& read, bool& written) {
  for (Operation* user : view.getUsers()) {
    if (isa<ktdp::ConstructDistributedMemoryViewOp>(user)) {
      rolesOf(user->getResult(0), read, written);
      continue;
    }
    if (auto ind = dyn_cast<ktdp::ConstructIndirectAccessTileOp>(user)) {
      if (ind.getView() != view) { // an index view
        read = true;
        continue;
      }
    }
    if (!isa<ktdp::ConstructAccessTileOp, ktdp::ConstructIndirectAccessTileOp>(user)) continue;
    for (Operation* u : user->getResult(0).getUsers()) {
      if (isa<ktdp::LoadOp>(u)) read = true;
      if (isa<ktdp::StoreOp>(u)) written = true;
    }
  }
}

/// The value of a view's size or stride as an expression of the kernel's arguments.
std::optional<Expr> exprOf(OpFoldResult r, IndexEval& eval) {
  if (auto a = dyn_cast<Attribute>(r)) return Expr(cast<IntegerAttr>(a).getInt());
  auto e = eval.eval(cast<Value>(r));
  if (failed(e)) return std::nullopt;
  return *e;
}

std::optional<int64_t> constantOf(OpFoldResult r, IndexEval& eval) {
  auto e = exprOf(r, eval);
  return e ? e->asConst() : std::nullopt;
}

/// Shape of a tensor argument from the views on it: the row-major array the strides
/// describe, else 1-D.
std::vector<int64_t> shapeFromViews(const std::vector<const ViewUse*>& uses, int64_t footprint) {
  const ViewUse& first = *uses.front();
  bool same = std::all_of(uses.begin(), uses.end(),
                          [&](const ViewUse* u) { return u->strides == first.strides; });
  const auto& st = first.strides;
  if (same && !st.empty() && st.back() == 1) {
    std::vector<int64_t> shape(st.size());
    bool ok = true;
    for (size_t i = st.size() - 1; i > 0; --i) {
      if (st[i] <= 0 || st[i - 1] % st[i] != 0) ok = false;
      if (!ok) break;
      shape[i] = st[i - 1] / st[i];
    }
    if (ok && st[0] > 0) {
      shape[0] = (footprint + st[0] - 1) / st[0];
      // Every view must fit the inner dimensions.
      for (const ViewUse* u : uses)
        for (size_t i = 1; i < shape.size(); ++i)
          if (u->sizes[i] > shape[i]) ok = false;
      if (ok) return shape;
    }
  }
  return {footprint};
}

/// The function argument `e` is (exactly, with coefficient 1), or -1.
int argumentOf(const Expr& e) {
  if (e.constant() != 0 || e.terms().size() != 1 || e.terms()[0].second != 1) return -1;
  const Atom& atom = *e.terms()[0].first;
  if (atom.kind != Atom::Kind::Sym || atom.sym.rfind("%arg", 0) != 0) return -1;
  return std::stoi(atom.sym.substr(4));
}

/// A view size that is the value of a scalar argument with a maximum (a runtime_arg's
/// upperbound, or --bound): the argument's index and the maximum.
std::optional<std::pair<int, int64_t>> boundedSize(OpFoldResult size, IndexEval& eval,
                                                   const std::map<int, ScalarBounds>& bounds) {
  auto v = dyn_cast<Value>(size);
  if (!v) return std::nullopt;
  auto e = eval.eval(v);
  if (failed(e)) return std::nullopt;
  auto it = bounds.find(argumentOf(*e));
  if (it == bounds.end() || !it->second.max) return std::nullopt;
  return std::make_pair(it->first, *it->second.max);
}

} // namespace

LogicalResult discoverArguments(func::FuncOp original, ArrayRef<func::FuncOp> tiles,
                                const std::map<int, ScalarBounds>& givenBounds,
                                SourceNames& sourceNames, KernelArgs& out) {
  // A scalar that steps a loop must be at least 1: the program assumes it, the runtime
  // checks it.
  std::map<int, ScalarBounds> bounds = givenBounds;
  for (func::FuncOp f : tiles) {
    IndexEval eval;
    eval.funcArg = [](unsigned i) { return Expr::sym(pointerSymbol(i)); };
    f.walk([&](scf::ForOp loop) {
      auto step = eval.eval(loop.getStep());
      if (failed(step) || step->isConst() || step->constant() < 0) return;
      // c + sum(k * arg) with k > 0: positive when every argument is at least 1.
      std::vector<int> args;
      for (const auto& [atom, coef] : step->terms()) {
        if (coef <= 0 || atom->kind != Atom::Kind::Sym || atom->sym.rfind("%arg", 0) != 0) return;
        args.push_back(std::stoi(atom->sym.substr(4)));
      }
      for (int i : args) bounds[i].min = std::max<int64_t>(bounds[i].min, 1);
    });
  }
  std::vector<ViewUse> uses;
  std::set<int> pointers;
  // Names of constant addresses, from the original function (specialisation merges and
  // moves constants, and with them their locations).
  std::map<std::pair<int, int64_t>, std::string> constantNames;
  original.walk([&](ktdp::ConstructMemoryViewOp view) {
    auto c = view.getBase().getDefiningOp<arith::ConstantOp>();
    if (!c) return;
    auto i = dyn_cast<IntegerAttr>(c.getValue());
    if (!i) return;
    auto space = dyn_cast<ktdp::MemorySpaceAttrInterface>(view.getMemorySpace());
    int where = -1;
    if (space && !space.isGlobal()) where = static_cast<int>(space.getOwnerTileId().value_or(-2));
    if (auto n = sourceNames.at(c.getLoc()))
      constantNames.emplace(std::make_pair(where, i.getInt()), *n);
  });
  for (func::FuncOp f : tiles) {
    IndexEval eval;
    eval.funcArg = [](unsigned i) { return Expr::sym(pointerSymbol(i)); };
    std::map<int, Range> ranges;
    int nextLoop = 0;
    bool failedWalk = false;
    f.walk([&](scf::ForOp loop) {
      int id = nextLoop++;
      eval.loopIds[loop] = id;
      auto lb = eval.eval(loop.getLowerBound()), ub = eval.eval(loop.getUpperBound());
      if (succeeded(lb) && succeeded(ub) && lb->isConst() && ub->isConst() &&
          ub->constant() > lb->constant())
        ranges[id] = Range{lb->constant(), ub->constant() - 1};
    });
    f.walk([&](ktdp::ConstructMemoryViewOp view) {
      if (failedWalk) return;
      auto space = dyn_cast<ktdp::MemorySpaceAttrInterface>(view.getMemorySpace());
      int where = -1;
      if (!space) return;
      if (!space.isGlobal()) {
        std::optional<int64_t> owner = space.getOwnerTileId();
        if (!owner) {
          // The executing tile's own scratchpad (LowerOwnScratchpad.cpp): no argument.
          auto base = eval.eval(view.getBase());
          if (succeeded(base) && base->isConst()) return;
          view.emitOpError("views the executing tile's own scratchpad (ct_local without "
                           "ct_id) at an address that is not a constant");
          failedWalk = true;
          return;
        }
        where = static_cast<int>(*owner);
      }
      auto base = eval.eval(view.getBase());
      if (failed(base)) {
        failedWalk = true;
        return;
      }
      ViewUse use{view,  cast<MemRefType>(view.getType()).getElementType(),
                  -1,    0,
                  0,     {},
                  {},    false,
                  false, view.getLoc(),
                  where};
      Expr rest = *base;
      for (const auto& [atom, coef] : base->terms()) {
        if (atom->kind != Atom::Kind::Sym || atom->sym.rfind("%arg", 0) != 0) continue;
        if (coef != 1 || use.pointer >= 0 || where >= 0) {
          view.emitOpError("has a base address that is not pointer + offset");
          failedWalk = true;
          return;
        }
        use.pointer = std::stoi(atom->sym.substr(4));
        rest = rest - Expr::sym(atom->sym);
      }
      auto range = rangeOf(rest, ranges);
      if (!range) {
        view.emitOpError("has a base address whose range is not known when the kernel is "
                         "compiled (")
            << rest.str() << "); fix the scalars it depends on with --const";
        failedWalk = true;
        return;
      }
      if (use.pointer < 0) {
        if (auto def = view.getBase().getDefiningOp()) use.constLoc = def->getLoc();
      }
      int64_t extent = 0;
      const auto sizes = view.getMixedSizes(), strides = view.getMixedStrides();
      const size_t rank = sizes.size();
      auto refuse = [&] {
        view.emitOpError("has sizes or strides that are not known when the kernel is "
                         "compiled; bound the scalar a size is (spyre-compile --bound "
                         "NAME=MAX, or a runtime_arg with an upperbound) or fix the "
                         "scalars with --const");
        failedWalk = true;
      };
      // Sizes: constants, or a scalar with a maximum (the tensor is that long at launch).
      use.sizes.assign(rank, 0);
      for (size_t i = 0; i < rank; ++i) {
        auto sz = constantOf(sizes[i], eval);
        if (!sz) {
          if (auto bound = boundedSize(sizes[i], eval, bounds)) {
            use.runtimeSizes[i] = bound->first;
            sz = bound->second;
          }
        }
        if (!sz) return refuse();
        use.sizes[i] = *sz;
      }
      // Strides: constants, or those of the row-major array of the sizes (a row length
      // given at launch), which the footprint takes at the sizes' maxima.
      use.strides.assign(rank, 0);
      std::optional<Expr> contiguous = Expr(1);
      int64_t contiguousMax = 1;
      for (size_t i = rank; i-- > 0;) {
        auto given = exprOf(strides[i], eval);
        std::optional<int64_t> t = given ? given->asConst() : std::nullopt;
        if (!t && contiguous && given && *given == *contiguous) {
          t = contiguousMax;
          use.stridesFollowSizes = true;
        }
        if (!t) return refuse();
        use.strides[i] = *t;
        auto size = exprOf(sizes[i], eval);
        if (contiguous && size && *given == *contiguous) {
          contiguous = *contiguous * *size;
          contiguousMax *= use.sizes[i];
        } else {
          contiguous.reset();
        }
      }
      for (size_t i = 0; i < rank; ++i)
        if (use.sizes[i] > 0) extent += (use.sizes[i] - 1) * use.strides[i];
      use.lo = range->lo;
      use.hi = range->hi + extent + 1;
      rolesOf(view.getResult(), use.read, use.written);
      if (use.pointer >= 0) pointers.insert(use.pointer);
      uses.push_back(use);
    });
    if (failedWalk) return failure();
  }

  // Pointer arguments: one tensor each.
  std::set<std::string> names;
  auto unique = [&](std::string n) {
    std::string u = n;
    for (int i = 2; names.count(u); ++i) u = n + "_" + std::to_string(i);
    names.insert(u);
    return u;
  };
  for (int p : pointers) {
    std::vector<const ViewUse*> mine;
    for (const auto& u : uses)
      if (u.pointer == p) mine.push_back(&u);
    TensorArgument t;
    BlockArgument arg = original.getArgument(static_cast<unsigned>(p));
    t.name = unique(argumentName(sourceNames.at(arg.getLoc()).value_or("arg" + std::to_string(p))));
    t.elemType = mine.front()->elemType;
    int64_t lo = 0, hi = 0;
    for (const ViewUse* u : mine) {
      if (u->elemType != t.elemType)
        return u->view->emitOpError("views pointer argument '")
               << t.name << "' with element type " << u->elemType << ", but another view of it has "
               << t.elemType << "; a pointer argument has one element type";
      if (u->lo < 0)
        return u->view->emitOpError("reads before the start of pointer argument '")
               << t.name << "'";
      lo = std::min(lo, u->lo);
      hi = std::max(hi, u->hi);
      t.read |= u->read;
      t.written |= u->written;
    }
    t.funcArg = p;
    t.constLo = 0;
    t.constHi = hi;
    t.shape = shapeFromViews(mine, hi);
    // A view sized by a runtime argument: that dimension of the tensor is the argument
    // (the outermost one, or any one when the strides follow the sizes).
    for (const ViewUse* u : mine)
      for (const auto& [dim, fa] : u->runtimeSizes) {
        if ((dim != 0 && !u->stridesFollowSizes) || t.shape.size() != u->sizes.size())
          return u->view->emitOpError("sizes dimension ")
                 << dim << " of pointer argument '" << t.name
                 << "' by a runtime argument; only the outermost dimension of a row-major "
                    "tensor argument can be sized at launch, or any dimension when the "
                    "strides are those of the sizes (strides: [%n, 1] for sizes: [64, %n])";
        if (t.dynamicDims.count(dim) && t.dynamicDims[dim] != fa)
          return u->view->emitOpError("sizes pointer argument '")
                 << t.name << "' by two different runtime arguments";
        t.dynamicDims[dim] = fa;
      }
    out.pointerArg[p] = static_cast<int>(out.tensors.size());
    out.tensors.push_back(t);
  }

  // Constant addresses: one tensor per disjoint footprint of one element type.
  std::vector<const ViewUse*> constant;
  for (const auto& u : uses)
    if (u.pointer < 0) constant.push_back(&u);
  std::sort(constant.begin(), constant.end(),
            [](const ViewUse* a, const ViewUse* b) { return a->lo < b->lo; });
  std::vector<bool> done(constant.size(), false);
  for (size_t i = 0; i < constant.size(); ++i) {
    if (done[i]) continue;
    std::vector<const ViewUse*> group = {constant[i]};
    int64_t lo = constant[i]->lo, hi = constant[i]->hi;
    done[i] = true;
    for (bool grew = true; grew;) {
      grew = false;
      for (size_t j = 0; j < constant.size(); ++j) {
        if (done[j] || constant[j]->elemType != constant[i]->elemType ||
            constant[j]->space != constant[i]->space)
          continue;
        if (constant[j]->lo < hi && constant[j]->hi > lo) {
          group.push_back(constant[j]);
          lo = std::min(lo, constant[j]->lo);
          hi = std::max(hi, constant[j]->hi);
          done[j] = true;
          grew = true;
        }
      }
    }
    TensorArgument t;
    t.elemType = constant[i]->elemType;
    t.space = constant[i]->space;
    std::string ssa = "t" + std::to_string(lo);
    if (auto it = constantNames.find({constant[i]->space, constant[i]->lo});
        it != constantNames.end())
      ssa = it->second;
    else if (auto n = sourceNames.at(constant[i]->constLoc))
      ssa = *n;
    t.name = unique(argumentName(ssa));
    for (const ViewUse* u : group) {
      t.read |= u->read;
      t.written |= u->written;
    }
    t.constLo = lo;
    t.constHi = hi;
    // Rebase the views' footprints for the shape.
    std::vector<ViewUse> rebased;
    for (const ViewUse* u : group) {
      ViewUse r = *u;
      r.lo -= lo;
      r.hi -= lo;
      rebased.push_back(r);
    }
    std::vector<const ViewUse*> ptrs;
    for (const auto& r : rebased) ptrs.push_back(&r);
    t.shape = shapeFromViews(ptrs, hi - lo);
    out.tensors.push_back(t);
  }

  // Element types the device knows.
  for (auto& t : out.tensors) {
    Type e = t.elemType;
    if (e.isF16())
      t.dtype = DType::F16;
    else if (e.isBF16())
      t.dtype = DType::BF16;
    else if (e.isF32())
      t.dtype = DType::F32;
    else if (e.isInteger(32))
      t.dtype = DType::I32;
    else if (e.isInteger(64) && !t.written)
      // Index tensors as ktir-cpu's kernels declare them: the device has no i64, so they
      // are stored as i32 (the runtime narrows the host's i64 data and refuses a value
      // that does not fit, naming the tensor and the element); engines read i32 indices.
      t.dtype = DType::I32;
    else if (e.isInteger(64))
      return original.emitOpError("tensor argument '")
             << t.name << "' has element type " << e
             << " and is written: the device stores i64 tensors as i32, so it can only read "
                "them (as indices)";
    else
      return original.emitOpError("tensor argument '")
             << t.name << "' has element type " << e
             << ", which the device does not store (f16, bf16, f32, i32; i64 read-only)";
    if (!t.read && !t.written) t.read = true;
  }

  // Every other integer argument is a launch scalar (unless fixed with --const, in which
  // case it no longer has uses in the specialised functions).
  for (unsigned i = 0; i < original.getNumArguments(); ++i) {
    if (pointers.count(static_cast<int>(i))) continue;
    BlockArgument arg = original.getArgument(i);
    bool used = false;
    for (func::FuncOp f : tiles) used |= !f.getArgument(i).use_empty();
    if (!used) continue;
    auto runtime = dyn_cast<ktdp::RuntimeArgType>(arg.getType());
    bool integer =
        arg.getType().isIntOrIndex() || (runtime && runtime.getUnderlyingType().isIntOrIndex());
    Type t = arg.getType();
    bool real = t.isF16() || t.isBF16() || t.isF32();
    if (!integer && !real)
      return emitError(arg.getLoc()) << "argument " << i << " of type " << arg.getType()
                                     << " is not supported: pointer, integer and f16, bf16 or "
                                        "f32 arguments can be bound at launch";
    ScalarArgument s;
    s.name = unique(sanitizeName(sourceNames.at(arg.getLoc()).value_or("arg" + std::to_string(i))));
    s.funcArg = static_cast<int>(i);
    if (real) s.real = t.isF16() ? DType::F16 : t.isBF16() ? DType::BF16 : DType::F32;
    if (auto b = bounds.find(static_cast<int>(i)); b != bounds.end()) {
      // The program is planned for these values (loops over whole chunks, footprints sized
      // by the maximum); the runtime refuses any other.
      s.multipleOf = b->second.multipleOf;
      s.min = b->second.min;
      s.max = b->second.max;
    }
    out.scalarArg[static_cast<int>(i)] = s.name;
    out.scalars.push_back(s);
  }
  for (auto& t : out.tensors)
    for (const auto& [dim, fa] : t.dynamicDims) {
      auto it = out.scalarArg.find(fa);
      if (it == out.scalarArg.end())
        return original.emitOpError("internal error: runtime argument ")
               << fa << " sizes tensor '" << t.name << "' but is not a launch scalar";
      t.dimNames.resize(t.shape.size());
      t.dimNames[dim] = it->second;
    }
  return success();
}

} // namespace chipless::sched
