//===- LowerElementwise.cpp - elementwise ops and linalg.generic ----------===//
//
// Part of chipless. See Lowering.h. arith, math, linalg and spyreop elementwise ops, and
// the bodies of parallel linalg.generic ops, map to one SFU instruction kind each:
// constants fold at compile time, lane-uniform operands compute one stick, anything else
// runs over the SFU streams (Lowering::elementwise in LowerCompute.cpp).
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"
#include "ktir/Dialect/Spyreop/SpyreopOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>

using namespace mlir;

namespace chipless::sched {

namespace {

/// The SFU kind of a scalar or tensor elementwise op; "" if it is not one.
std::string sfuKind(Operation* op) {
  if (isa<arith::AddFOp, arith::AddIOp, linalg::AddOp>(op)) return "add";
  if (isa<arith::SubFOp, arith::SubIOp, linalg::SubOp>(op)) return "sub";
  if (isa<arith::MulFOp, arith::MulIOp, linalg::MulOp>(op)) return "mul";
  if (isa<arith::DivFOp, arith::DivSIOp, arith::DivUIOp, linalg::DivOp, spyreop::RealDivOp>(op))
    return "div";
  if (isa<arith::NegFOp, linalg::NegFOp>(op)) return "neg";
  if (isa<arith::MaximumFOp, arith::MaxNumFOp, arith::MaxSIOp, linalg::MaxOp>(op)) return "max";
  if (isa<arith::MinimumFOp, arith::MinNumFOp, arith::MinSIOp, linalg::MinOp>(op)) return "min";
  if (isa<math::ExpOp, linalg::ExpOp, spyreop::ExpOp>(op)) return "exp";
  if (isa<math::LogOp, linalg::LogOp>(op)) return "log";
  if (isa<math::SqrtOp, linalg::SqrtOp, spyreop::SqrtOp>(op)) return "sqrt";
  if (isa<math::RsqrtOp, linalg::RsqrtOp, spyreop::RsqrtOp>(op)) return "rsqrt";
  if (isa<math::TanhOp, linalg::TanhOp>(op)) return "tanh";
  if (isa<math::AbsFOp, linalg::AbsOp>(op)) return "abs";
  if (isa<linalg::ReciprocalOp, spyreop::ReciprocalOp>(op)) return "recip";
  if (isa<spyreop::SigmoidOp>(op)) return "sigmoid";
  if (isa<spyreop::SiluOp>(op)) return "silu";
  if (isa<spyreop::GeluOp>(op)) return "gelu";
  if (isa<math::FmaOp>(op)) return "fma";
  if (isa<arith::SelectOp, linalg::SelectOp>(op)) return "select";
  if (isa<linalg::CopyOp>(op)) return "mov";
  if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
    switch (cmp.getPredicate()) {
    case arith::CmpIPredicate::eq:
      return "eq";
    case arith::CmpIPredicate::ne:
      return "ne";
    case arith::CmpIPredicate::slt:
      return "lt";
    case arith::CmpIPredicate::sle:
      return "le";
    case arith::CmpIPredicate::sgt:
      return "gt";
    case arith::CmpIPredicate::sge:
      return "ge";
    case arith::CmpIPredicate::ult:
      return "ult";
    case arith::CmpIPredicate::ule:
      return "ule";
    case arith::CmpIPredicate::ugt:
      return "ugt";
    case arith::CmpIPredicate::uge:
      return "uge";
    }
  }
  if (auto cmp = dyn_cast<arith::CmpFOp>(op)) {
    switch (cmp.getPredicate()) {
    case arith::CmpFPredicate::OEQ:
    case arith::CmpFPredicate::UEQ:
      return "eq";
    case arith::CmpFPredicate::ONE:
    case arith::CmpFPredicate::UNE:
      return "ne";
    case arith::CmpFPredicate::OLT:
    case arith::CmpFPredicate::ULT:
      return "lt";
    case arith::CmpFPredicate::OLE:
    case arith::CmpFPredicate::ULE:
      return "le";
    case arith::CmpFPredicate::OGT:
    case arith::CmpFPredicate::UGT:
      return "gt";
    case arith::CmpFPredicate::OGE:
    case arith::CmpFPredicate::UGE:
      return "ge";
    default:
      return "";
    }
  }
  return "";
}

/// The value of `kind` on constants.
std::optional<double> fold(const std::string& kind, ArrayRef<double> x) {
  auto a = x.size() > 0 ? x[0] : 0, b = x.size() > 1 ? x[1] : 0, c = x.size() > 2 ? x[2] : 0;
  if (kind == "add") return a + b;
  if (kind == "sub") return a - b;
  if (kind == "mul") return a * b;
  if (kind == "div") return a / b;
  if (kind == "neg") return -a;
  if (kind == "max") return std::max(a, b);
  if (kind == "min") return std::min(a, b);
  if (kind == "exp") return std::exp(a);
  if (kind == "log") return std::log(a);
  if (kind == "sqrt") return std::sqrt(a);
  if (kind == "rsqrt") return 1 / std::sqrt(a);
  if (kind == "tanh") return std::tanh(a);
  if (kind == "abs") return std::fabs(a);
  if (kind == "recip") return 1 / a;
  if (kind == "sigmoid") return 1 / (1 + std::exp(-a));
  if (kind == "silu") return a / (1 + std::exp(-a));
  if (kind == "fma") return a * b + c;
  if (kind == "select") return a != 0 ? b : c;
  if (kind == "mov") return a;
  if (kind == "eq") return a == b;
  if (kind == "ne") return a != b;
  if (kind == "lt") return a < b;
  if (kind == "le") return a <= b;
  if (kind == "gt") return a > b;
  if (kind == "ge") return a >= b;
  // Unsigned comparisons of i32 lanes: the bit patterns as unsigned numbers.
  auto u = [](double v) {
    return static_cast<uint32_t>(static_cast<int64_t>(std::fmod(v, 4294967296.0)));
  };
  if (kind == "ult") return u(a) < u(b);
  if (kind == "ule") return u(a) <= u(b);
  if (kind == "ugt") return u(a) > u(b);
  if (kind == "uge") return u(a) >= u(b);
  return std::nullopt;
}

/// The signed comparison an unsigned one becomes once both operands are biased by
/// INT_MIN (a <u b exactly when a + INT_MIN <s b + INT_MIN, in wrapping i32); "" for
/// other kinds.
std::string signedOfUnsigned(const std::string& kind) {
  if (kind == "ult") return "lt";
  if (kind == "ule") return "le";
  if (kind == "ugt") return "gt";
  if (kind == "uge") return "ge";
  return "";
}

} // namespace

/// What the lanes past each row's last element of `out` hold after `kind` computed it
/// from `operands`, when every operand's padding is known: constants, and dense rows of
/// the same layout with a known padding (the SFU computes whole sticks, padding included).
static std::optional<double> padOf(const Lowering& l, const std::string& kind,
                                   const std::vector<TVal>& operands, const TVal& out) {
  if (out.kind != TVal::Kind::Buffer || out.sparse || out.shape.empty() ||
      out.shape.back() % l.lanes(out.elem) == 0)
    return std::nullopt;
  std::vector<double> pads;
  for (const TVal& t : operands) {
    if (t.kind == TVal::Kind::Uniform && t.scalar.isConst) {
      pads.push_back(t.scalar.value);
      continue;
    }
    if (t.kind != TVal::Kind::Buffer || t.sparse || !t.pad || t.shape.empty() ||
        t.shape.back() != out.shape.back() || t.strides.empty() ||
        t.strides.back() != l.esize(t.elem))
      return std::nullopt;
    pads.push_back(*t.pad);
  }
  return fold(kind, pads);
}

/// One elementwise computation on values (not necessarily SSA values of the kernel).
static FailureOr<TVal> computeElementwise(Lowering& l, Operation* op, std::string kind,
                                          std::vector<TVal> operands, Type resultElem,
                                          ArrayRef<int64_t> shape, const TVal* dest,
                                          const std::function<TVal()>& freshBuffer) {
  // 1 / x and 0 - x.
  if (kind == "div" && operands[0].kind == TVal::Kind::Uniform && operands[0].scalar.isConst &&
      operands[0].scalar.value == 1.0) {
    kind = "recip";
    operands.erase(operands.begin());
  }
  bool allUniform =
      llvm::all_of(operands, [](const TVal& t) { return t.kind == TVal::Kind::Uniform; });
  bool allConst =
      allUniform && llvm::all_of(operands, [](const TVal& t) { return t.scalar.isConst; });
  Type elem = resultElem.isInteger(1) ? operands.front().elem : resultElem;
  if (allConst) {
    std::vector<double> x;
    for (const TVal& t : operands) x.push_back(t.scalar.value);
    auto v = fold(kind, x);
    if (!v) return op->emitOpError("cannot be folded"), failure();
    if (elem.isInteger(32)) { // as the SFU's i32 lanes compute: division truncates, all wraps
      if (kind == "div") v = x[1] == 0 ? -1.0 : std::trunc(x[0] / x[1]);
      // Modulo 2^32 first (exact in double), so that the conversion stays defined.
      v = static_cast<double>(static_cast<int32_t>(
          static_cast<uint32_t>(static_cast<int64_t>(std::fmod(*v, 4294967296.0)))));
    }
    TVal u;
    u.kind = TVal::Kind::Uniform;
    u.shape.assign(shape.begin(), shape.end());
    u.elem = elem;
    u.scalar.value = *v;
    return u;
  }
  for (TVal& t : operands) t.shape.assign(shape.begin(), shape.end());
  if (std::string s = signedOfUnsigned(kind); !s.empty()) {
    // The SFU compares i32 lanes signed: bias both operands by INT_MIN first.
    TVal bias;
    bias.kind = TVal::Kind::Uniform;
    bias.shape.assign(shape.begin(), shape.end());
    bias.elem = operands.front().elem;
    bias.scalar.value = static_cast<double>(std::numeric_limits<int32_t>::min());
    for (TVal& t : operands) {
      auto biased =
          computeElementwise(l, op, "add", {t, bias}, bias.elem, shape, nullptr, freshBuffer);
      if (failed(biased)) return failure();
      t = *biased;
    }
    return computeElementwise(l, op, s, std::move(operands), resultElem, shape, dest, freshBuffer);
  }
  if (allUniform) {
    // Every lane of every element is the same: compute one stick.
    TVal one = l.newSparse({}, elem, op->getName().getStringRef().str());
    std::vector<TVal> ops;
    for (TVal t : operands) {
      t.shape.clear();
      ops.push_back(t);
    }
    if (failed(l.elementwise(kind, ops, one, op->getLoc(), op->getName().getStringRef().str())))
      return failure();
    return uniformInStick(shape, elem, one.buffer);
  }
  TVal out = dest ? *dest : freshBuffer();
  if (failed(l.elementwise(kind, operands, out, op->getLoc(), op->getName().getStringRef().str())))
    return failure();
  out.pad = padOf(l, kind, operands, out);
  return out;
}

/// spyreop intrinsics and integer remainders the SFU runs as several instructions.
static bool isComposite(Operation* op) {
  return isa<spyreop::SoftplusOp, spyreop::LayerNormScaleOp, arith::RemSIOp, arith::RemUIOp>(op);
}

/// A composite intrinsic on `in` (its operands, shaped): intermediates in buffers from
/// `scratch`, the last instruction into `dest` (or a buffer from `freshBuffer`).
///   softplus {beta, threshold}: y = beta x > threshold ? x : log(1 + exp(beta x)) / beta
///   layernormscale(m, m2):      y = rsqrt(m2 - m m)
///   remsi, remui(a, b):         y = a - (a / b) b
static FailureOr<TVal> computeComposite(Lowering& l, Operation* op, const std::vector<TVal>& in,
                                        Type elem, ArrayRef<int64_t> shape, const TVal* dest,
                                        const std::function<TVal()>& scratch,
                                        const std::function<TVal()>& freshBuffer) {
  auto constant = [&](double v) {
    TVal u;
    u.kind = TVal::Kind::Uniform;
    u.shape.assign(shape.begin(), shape.end());
    u.elem = elem;
    u.scalar.value = v;
    return u;
  };
  auto step = [&](const char* kind, std::vector<TVal> operands) {
    return computeElementwise(l, op, kind, std::move(operands), elem, shape, nullptr, scratch);
  };
  auto last = [&](const char* kind, std::vector<TVal> operands) {
    return computeElementwise(l, op, kind, std::move(operands), elem, shape, dest, freshBuffer);
  };
  if (isa<arith::RemSIOp, arith::RemUIOp>(op)) {
    // a - (a / b) b, the division truncating as remsi's sign rule wants.
    auto q = step("div", {in[0], in[1]});
    if (failed(q)) return failure();
    auto p = step("mul", {*q, in[1]});
    if (failed(p)) return failure();
    return last("sub", {in[0], *p});
  }
  if (auto softplus = dyn_cast<spyreop::SoftplusOp>(op)) {
    const double beta = softplus.getBeta().convertToDouble();
    const double threshold = softplus.getThreshold().convertToDouble();
    if (beta == 0) return op->emitOpError("has beta = 0"), failure();
    const TVal& x = in[0];
    auto bx = step("mul", {x, constant(beta)});
    if (failed(bx)) return failure();
    auto e = step("exp", {*bx});
    if (failed(e)) return failure();
    auto e1 = step("add", {*e, constant(1.0)});
    if (failed(e1)) return failure();
    auto lg = step("log", {*e1});
    if (failed(lg)) return failure();
    auto soft = step("mul", {*lg, constant(1.0 / beta)});
    if (failed(soft)) return failure();
    auto linear = step("gt", {*bx, constant(threshold)});
    if (failed(linear)) return failure();
    return last("select", {*linear, x, *soft});
  }
  // layernormscale
  auto squared = step("mul", {in[0], in[0]});
  if (failed(squared)) return failure();
  auto variance = step("sub", {in[1], *squared});
  if (failed(variance)) return failure();
  return last("rsqrt", {*variance});
}

LogicalResult Lowering::lowerElementwise(Operation* op) {
  std::string kind = sfuKind(op);
  if (isa<arith::SIToFPOp, arith::UIToFPOp>(op) && op->getResult(0).getType().isIntOrFloat()) {
    // An integer known when compiling, or a launch scalar, as a float in every lane.
    auto e = index(op->getOperand(0));
    if (failed(e)) return failure();
    Type real = op->getResult(0).getType();
    TVal u;
    u.kind = TVal::Kind::Uniform;
    u.elem = real;
    if (e->isConst()) {
      APFloat f(static_cast<double>(e->constant()));
      bool lost = false;
      f.convert(cast<FloatType>(real).getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
      u.scalar.value = f.convertToDouble();
    } else if (e->constant() == 0 && e->terms().size() == 1 && e->terms()[0].second == 1 &&
               e->terms()[0].first->kind == Atom::Kind::Sym && !real.isF64() &&
               llvm::any_of(args().scalars, [&](const ScalarArgument& a) {
                 return !a.real && a.name == e->terms()[0].first->sym;
               })) {
      // "N.f16": the runtime passes the scalar's value rounded to the type.
      u.scalar.isConst = false;
      std::string type = real.isF16() ? "f16" : real.isBF16() ? "bf16" : "f32";
      u.scalar.symbol = e->terms()[0].first->sym + "." + type;
    } else {
      // An expression of launch scalars and loop variables (`2 * %n`, `%n - %j`): the
      // compute unit converts its value where it is needed.
      auto stick = indexInStick(op->getLoc(), *e, {}, real);
      if (failed(stick)) return failure();
      u = *stick;
    }
    bind(op->getResult(0), u);
    return success();
  }
  if (isConversion(op)) {
    auto t = value(op->getOperand(0));
    if (failed(t)) return failure();
    Type to = op->getResult(0).getType();
    std::vector<int64_t> shape;
    if (auto type = dyn_cast<RankedTensorType>(to)) {
      shape.assign(type.getShape().begin(), type.getShape().end());
      to = type.getElementType();
    }
    auto r = convert(op, *t, to, shape);
    if (failed(r)) return failure();
    bind(op->getResult(0), *r);
    return success();
  }
  if (kind.empty() && !isComposite(op))
    return op->emitOpError("is not an elementwise op the SFU runs");
  if (isa<arith::DivUIOp, arith::RemUIOp>(op))
    return op->emitOpError("divides tensors as unsigned numbers; the SFU divides i32 lanes "
                           "signed: use divsi/remsi, or divide positions in a linalg.generic");
  SmallVector<Value> inputs;
  if (auto dps = dyn_cast<DestinationStyleOpInterface>(op))
    for (OpOperand* o : dps.getDpsInputOperands()) inputs.push_back(o->get());
  else
    inputs.assign(op->getOperands().begin(), op->getOperands().end());
  std::vector<TVal> operands;
  for (Value v : inputs) {
    auto t = value(v);
    if (failed(t)) return failure();
    operands.push_back(*t);
  }
  Value result = op->getResult(0);
  std::vector<int64_t> shape;
  Type elem = result.getType();
  if (auto type = dyn_cast<RankedTensorType>(result.getType())) {
    shape.assign(type.getShape().begin(), type.getShape().end());
    elem = type.getElementType();
  }
  auto dest = destinations_.find(result);
  TVal destVal;
  const TVal* destPtr = nullptr;
  if (dest != destinations_.end()) {
    destVal = dest->second;
    destPtr = &destVal;
  }
  auto fresh = [&] {
    if (!isa<RankedTensorType>(result.getType())) return newSparse({}, elem, "scalar");
    return resultBuffer(op, result, operands, op->getName().getStringRef().str());
  };
  auto scratch = [&] {
    const bool sparse = !shape.empty() && llvm::all_of(operands, [&](const TVal& t) {
      return t.kind == TVal::Kind::Uniform || (t.sparse && t.strides == sparseStrides(shape));
    });
    if (!isa<RankedTensorType>(result.getType())) return newSparse({}, elem, "scalar");
    return sparse ? newSparse(shape, elem, "intrinsic step")
                  : newDense(shape, elem, "intrinsic step");
  };
  auto r = kind.empty()
               ? computeComposite(*this, op, operands, elem, shape, destPtr, scratch, fresh)
               : computeElementwise(*this, op, kind, operands, elem, shape, destPtr, fresh);
  if (failed(r)) return failure();
  bind(result, *r);
  return success();
}

/// Index arithmetic that IndexEval folds into an expression (no comparisons or selects:
/// those of values unknown when compiling run on the SFU).
static bool isIndexArithmetic(Operation* op) {
  return isa<arith::AddIOp, arith::SubIOp, arith::MulIOp, arith::DivSIOp, arith::DivUIOp,
             arith::FloorDivSIOp, arith::CeilDivSIOp, arith::CeilDivUIOp, arith::RemSIOp,
             arith::RemUIOp, arith::MinSIOp, arith::MinUIOp, arith::MaxSIOp, arith::MaxUIOp,
             arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp, arith::ExtUIOp,
             arith::TruncIOp>(op) &&
         llvm::all_of(op->getOperandTypes(), [](Type t) { return t.isIntOrIndex(); }) &&
         llvm::all_of(op->getResultTypes(), [](Type t) { return t.isIntOrIndex(); });
}

LogicalResult Lowering::lowerGeneric(Operation* o) {
  auto op = cast<linalg::GenericOp>(o);
  for (utils::IteratorType it : op.getIteratorTypesArray())
    if (it != utils::IteratorType::parallel)
      return op.emitOpError("has reduction iterators; express reductions with linalg.reduce");
  if (op.getNumDpsInits() != 1 || op.getNumResults() != 1)
    return op.emitOpError("has more than one output; not supported");
  auto outType = cast<RankedTensorType>(op.getResult(0).getType());
  std::vector<int64_t> shape(outType.getShape().begin(), outType.getShape().end());
  auto maps = op.getIndexingMapsArray();
  if (!maps.back().isIdentity())
    return op.emitOpError("writes its output through a non-identity indexing map");
  Block& body = op.getRegion().front();
  llvm::DenseMap<Value, TVal> local;
  // Inputs: identity maps, or projections that broadcast (stride 0 on missing dims).
  for (auto [i, operand] : llvm::enumerate(op->getOperands())) {
    auto t = value(operand);
    if (failed(t)) return failure();
    AffineMap m = maps[i];
    TVal v = *t;
    if (v.kind == TVal::Kind::Buffer && !m.isIdentity()) {
      if (!m.isProjectedPermutation())
        return op.emitOpError("reads an operand through an indexing map that is neither the "
                              "identity nor a broadcast");
      std::vector<int64_t> strides(shape.size(), 0);
      for (unsigned r = 0; r < m.getNumResults(); ++r) strides[m.getDimPosition(r)] = t->strides[r];
      v.strides = strides;
    }
    v.shape = shape;
    local[body.getArgument(static_cast<unsigned>(i))] = v;
  }
  // Index values that do not depend on the element: defined outside the body (loop
  // variables, the tile's position, launch values), or in it from such values only. They
  // fold into one expression, made a lane-uniform stick when an SFU op reads it.
  llvm::DenseSet<Value> outerIndex;
  auto isOuter = [&](Value v) {
    if (outerIndex.contains(v)) return true;
    if (!v.getType().isIntOrIndex()) return false;
    if (auto arg = dyn_cast<BlockArgument>(v)) return arg.getOwner() != &body;
    if (v.getDefiningOp<arith::ConstantOp>()) return true;
    return !op->isAncestor(v.getDefiningOp());
  };
  Type i32 = IntegerType::get(op.getContext(), 32);
  auto lookup = [&](Value v) -> FailureOr<TVal> {
    auto it = local.find(v);
    if (it != local.end()) return it->second;
    if (isOuter(v) && !v.getDefiningOp<arith::ConstantOp>() && !values_.count(v)) {
      auto e = index(v);
      if (failed(e)) return failure();
      TVal u;
      if (e->isConst()) {
        u.kind = TVal::Kind::Uniform;
        u.shape = shape;
        u.elem = i32;
        u.scalar.value = static_cast<double>(e->constant());
      } else {
        auto stick = indexInStick(v.getLoc(), *e, shape);
        if (failed(stick)) return failure();
        u = *stick;
      }
      local[v] = u;
      return u;
    }
    return value(v); // defined outside the body
  };
  // Whether an element-dependent index of the body is known to be at least 0: positions,
  // constants, and sums, products, quotients and remainders of such (how divui and remui,
  // which the SFU computes as signed i32, are known to be exact).
  std::function<bool(Value)> nonNegative = [&](Value v) -> bool {
    if (isOuter(v)) {
      auto e = index(v);
      if (failed(e)) return false;
      auto r = rangeOf(*e, out_.loopRanges);
      return r && r->lo >= 0;
    }
    Operation* def = v.getDefiningOp();
    if (!def) return false;
    if (isa<linalg::IndexOp>(def)) return true;
    if (isa<arith::AddIOp, arith::MulIOp, arith::DivSIOp, arith::DivUIOp, arith::RemSIOp,
            arith::RemUIOp, arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
            arith::ExtUIOp, arith::MaxSIOp, arith::MinSIOp>(def))
      return llvm::all_of(def->getOperands(), nonNegative);
    return false;
  };
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  Value yielded = yield.getOperand(0);
  for (Operation& inner : body.without_terminator()) {
    if (auto c = dyn_cast<arith::ConstantOp>(&inner)) {
      auto t = value(c.getResult());
      if (failed(t)) return failure();
      TVal u = *t;
      u.shape = shape;
      local[c.getResult()] = u;
      continue;
    }
    if (auto index = dyn_cast<linalg::IndexOp>(&inner)) {
      auto r = loopIndex(&inner, static_cast<unsigned>(index.getDim()), shape);
      if (failed(r)) return failure();
      local[index.getResult()] = *r;
      continue;
    }
    if (isIndexArithmetic(&inner) && llvm::all_of(inner.getOperands(), isOuter)) {
      for (Value r : inner.getResults()) outerIndex.insert(r);
      continue;
    }
    if (isa<arith::ExtUIOp, arith::ExtSIOp>(&inner) && inner.getOperand(0).getType().isInteger(1)) {
      // A condition as an integer (canonicalisation's form of select(c, 1, 0)): the
      // comparison's 0 or 1 (-1 for extsi), as i32.
      auto t = lookup(inner.getOperand(0));
      if (failed(t)) return failure();
      TVal x = *t;
      if (x.kind == TVal::Kind::Uniform) x.shape = shape;
      if (!x.elem.isInteger(32)) {
        auto r = convert(&inner, x, i32, shape);
        if (failed(r)) return failure();
        x = *r;
      }
      if (isa<arith::ExtSIOp>(&inner)) {
        auto r = computeElementwise(*this, &inner, "neg", {x}, i32, shape, nullptr,
                                    [&] { return newDense(shape, i32, "linalg.generic"); });
        if (failed(r)) return failure();
        x = *r;
      }
      local[inner.getResult(0)] = x;
      continue;
    }
    if (isa<arith::IndexCastOp, arith::IndexCastUIOp>(&inner)) {
      // An index is an i32 on the SFU: the same value.
      auto t = lookup(inner.getOperand(0));
      if (failed(t)) return failure();
      TVal x = *t;
      x.elem = IntegerType::get(inner.getContext(), 32);
      if (x.kind == TVal::Kind::Uniform) x.shape = shape;
      local[inner.getResult(0)] = x;
      continue;
    }
    if (isa<arith::DivUIOp, arith::RemUIOp>(&inner) &&
        !llvm::all_of(inner.getOperands(), nonNegative))
      return inner.emitOpError("divides values that may be negative as unsigned numbers; the "
                               "SFU divides i32 lanes signed, which is exact for values known "
                               "to be at least 0 (positions, constants, and sums, products and "
                               "quotients of them): use divsi/remsi, or such values"),
             failure();
    if (isConversion(&inner)) {
      auto t = lookup(inner.getOperand(0));
      if (failed(t)) return failure();
      TVal x = *t;
      if (x.kind == TVal::Kind::Uniform) x.shape = shape;
      auto r = convert(&inner, x, inner.getResult(0).getType(), shape);
      if (failed(r)) return failure();
      local[inner.getResult(0)] = *r;
      continue;
    }
    std::string kind = sfuKind(&inner);
    if (kind.empty() && !isComposite(&inner))
      return inner.emitOpError("in a linalg.generic body is not an elementwise op the SFU runs");
    std::vector<TVal> operands;
    for (Value v : inner.getOperands()) {
      auto t = lookup(v);
      if (failed(t)) return failure();
      TVal x = *t;
      if (x.kind == TVal::Kind::Uniform) x.shape = shape;
      operands.push_back(x);
    }
    Value res = inner.getResult(0);
    // An index is an i32 on the SFU.
    Type resType = res.getType().isIndex() ? i32 : res.getType();
    bool last = res == yielded;
    TVal destVal;
    const TVal* destPtr = nullptr;
    if (last) {
      auto dest = destinations_.find(op.getResult(0));
      if (dest != destinations_.end()) {
        destVal = dest->second;
        destPtr = &destVal;
      }
    }
    auto fresh = [&] {
      Type e = resType.isInteger(1) ? operands.front().elem : resType;
      bool sparse = !shape.empty() && llvm::all_of(operands, [&](const TVal& t) {
        return t.kind == TVal::Kind::Uniform || (t.sparse && t.strides == sparseStrides(shape));
      });
      return sparse ? newSparse(shape, e, "linalg.generic") : newDense(shape, e, "linalg.generic");
    };
    auto r =
        kind.empty()
            ? computeComposite(*this, &inner, operands, resType, shape, destPtr, fresh, fresh)
            : computeElementwise(*this, &inner, kind, operands, resType, shape, destPtr, fresh);
    if (failed(r)) return failure();
    local[res] = *r;
  }
  auto r = lookup(yielded);
  if (failed(r)) return failure();
  bind(op.getResult(0), *r);
  return success();
}

} // namespace chipless::sched
