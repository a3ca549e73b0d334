//===- ModelBody.cpp - the vector program of a tpu.kernel's linalg bodies -===//
//
// Part of chipless. See ModelBuilder.h: each linalg.generic's operands, body ops (arith and
// math ops to VPU operations; math.erf as a polynomial) and results as vector values; the
// combining op of a reduction over N becomes a Reduce value.
//
//===----------------------------------------------------------------------===//

#include "ModelBuilder.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include "llvm/ADT/SmallPtrSet.h"

#include <cmath>

using namespace mlir;

namespace chipless::tpuc {

using tpuprog::Opcode;

LogicalResult ModelBuilder::generic(linalg::GenericOp g) {
  const unsigned rank = g.getNumLoops();
  auto iters = g.getIteratorTypesArray();
  const bool reduction = iters.back() == utils::IteratorType::reduction;
  columnPlace_ = !reduction && rank + 1 == space_.size();
  llvm::DenseMap<Value, int> scalar;
  for (OpOperand& operand : g->getOpOperands()) {
    BlockArgument arg = g.getMatchingBlockArgument(&operand);
    if (arg.use_empty()) continue;
    const bool isInit = g.isDpsInit(&operand);
    if (isInit && reduction) continue; // the accumulator
    Value x = operand.get();
    const bool isInt = !isa<FloatType>(arg.getType());
    if (std::optional<double> c = constantValue(x)) {
      scalar[arg] = constant(*c, isInt);
    } else if (auto it = tensor_.find(x); it != tensor_.end()) {
      scalar[arg] = it->second;
    } else {
      const std::string what = "operand " + std::to_string(operand.getOperandNumber());
      FailureOr<View> v = view(x, g, what);
      if (failed(v)) return failure();
      AffineMap map = g.getMatchingIndexingMap(&operand);
      SmallVector<int64_t> dims(space_.size(), 0);
      for (unsigned j = 0; j < map.getNumResults(); ++j)
        dims[map.getDimPosition(j)] += v->strides[j];
      const size_t r = dims.size();
      const bool column = !columnPlace_ && r >= 2 && dims[r - 1] == 0 && dims[r - 2] != 0;
      FailureOr<int> ld = column ? loadColumn(*v, dims, g, what) : load(x, *v, dims, g, what);
      if (failed(ld)) return failure();
      scalar[arg] = *ld;
    }
  }
  Block& body = g.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  // A reduction's combining ops become the Reduce values, not element-wise ops.
  llvm::SmallPtrSet<Operation*, 4> combiners;
  if (reduction)
    for (unsigned i = 0; i < g.getNumResults(); ++i) {
      std::string why;
      if (std::optional<Combiner> c = reductionCombiner(
              yield.getOperand(i), g.getMatchingBlockArgument(g.getDpsInitOperand(i)), why))
        combiners.insert(c->combineOp);
    }
  for (Operation& op : body.without_terminator())
    if (!combiners.contains(&op) && failed(bodyOp(op, scalar))) return failure();
  for (unsigned i = 0; i < g.getNumResults(); ++i) {
    Value yielded = yield.getOperand(i);
    int id;
    if (reduction) {
      BlockArgument acc = g.getMatchingBlockArgument(g.getDpsInitOperand(i));
      std::string why;
      std::optional<Combiner> c = reductionCombiner(yielded, acc, why);
      if (!c) return g.emitError(why), failure();
      int x;
      if (failed(operandOf(c->operand, scalar, x, c->combineOp))) return failure();
      if (isColumn(x)) return g.emitError("a reduction over N of a per-row value"), failure();
      VOp o;
      o.kind = VKind::Reduce;
      o.op = c->op;
      o.a = x;
      o.column = true;
      o.isInt = spec_.ops[static_cast<size_t>(x)].isInt;
      o.where = where(g);
      const double init = *constantValue(g.getDpsInits()[i]);
      const double identity = c->op == Opcode::VAdd   ? 0.0
                              : c->op == Opcode::VMax ? -INFINITY
                                                      : INFINITY;
      o.value = init;
      o.hasInit = init != identity;
      id = add(o);
    } else {
      if (failed(operandOf(yielded, scalar, id, g))) return failure();
      // A full result must be a full value for the tile loop (broadcast a column or constant).
      if (!columnPlace_ && (isColumn(id) || isConst(id))) {
        id = node(VKind::Unary, Opcode::VMov, id, -1, -1, spec_.ops[static_cast<size_t>(id)].isInt,
                  g);
        spec_.ops[static_cast<size_t>(id)].column = false;
      } else if (columnPlace_ && isConst(id)) {
        id = node(VKind::Unary, Opcode::VMov, id, -1, -1, spec_.ops[static_cast<size_t>(id)].isInt,
                  g);
      }
    }
    tensor_[g.getResult(i)] = id;
  }
  columnPlace_ = false;
  return success();
}

LogicalResult ModelBuilder::operandOf(Value v, llvm::DenseMap<Value, int>& scalar, int& id,
                                      Operation* at) {
  if (auto it = scalar.find(v); it != scalar.end()) {
    id = it->second;
    return success();
  }
  if (std::optional<double> c = constantValue(v)) {
    id = constant(*c, !isa<FloatType>(v.getType()));
    scalar[v] = id;
    return success();
  }
  return at->emitError("uses a value defined outside its body that is not a constant"), failure();
}

int ModelBuilder::erf(int x, Operation* at) {
  auto c = [&](double v) { return constant(v, false); };
  auto bin = [&](Opcode o, int a, int b) { return node(VKind::Binary, o, a, b, -1, false, at); };
  int ax = node(VKind::Unary, Opcode::VAbs, x, -1, -1, false, at);
  int t = node(VKind::Unary, Opcode::VRcp,
               bin(Opcode::VAdd, c(1.0), bin(Opcode::VMul, c(0.3275911), ax)), -1, -1, false, at);
  const double a[5] = {0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429};
  int poly = c(a[4]);
  for (int i = 3; i >= 0; --i) poly = bin(Opcode::VAdd, bin(Opcode::VMul, poly, t), c(a[i]));
  poly = bin(Opcode::VMul, poly, t);
  int e = node(VKind::Unary, Opcode::VExp,
               node(VKind::Unary, Opcode::VNeg, bin(Opcode::VMul, ax, ax), -1, -1, false, at), -1,
               -1, false, at);
  int y = bin(Opcode::VSub, c(1.0), bin(Opcode::VMul, poly, e));
  int neg = bin(Opcode::VCmpLt, x, c(0.0));
  return node(VKind::Select, Opcode::VSel, node(VKind::Unary, Opcode::VNeg, y, -1, -1, false, at),
              y, neg, false, at);
}

LogicalResult ModelBuilder::bodyOp(Operation& op, llvm::DenseMap<Value, int>& scalar) {
  if (auto c = dyn_cast<arith::ConstantOp>(op)) {
    std::optional<double> v = constantValue(c.getResult());
    if (!v) return op.emitError("unsupported constant"), failure();
    scalar[c.getResult()] = constant(*v, !isa<FloatType>(c.getType()));
    return success();
  }
  SmallVector<int> in;
  for (Value v : op.getOperands()) {
    int id;
    if (failed(operandOf(v, scalar, id, &op))) return failure();
    in.push_back(id);
  }
  const Type rt = op.getNumResults() ? op.getResult(0).getType() : Type();
  const bool isInt = rt && !isa<FloatType>(rt);
  auto un = [&](Opcode o) { return node(VKind::Unary, o, in[0], -1, -1, isInt, &op); };
  auto bin = [&](Opcode o) { return node(VKind::Binary, o, in[0], in[1], -1, isInt, &op); };
  int r = -1;
  if (isa<arith::ExtFOp, arith::TruncFOp, arith::ExtSIOp>(op)) {
    r = in[0]; // values are f32 (i32) in registers; rounding happens when stored
  } else if (isa<arith::AddFOp, arith::AddIOp>(op)) {
    r = bin(Opcode::VAdd);
  } else if (auto ix = dyn_cast<linalg::IndexOp>(op)) {
    // Internal only (identity matrices of materialised transposes): the row or column index.
    const auto loops = static_cast<int64_t>(space_.size());
    const int64_t d = static_cast<int64_t>(ix.getDim());
    if (op.getParentOfType<linalg::GenericOp>().getNumLoops() != space_.size() || d < loops - 2)
      return op.emitError("linalg.index is supported along the last two loops only"), failure();
    r = node(VKind::Index, Opcode::Nop, -1, -1, -1, true, &op);
    spec_.ops[static_cast<size_t>(r)].value = d == loops - 1 ? 0 : 1;
    spec_.ops[static_cast<size_t>(r)].column = false;
  } else if (isa<arith::SubFOp, arith::SubIOp>(op)) {
    r = bin(Opcode::VSub);
  } else if (isa<arith::MulFOp, arith::MulIOp>(op)) {
    r = bin(Opcode::VMul);
  } else if (isa<arith::DivFOp>(op)) {
    r = bin(Opcode::VDiv);
  } else if (isa<arith::MaximumFOp, arith::MaxNumFOp, arith::MaxSIOp>(op)) {
    r = bin(Opcode::VMax);
  } else if (isa<arith::MinimumFOp, arith::MinNumFOp, arith::MinSIOp>(op)) {
    r = bin(Opcode::VMin);
  } else if (isa<arith::NegFOp>(op)) {
    r = un(Opcode::VNeg);
  } else if (isa<math::AbsFOp, math::AbsIOp>(op)) {
    r = un(Opcode::VAbs);
  } else if (isa<math::ExpOp>(op)) {
    r = un(Opcode::VExp);
  } else if (isa<math::LogOp>(op)) {
    r = un(Opcode::VLog);
  } else if (isa<math::SqrtOp>(op)) {
    r = un(Opcode::VSqrt);
  } else if (isa<math::RsqrtOp>(op)) {
    r = un(Opcode::VRsqrt);
  } else if (isa<math::TanhOp>(op)) {
    r = un(Opcode::VTanh);
  } else if (isa<math::ErfOp>(op)) {
    r = erf(in[0], &op);
  } else if (isa<arith::SIToFPOp>(op)) {
    r = node(VKind::Unary, Opcode::VCvt, in[0], -1, -1, false, &op);
  } else if (isa<arith::FPToSIOp>(op)) {
    r = node(VKind::Unary, Opcode::VCvt, in[0], -1, -1, true, &op);
  } else if (isa<math::PowFOp, math::FPowIOp>(op)) {
    const double e = *constantValue(op.getOperand(1));
    const int x = in[0];
    auto mul = [&](int a, int b) {
      return node(VKind::Binary, Opcode::VMul, a, b, -1, false, &op);
    };
    if (e == 1)
      r = x;
    else if (e == 2)
      r = mul(x, x);
    else if (e == 3)
      r = mul(mul(x, x), x);
    else if (e == 4)
      r = mul(mul(x, x), mul(x, x));
    else if (e == 0.5)
      r = node(VKind::Unary, Opcode::VSqrt, x, -1, -1, false, &op);
    else if (e == -0.5)
      r = node(VKind::Unary, Opcode::VRsqrt, x, -1, -1, false, &op);
    else
      r = node(VKind::Unary, Opcode::VRcp, x, -1, -1, false, &op);
  } else if (auto c = dyn_cast<arith::CmpFOp>(op)) {
    using P = arith::CmpFPredicate;
    auto cmp = [&](Opcode o, int a, int b) { return node(VKind::Binary, o, a, b, -1, false, &op); };
    switch (c.getPredicate()) {
    case P::OLT:
      r = cmp(Opcode::VCmpLt, in[0], in[1]);
      break;
    case P::OLE:
      r = cmp(Opcode::VCmpLe, in[0], in[1]);
      break;
    case P::OGT:
      r = cmp(Opcode::VCmpLt, in[1], in[0]);
      break;
    case P::OGE:
      r = cmp(Opcode::VCmpLe, in[1], in[0]);
      break;
    case P::OEQ:
      r = cmp(Opcode::VCmpEq, in[0], in[1]);
      break;
    case P::UNE:
      r = cmp(Opcode::VSub, constant(1.0, false), cmp(Opcode::VCmpEq, in[0], in[1]));
      break;
    default:
      return op.emitError("unsupported arith.cmpf predicate"), failure();
    }
  } else if (auto c = dyn_cast<arith::CmpIOp>(op)) {
    using P = arith::CmpIPredicate;
    auto cmp = [&](Opcode o, int a, int b) { return node(VKind::Binary, o, a, b, -1, true, &op); };
    switch (c.getPredicate()) {
    case P::slt:
      r = cmp(Opcode::VCmpLt, in[0], in[1]);
      break;
    case P::sle:
      r = cmp(Opcode::VCmpLe, in[0], in[1]);
      break;
    case P::sgt:
      r = cmp(Opcode::VCmpLt, in[1], in[0]);
      break;
    case P::sge:
      r = cmp(Opcode::VCmpLe, in[1], in[0]);
      break;
    case P::eq:
      r = cmp(Opcode::VCmpEq, in[0], in[1]);
      break;
    case P::ne:
      r = cmp(Opcode::VSub, constant(1, true), cmp(Opcode::VCmpEq, in[0], in[1]));
      break;
    default:
      return op.emitError("unsupported arith.cmpi predicate"), failure();
    }
  } else if (isa<arith::SelectOp>(op)) {
    const bool t = spec_.ops[static_cast<size_t>(in[1])].isInt;
    r = node(VKind::Select, Opcode::VSel, in[1], in[2], in[0], t, &op);
  } else if (isa<arith::AndIOp, arith::OrIOp>(op)) {
    const bool a = spec_.ops[static_cast<size_t>(in[0])].isInt,
               b = spec_.ops[static_cast<size_t>(in[1])].isInt;
    if (a != b)
      return op.emitError("combines a float comparison with an integer one; compare values of "
                          "one kind"),
             failure();
    r = node(VKind::Binary, isa<arith::AndIOp>(op) ? Opcode::VMul : Opcode::VMax, in[0], in[1], -1,
             a, &op);
  } else {
    return op.emitError() << "'" << op.getName() << "' is not supported in a linalg body",
           failure();
  }
  scalar[op.getResult(0)] = r;
  return success();
}

} // namespace chipless::tpuc
