//===- Graph.cpp - the graph form: target, verification, decomposition ----===//
//
// Part of chipless. tpu-target records the architecture on the module; tpu-verify-graph
// checks the graph form of docs/graph-ir.md and reports anything unsupported at the op;
// tpu-decompose rewrites linalg.softmax, the named element-wise ops, linalg.broadcast and
// linalg.reduce as linalg.generic, so later passes see one kind of compute op besides the
// matmuls.
//
//===----------------------------------------------------------------------===//

#include "Common.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/PatternMatch.h"
#include "support/error.h"
#include "tpuc/Passes.h"

#include "llvm/Support/raw_ostream.h"

#include <set>

using namespace mlir;

namespace chipless::tpuc {

// ---- helpers ---------------------------------------------------------------------------------

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

std::optional<DType> dtypeOf(Type t) {
  if (t.isBF16()) return DType::BF16;
  if (t.isF32()) return DType::F32;
  if (t.isInteger(8)) return DType::I8;
  if (t.isInteger(32)) return DType::I32;
  return std::nullopt;
}

std::string locString(Location loc) {
  if (auto f = dyn_cast<FileLineColLoc>(loc))
    return f.getFilename().str() + ":" + std::to_string(f.getLine()) + ":" +
           std::to_string(f.getColumn());
  if (auto n = dyn_cast<NameLoc>(loc)) return locString(n.getChildLoc());
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location l : fused.getLocations()) {
      std::string s = locString(l);
      if (!s.empty()) return s;
    }
  if (auto c = dyn_cast<CallSiteLoc>(loc)) return locString(c.getCallee());
  return "";
}

bool isViewOp(Operation* op) {
  return isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp, tensor::ExtractSliceOp,
             linalg::TransposeOp>(op);
}

bool isInitOp(Operation* op) {
  if (isa<tensor::EmptyOp, arith::ConstantOp>(op)) return true;
  if (auto fill = dyn_cast<linalg::FillOp>(op))
    return constantValue(fill.getInputs()[0]).has_value();
  return false;
}

bool isMatmul(Operation* op) {
  return isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op);
}

bool isComputeOp(Operation* op) {
  return isMatmul(op) || isa<linalg::GenericOp>(op);
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
    c.op = tpuprog::Opcode::VAdd;
  else if (isa<arith::MaximumFOp, arith::MaxNumFOp, arith::MaxSIOp>(op))
    c.op = tpuprog::Opcode::VMax;
  else if (isa<arith::MinimumFOp, arith::MinNumFOp, arith::MinSIOp>(op))
    c.op = tpuprog::Opcode::VMin;
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

// ---- tpu-target ------------------------------------------------------------------------------

namespace {

struct TargetPass : PassWrapper<TargetPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TargetPass)
  TargetPass() = default;
  TargetPass(const TargetPass& o) : PassWrapper(o) {}
  TargetPass(const std::string& a, const std::vector<std::string>& s) {
    arch = a;
    sets = s;
  }
  StringRef getArgument() const override { return "tpu-target"; }
  StringRef getDescription() const override {
    return "Record the TPU architecture (a file or v4, v5e, v5p, v6e, and key=value overrides) "
           "on the module; later passes read it";
  }
  Option<std::string> arch{*this, "arch", llvm::cl::desc("architecture file or generation"),
                           llvm::cl::init("")};
  ListOption<std::string> sets{*this, "set", llvm::cl::desc("key.path=value overrides")};

  void runOnOperation() override {
    ModuleOp m = getOperation();
    std::string file;
    try {
      file = TpuArch::resolveFile(arch);
      TpuArch::load(file, std::vector<std::string>(sets.begin(), sets.end()));
    } catch (const std::exception& e) {
      m.emitError() << e.what();
      return signalPassFailure();
    }
    Builder b(m.getContext());
    SmallVector<Attribute> s;
    for (const std::string& x : sets) s.push_back(b.getStringAttr(x));
    m->setAttr(kTargetAttr, b.getDictionaryAttr({b.getNamedAttr("arch", b.getStringAttr(file)),
                                                 b.getNamedAttr("set", b.getArrayAttr(s))}));
  }
};

} // namespace

FailureOr<TpuArch> targetArch(ModuleOp module) {
  std::string file;
  std::vector<std::string> sets;
  if (auto d = module->getAttrOfType<DictionaryAttr>(kTargetAttr)) {
    if (auto a = d.getAs<StringAttr>("arch")) file = a.str();
    if (auto s = d.getAs<ArrayAttr>("set"))
      for (Attribute x : s)
        if (auto str = dyn_cast<StringAttr>(x)) sets.push_back(str.str());
  }
  try {
    return TpuArch::load(file.empty() ? TpuArch::defaultFile() : file, sets);
  } catch (const std::exception& e) {
    module.emitError() << e.what();
    return failure();
  }
}

// ---- tpu-verify-graph ------------------------------------------------------------------------

namespace {

bool isIdentifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

/// Why a tensor type is not one the graph form accepts ("" when it is).
std::string badTensor(Type t) {
  auto rt = dyn_cast<RankedTensorType>(t);
  if (!rt) return "a ranked tensor";
  if (!rt.hasStaticShape()) return "a tensor of static shape";
  if (!dtypeOf(rt.getElementType()))
    return "a tensor of bf16, f32, i8 or i32 (got element type " + [&] {
      std::string s;
      llvm::raw_string_ostream os(s);
      rt.getElementType().print(os);
      return s;
    }() + ")";
  return "";
}

/// The arith/math ops a linalg body may use (docs/graph-ir.md lists them).
bool supportedBodyOp(Operation* op, std::string& why) {
  if (isa<linalg::YieldOp, arith::ConstantOp, arith::AddFOp, arith::SubFOp, arith::MulFOp,
          arith::DivFOp, arith::NegFOp, arith::MaximumFOp, arith::MaxNumFOp, arith::MinimumFOp,
          arith::MinNumFOp, arith::SelectOp, arith::ExtFOp, arith::TruncFOp, arith::SIToFPOp,
          arith::FPToSIOp, arith::AddIOp, arith::SubIOp, arith::MulIOp, arith::MaxSIOp,
          arith::MinSIOp, arith::ExtSIOp, math::ExpOp, math::LogOp, math::SqrtOp, math::RsqrtOp,
          math::TanhOp, math::ErfOp, math::AbsFOp, math::AbsIOp>(op))
    return true;
  if (isa<arith::AndIOp, arith::OrIOp>(op)) {
    // The VPU has no bitwise ops: and/or combine comparison results (0 or 1) as a product
    // and a maximum, which is wrong for other integers.
    if (op->getResult(0).getType().isInteger(1)) return true;
    why =
        "'" + op->getName().getStringRef().str() + "' is supported on i1 (comparison results) only";
    return false;
  }
  if (auto c = dyn_cast<arith::CmpFOp>(op)) {
    using P = arith::CmpFPredicate;
    switch (c.getPredicate()) {
    case P::OEQ:
    case P::UNE:
    case P::OLT:
    case P::OLE:
    case P::OGT:
    case P::OGE:
      return true;
    default:
      why = "arith.cmpf predicate '" + arith::stringifyCmpFPredicate(c.getPredicate()).str() +
            "' is not supported (oeq, une, olt, ole, ogt, oge are)";
      return false;
    }
  }
  if (auto c = dyn_cast<arith::CmpIOp>(op)) {
    using P = arith::CmpIPredicate;
    switch (c.getPredicate()) {
    case P::eq:
    case P::ne:
    case P::slt:
    case P::sle:
    case P::sgt:
    case P::sge:
      return true;
    default:
      why = "arith.cmpi predicate '" + arith::stringifyCmpIPredicate(c.getPredicate()).str() +
            "' is not supported (eq, ne, slt, sle, sgt, sge are)";
      return false;
    }
  }
  if (isa<math::PowFOp, math::FPowIOp>(op)) {
    std::optional<double> e = constantValue(op->getOperand(1));
    if (e && (*e == 0.5 || *e == -0.5 || *e == 1 || *e == 2 || *e == 3 || *e == 4 || *e == -1))
      return true;
    why = "'" + op->getName().getStringRef().str() +
          "' needs a constant exponent in {-1, -0.5, 0.5, 1, 2, 3, 4}";
    return false;
  }
  if (isa<linalg::IndexOp>(op)) {
    why = "linalg.index is not supported in element-wise bodies";
    return false;
  }
  why = "'" + op->getName().getStringRef().str() + "' is not supported in a linalg body";
  return false;
}

struct VerifyGraphPass : PassWrapper<VerifyGraphPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(VerifyGraphPass)
  StringRef getArgument() const override { return "tpu-verify-graph"; }
  StringRef getDescription() const override {
    return "Check the tensor-graph form (docs/graph-ir.md); report unsupported constructs at "
           "the op";
  }

  bool ok = true;
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
      std::string why;
      if (!supportedBodyOp(&inner, why)) {
        fail(&inner) << why;
        continue;
      }
      for (Type t : inner.getResultTypes())
        if (!t.isBF16() && !t.isF32() && !t.isInteger(8) && !t.isInteger(32) && !t.isInteger(1))
          fail(&inner) << "scalar type " << t << " is not supported (bf16, f32, i8, i32, i1 are)";
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

  void runOnOperation() override {
    ModuleOp m = getOperation();
    int funcs = 0;
    for (Operation& op : m.getBody()->getOperations()) {
      if (!isa<func::FuncOp>(op))
        fail(&op) << "a graph module holds one func.func and nothing else";
      else if (++funcs == 2)
        fail(&op) << "a graph module holds exactly one func.func; this is the second";
    }
    if (funcs != 1) {
      if (funcs == 0) fail(m) << "a graph module holds exactly one func.func; found none";
      return signalPassFailure();
    }
    func::FuncOp f = graphFunction(m);
    if (f.isExternal()) {
      fail(f) << "the graph function has no body";
      return signalPassFailure();
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
               linalg::ReduceOp, linalg::BroadcastOp, linalg::TransposeOp, linalg::SoftmaxOp>(op)) {
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
        else if (a.isInteger(32)) // before the result type: no result type makes it supported
          fail(&op) << "matmul of i32 is not supported (bf16, f32 and i8 are)";
        else if (a.isInteger(8) ? !c.isInteger(32) : !(c.isF32() || c.isBF16()))
          fail(&op) << "matmul of " << a << " must produce "
                    << (a.isInteger(8) ? "i32" : "f32 or bf16") << " (got " << c << ")";
      }
      if (auto g = dyn_cast<linalg::GenericOp>(op)) checkGeneric(g);
      if (isa<linalg::AddOp, linalg::SubOp, linalg::MulOp, linalg::DivOp, linalg::BroadcastOp>(op))
        checkBody(&op);
      if (auto r = dyn_cast<linalg::ReduceOp>(op)) {
        auto in = cast<RankedTensorType>(r.getInputs()[0].getType());
        auto dims = r.getDimensions();
        const bool innermost = dims.size() == 1 && dims[0] == in.getRank() - 1;
        // Over the rows (column sums): read through a transpose materialised on the MXU.
        const bool rows = dims.size() == 1 && dims[0] == in.getRank() - 2 && in.getRank() <= 3 &&
                          (in.getElementType().isBF16() || in.getElementType().isF32());
        if (!innermost && !rows)
          fail(&op) << "linalg.reduce is supported over the innermost dimension only (dimension "
                    << in.getRank() - 1 << "), or for bf16 and f32 of rank 2 or 3 over the one "
                    << "before it";
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
    if (!ok) signalPassFailure();
  }
};

// ---- tpu-decompose ---------------------------------------------------------------------------

struct DecomposePass : PassWrapper<DecomposePass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(DecomposePass)
  StringRef getArgument() const override { return "tpu-decompose"; }
  void getDependentDialects(DialectRegistry& registry) const override {
    registry.insert<linalg::LinalgDialect, tensor::TensorDialect, arith::ArithDialect,
                    math::MathDialect>();
  }
  StringRef getDescription() const override {
    return "Rewrite linalg.softmax (max, exp, sum, divide), the named element-wise ops, "
           "linalg.broadcast and linalg.reduce as linalg.generic";
  }
  void runOnOperation() override {
    ModuleOp m = getOperation();
    IRRewriter rewriter(m.getContext());
    SmallVector<linalg::SoftmaxOp> softmaxes;
    m.walk([&](linalg::SoftmaxOp s) { softmaxes.push_back(s); });
    for (linalg::SoftmaxOp s : softmaxes) {
      rewriter.setInsertionPoint(s);
      FailureOr<SmallVector<Value>> parts =
          cast<linalg::AggregatedOpInterface>(s.getOperation()).decomposeOperation(rewriter);
      if (failed(parts)) {
        s.emitError("cannot decompose linalg.softmax");
        return signalPassFailure();
      }
      rewriter.replaceOp(s, *parts);
    }
    transposeReductions(m);
    SmallVector<linalg::LinalgOp> named;
    m.walk([&](linalg::LinalgOp op) {
      if (isa<linalg::AddOp, linalg::SubOp, linalg::MulOp, linalg::DivOp, linalg::BroadcastOp,
              linalg::ReduceOp>(op.getOperation()))
        named.push_back(op);
    });
    for (linalg::LinalgOp op : named) {
      rewriter.setInsertionPoint(op);
      if (failed(linalg::generalizeNamedOp(rewriter, op))) {
        op.emitError("cannot rewrite as linalg.generic");
        return signalPassFailure();
      }
    }
    if (failed(materializeTransposes(m))) return signalPassFailure();
  }
};

} // namespace

std::unique_ptr<Pass> createTargetPass(const std::string& arch,
                                       const std::vector<std::string>& sets) {
  return std::make_unique<TargetPass>(arch, sets);
}
std::unique_ptr<Pass> createVerifyGraphPass() {
  return std::make_unique<VerifyGraphPass>();
}
std::unique_ptr<Pass> createDecomposePass() {
  return std::make_unique<DecomposePass>();
}

} // namespace chipless::tpuc
