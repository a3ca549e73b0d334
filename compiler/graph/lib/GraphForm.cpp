//===- GraphForm.cpp - the tensor-graph form both compilers take ----------===//
//
// Part of chipless. See GraphForm.h. The checks were tpu-verify-graph's; their messages are
// unchanged for the TPU.
//
//===----------------------------------------------------------------------===//

#include "graph/GraphForm.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include "llvm/Support/raw_ostream.h"

#include <cctype>
#include <set>

using namespace mlir;

namespace chipless::graph {

func::FuncOp graphFunction(ModuleOp module) {
  func::FuncOp found;
  int n = 0;
  for (auto f : module.getOps<func::FuncOp>()) {
    found = f;
    ++n;
  }
  return n == 1 ? found : func::FuncOp();
}

std::string argumentName(func::FuncOp f, unsigned i) {
  if (auto s = f.getArgAttrOfType<StringAttr>(i, kNameAttr)) return s.str();
  return "arg" + std::to_string(i);
}

std::string resultName(func::FuncOp f, unsigned i) {
  if (auto s = f.getResultAttrOfType<StringAttr>(i, kNameAttr)) return s.str();
  return "result" + std::to_string(i);
}

bool isIdentifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

std::optional<double> constantValue(Value v) {
  Operation* def = v.getDefiningOp();
  if (!def) return std::nullopt;
  if (auto c = dyn_cast<arith::ConstantOp>(def)) {
    Attribute a = c.getValue();
    if (auto dense = dyn_cast<DenseElementsAttr>(a)) {
      if (!dense.isSplat()) return std::nullopt;
      a = dense.getSplatValue<Attribute>();
    }
    if (auto f = dyn_cast<FloatAttr>(a)) return f.getValueAsDouble();
    if (auto i = dyn_cast<IntegerAttr>(a)) {
      if (i.getType().isInteger(1)) return i.getValue().getBoolValue() ? 1.0 : 0.0;
      return static_cast<double>(i.getValue().getSExtValue());
    }
    return std::nullopt;
  }
  if (auto fill = dyn_cast<linalg::FillOp>(def)) return constantValue(fill.getInputs()[0]);
  return std::nullopt;
}

std::optional<Combiner> reductionCombiner(Value yielded, BlockArgument acc, std::string& why) {
  Operation* op = yielded.getDefiningOp();
  if (!op || op->getNumOperands() != 2) {
    why = "the body must yield combine(value, accumulator) with combine one of arith.addf, "
          "addi, maximumf, maxnumf, maxsi, minimumf, minnumf, minsi";
    return std::nullopt;
  }
  Combiner c;
  c.combineOp = op;
  if (isa<arith::AddFOp, arith::AddIOp>(op))
    c.kind = Combiner::Kind::Add;
  else if (isa<arith::MaximumFOp, arith::MaxNumFOp, arith::MaxSIOp>(op))
    c.kind = Combiner::Kind::Max;
  else if (isa<arith::MinimumFOp, arith::MinNumFOp, arith::MinSIOp>(op))
    c.kind = Combiner::Kind::Min;
  else {
    why = "reductions combine with add, max or min; '" + op->getName().getStringRef().str() +
          "' is not supported";
    return std::nullopt;
  }
  Value a = op->getOperand(0), b = op->getOperand(1);
  if (a == acc && b != acc)
    c.operand = b;
  else if (b == acc && a != acc)
    c.operand = a;
  else {
    why = "the reduction's accumulator must be one operand of the combining op";
    return std::nullopt;
  }
  if (!acc.hasOneUse()) {
    why = "the reduction's accumulator may only be used by the combining op";
    return std::nullopt;
  }
  return c;
}

bool supportedFloatCompare(Operation* op, std::string& why) {
  using P = arith::CmpFPredicate;
  const P p = cast<arith::CmpFOp>(op).getPredicate();
  switch (p) {
  case P::OEQ:
  case P::UNE:
  case P::OLT:
  case P::OLE:
  case P::OGT:
  case P::OGE:
    return true;
  default:
    why = "arith.cmpf predicate '" + arith::stringifyCmpFPredicate(p).str() +
          "' is not supported (oeq, une, olt, ole, ogt, oge are)";
    return false;
  }
}

namespace {

bool isMatmul(Operation* op) {
  return isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op);
}

/// The checks, over one module, for one target.
struct Verifier {
  const GraphTarget& target;
  bool ok = true;

  /// Why a tensor type is not one the graph form accepts ("" when it is).
  std::string badTensor(Type t) const {
    auto rt = dyn_cast<RankedTensorType>(t);
    if (!rt) return "a ranked tensor";
    if (!rt.hasStaticShape()) return "a tensor of static shape";
    if (rt.getNumElements() == 0) return "a tensor with elements (no dimension of size 0)";
    if (!target.tensorElement(rt.getElementType()))
      return "a tensor of " + target.tensorElements + " (got element type " + [&] {
        std::string s;
        llvm::raw_string_ostream os(s);
        rt.getElementType().print(os);
        return s;
      }() + ")";
    return "";
  }

  InFlightDiagnostic fail(Operation* op) {
    ok = false;
    return op->emitError();
  }
  InFlightDiagnostic fail(Location loc) {
    ok = false;
    return emitError(loc);
  }

  void checkTensors(Operation* op) {
    for (Type t : op->getResultTypes()) {
      std::string why = badTensor(t);
      if (!why.empty()) {
        fail(op) << "'" << op->getName() << "' result must be " << why;
        return;
      }
    }
    for (Value v : op->getOperands()) {
      if (!isa<ShapedType>(v.getType())) continue;
      std::string why = badTensor(v.getType());
      if (!why.empty()) {
        fail(op) << "'" << op->getName() << "' operand must be " << why;
        return;
      }
    }
  }

  void checkBody(Operation* linalgOp) {
    for (Operation& inner : linalgOp->getRegion(0).front()) {
      // A named op's implicit body has no location of its own: the op's is the one to name.
      Operation* at = isa<UnknownLoc>(inner.getLoc()) ? linalgOp : &inner;
      std::string why;
      if (!target.bodyOp(&inner, why)) {
        fail(at) << why;
        continue;
      }
      for (Type t : inner.getResultTypes())
        if (!target.scalarElement(t))
          fail(at) << "scalar type " << t << " is not supported (" << target.scalarElements
                   << " are)";
    }
  }

  void checkGeneric(linalg::GenericOp g) {
    auto iters = g.getIteratorTypesArray();
    unsigned reductions = 0;
    for (size_t i = 0; i < iters.size(); ++i)
      if (iters[i] == utils::IteratorType::reduction) {
        ++reductions;
        if (i + 1 != iters.size()) {
          fail(g) << "reductions are supported over the innermost dimension only (loop " << i
                  << " of " << iters.size() << " reduces)";
          return;
        }
      }
    for (AffineMap m : g.getIndexingMapsArray())
      if (!m.isProjectedPermutation()) {
        fail(g) << "indexing map " << AffineMapAttr::get(m) << " is not a projected permutation";
        return;
      }
    if (g.getNumDpsInits() < 1) {
      fail(g) << "needs at least one output";
      return;
    }
    for (OpOperand& init : g.getDpsInitsMutable()) {
      AffineMap m = g.getMatchingIndexingMap(&init);
      unsigned parallel = g.getNumLoops() - reductions;
      // Outputs index the parallel loops in order.
      bool inOrder = m.getNumResults() == parallel;
      for (unsigned r = 0; inOrder && r < m.getNumResults(); ++r)
        inOrder = m.getDimPosition(r) == r;
      if (!inOrder) {
        fail(g) << "output indexing map " << AffineMapAttr::get(m)
                << " must be the identity on the parallel loops";
        return;
      }
      if (reductions) {
        Block& body = g.getRegion().front();
        auto yield = cast<linalg::YieldOp>(body.getTerminator());
        BlockArgument acc = g.getMatchingBlockArgument(&init);
        std::string why;
        if (!reductionCombiner(yield.getOperand(init.getOperandNumber() - g.getNumDpsInputs()), acc,
                               why)) {
          fail(g) << why;
          return;
        }
        if (!constantValue(init.get())) {
          fail(g) << "a reduction's initial value must be a constant (linalg.fill of an "
                     "arith.constant)";
          return;
        }
      }
    }
    checkBody(g);
  }

  void run(ModuleOp m) {
    int funcs = 0;
    for (Operation& op : m.getBody()->getOperations()) {
      if (!isa<func::FuncOp>(op))
        fail(&op) << "a graph module holds one func.func and nothing else";
      else if (++funcs == 2)
        fail(&op) << "a graph module holds exactly one func.func; this is the second";
    }
    if (funcs != 1) {
      if (funcs == 0) fail(m) << "a graph module holds exactly one func.func; found none";
      ok = false;
      return;
    }
    func::FuncOp f = graphFunction(m);
    if (f.isExternal()) {
      fail(f) << "the graph function has no body";
      return;
    }
    std::set<std::string> names;
    auto checkName = [&](const std::string& name, Location loc, const char* what, unsigned i) {
      if (!isIdentifier(name))
        fail(loc) << what << " " << i << ": name '" << name
                  << "' must be an identifier (letters, digits, _)";
      else if (!names.insert(name).second)
        fail(loc) << what << " " << i << ": name '" << name << "' is used twice";
    };
    for (unsigned i = 0; i < f.getNumArguments(); ++i) {
      BlockArgument a = f.getArgument(i);
      std::string why = badTensor(a.getType());
      if (!why.empty()) fail(a.getLoc()) << "argument " << i << " must be " << why;
      checkName(argumentName(f, i), a.getLoc(), "argument", i);
    }
    for (unsigned i = 0; i < f.getNumResults(); ++i) {
      std::string why = badTensor(f.getResultTypes()[i]);
      if (!why.empty()) fail(f) << "result " << i << " must be " << why;
      checkName(resultName(f, i), f.getLoc(), "result", i);
    }
    for (Operation& op : f.getBody().front()) {
      if (isa<func::ReturnOp>(op)) continue;
      if (auto c = dyn_cast<arith::ConstantOp>(op)) {
        if (auto dense = dyn_cast<DenseElementsAttr>(c.getValue())) {
          if (!dense.isSplat())
            fail(&op) << "non-splat constant tensors are not supported: pass the tensor as a "
                         "function argument";
          else
            checkTensors(&op);
        }
        continue;
      }
      if (!isa<tensor::EmptyOp, tensor::ExpandShapeOp, tensor::CollapseShapeOp,
               tensor::ExtractSliceOp, linalg::FillOp, linalg::MatmulOp, linalg::BatchMatmulOp,
               linalg::AddOp, linalg::SubOp, linalg::MulOp, linalg::DivOp, linalg::GenericOp,
               linalg::ReduceOp, linalg::BroadcastOp, linalg::TransposeOp, linalg::SoftmaxOp>(op) &&
          !(target.extraOps && target.extraOps(&op))) {
        fail(&op) << "'" << op.getName() << "' is not part of the graph form (docs/graph-ir.md)";
        continue;
      }
      checkTensors(&op);
      for (Type t : op.getResultTypes())
        if (auto rt = dyn_cast<RankedTensorType>(t); rt && rt.getRank() == 0)
          fail(&op) << "rank-0 tensors are not supported (use tensor<1x...>)";
      if (auto s = dyn_cast<tensor::ExtractSliceOp>(op)) {
        for (int64_t st : s.getStaticStrides())
          if (st != 1) fail(&op) << "tensor.extract_slice strides must be 1";
        if (!s.getOffsets().empty() || !s.getSizes().empty())
          fail(&op) << "tensor.extract_slice offsets and sizes must be static";
      }
      if (auto fill = dyn_cast<linalg::FillOp>(op))
        if (!constantValue(fill.getInputs()[0]))
          fail(&op) << "linalg.fill must fill with an arith.constant";
      if (isMatmul(&op)) {
        auto lin = cast<linalg::LinalgOp>(op);
        Type a = cast<ShapedType>(lin.getDpsInputs()[0].getType()).getElementType();
        Type b = cast<ShapedType>(lin.getDpsInputs()[1].getType()).getElementType();
        Type c = cast<ShapedType>(lin.getDpsInits()[0].getType()).getElementType();
        if (a != b)
          fail(&op) << "matmul operands must have one element type (got " << a << " and " << b
                    << "): convert one with a linalg.generic first";
        else if (std::string why = target.matmulTypes(a, b, c); !why.empty())
          fail(&op) << why;
      }
      if (auto g = dyn_cast<linalg::GenericOp>(op)) checkGeneric(g);
      if (isa<linalg::AddOp, linalg::SubOp, linalg::MulOp, linalg::DivOp, linalg::BroadcastOp>(op))
        checkBody(&op);
      if (auto r = dyn_cast<linalg::ReduceOp>(op)) {
        auto in = cast<RankedTensorType>(r.getInputs()[0].getType());
        auto dims = r.getDimensions();
        const bool innermost = dims.size() == 1 && dims[0] == in.getRank() - 1;
        // Over the rows (column sums): read through a transpose (each compiler's own).
        const bool rows = dims.size() == 1 && dims[0] == in.getRank() - 2 && in.getRank() <= 3 &&
                          isa<FloatType>(in.getElementType());
        if (!innermost && !rows)
          fail(&op) << "linalg.reduce is supported over the innermost dimension only (dimension "
                    << in.getRank() - 1 << "), or for " << target.floatElements
                    << " of rank 2 or 3 over the one before it";
        checkBody(&op);
        for (Value init : r.getInits())
          if (!constantValue(init))
            fail(&op) << "a reduction's initial value must be a constant (linalg.fill of an "
                         "arith.constant)";
      }
      if (auto s = dyn_cast<linalg::SoftmaxOp>(op)) {
        auto t = cast<RankedTensorType>(s.getInput().getType());
        if (static_cast<int64_t>(s.getDimension()) != t.getRank() - 1)
          fail(&op) << "linalg.softmax is supported over the innermost dimension only (dimension "
                    << t.getRank() - 1 << ")";
      }
    }
  }
};

} // namespace

LogicalResult verifyGraph(ModuleOp module, const GraphTarget& target) {
  Verifier v{target};
  v.run(module);
  return success(v.ok);
}

} // namespace chipless::graph
