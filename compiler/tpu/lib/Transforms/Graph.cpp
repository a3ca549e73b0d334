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

bool isContraction(Operation* op) {
  auto g = dyn_cast<linalg::GenericOp>(op);
  if (!g || g.getNumDpsInputs() != 2 || g.getNumDpsInits() != 1) return false;
  const unsigned loops = g.getNumLoops();
  if (loops < 4) return false;
  auto iters = g.getIteratorTypesArray();
  for (unsigned i = 0; i + 1 < loops; ++i)
    if (iters[i] != utils::IteratorType::parallel) return false;
  if (iters.back() != utils::IteratorType::reduction) return false;
  // Loops (b..., m, n, k): LHS (b..., m, k) or (m, k), RHS (k, n) or (b..., k, n), result
  // (b..., m, n).
  MLIRContext* ctx = g.getContext();
  auto dims = [&](std::initializer_list<std::pair<unsigned, unsigned>> ranges) {
    SmallVector<AffineExpr> e;
    for (auto [from, to] : ranges)
      for (unsigned d = from; d < to; ++d) e.push_back(getAffineDimExpr(d, ctx));
    return AffineMap::get(loops, 0, e, ctx);
  };
  const unsigned b = loops - 3, m = b, n = b + 1, k = b + 2;
  SmallVector<AffineMap> maps = g.getIndexingMapsArray();
  if ((maps[0] != dims({{0, b}, {m, m + 1}, {k, k + 1}}) &&
       maps[0] != dims({{m, m + 1}, {k, k + 1}})) ||
      maps[2] != dims({{0, b}, {m, m + 1}, {n, n + 1}}) ||
      (maps[1] != dims({{k, k + 1}, {n, n + 1}}) &&
       maps[1] != dims({{0, b}, {k, k + 1}, {n, n + 1}})))
    return false;
  // Body: yield acc + lhs * rhs (float operands of the result's type).
  Block& body = *g.getBody();
  auto y = cast<linalg::YieldOp>(body.getTerminator());
  auto add = y.getValues()[0].getDefiningOp<arith::AddFOp>();
  if (!add) return false;
  Value acc = body.getArgument(2);
  Value prod = add.getLhs() == acc ? add.getRhs() : add.getRhs() == acc ? add.getLhs() : Value();
  auto mul = prod ? prod.getDefiningOp<arith::MulFOp>() : nullptr;
  if (!mul) return false;
  // An operand, possibly extended from a narrower float (bf16 products accumulated in f32).
  auto isArg = [&](Value v, unsigned i) {
    if (auto ext = v.getDefiningOp<arith::ExtFOp>()) v = ext.getIn();
    return v == body.getArgument(i);
  };
  return (isArg(mul.getLhs(), 0) && isArg(mul.getRhs(), 1)) ||
         (isArg(mul.getLhs(), 1) && isArg(mul.getRhs(), 0));
}

Value buildElementwise(OpBuilder& b, Location loc, ValueRange ins, Type et,
                       function_ref<Value(OpBuilder&, Location, ValueRange)> body) {
  auto inType = cast<RankedTensorType>(ins.front().getType());
  const auto rank = static_cast<unsigned>(inType.getRank());
  Value empty = b.create<tensor::EmptyOp>(loc, inType.getShape(), et);
  SmallVector<AffineMap> maps(ins.size() + 1, b.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  return b
      .create<linalg::GenericOp>(
          loc, TypeRange{empty.getType()}, ins, ValueRange{empty}, maps, iters,
          [&](OpBuilder& nb, Location l, ValueRange args) {
            nb.create<linalg::YieldOp>(l, ValueRange{body(nb, l, args.drop_back())});
          })
      .getResult(0);
}

Value buildContraction(OpBuilder& b, Location loc, Value lhs, Value rhs, Value acc) {
  auto accType = cast<RankedTensorType>(acc.getType());
  const auto batch = static_cast<unsigned>(accType.getRank() - 2);
  const unsigned loops = batch + 3, m = batch, n = batch + 1, k = batch + 2;
  MLIRContext* ctx = b.getContext();
  auto map = [&](bool withBatch, std::initializer_list<unsigned> last) {
    SmallVector<AffineExpr> e;
    if (withBatch)
      for (unsigned d = 0; d < batch; ++d) e.push_back(getAffineDimExpr(d, ctx));
    for (unsigned d : last) e.push_back(getAffineDimExpr(d, ctx));
    return AffineMap::get(loops, 0, e, ctx);
  };
  auto batched = [&](Value v) {
    return cast<RankedTensorType>(v.getType()).getRank() == accType.getRank();
  };
  SmallVector<AffineMap> maps = {map(batched(lhs), {m, k}), map(batched(rhs), {k, n}),
                                 map(true, {m, n})};
  SmallVector<utils::IteratorType> iters(loops - 1, utils::IteratorType::parallel);
  iters.push_back(utils::IteratorType::reduction);
  Type et = accType.getElementType();
  return b
      .create<linalg::GenericOp>(
          loc, TypeRange{accType}, ValueRange{lhs, rhs}, ValueRange{acc}, maps, iters,
          [&](OpBuilder& nb, Location l, ValueRange args) {
            auto widen = [&](Value v) {
              return v.getType() == et ? v : nb.create<arith::ExtFOp>(l, et, v).getResult();
            };
            Value p = nb.create<arith::MulFOp>(l, widen(args[0]), widen(args[1]));
            nb.create<linalg::YieldOp>(
                l, ValueRange{nb.create<arith::AddFOp>(l, args[2], p).getResult()});
          })
      .getResult(0);
}

bool isLhsConcat(Operation* op) {
  auto c = dyn_cast<tensor::ConcatOp>(op);
  if (!c || c->use_empty() || c.getDim() != static_cast<uint64_t>(c.getResultType().getRank() - 1))
    return false;
  return llvm::all_of(c->getUses(), [](OpOperand& use) {
    return isMatmul(use.getOwner()) && use.getOperandNumber() == 0;
  });
}

bool isMatmul(Operation* op) {
  return isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op) || isContraction(op);
}

bool isComputeOp(Operation* op) {
  return isMatmul(op) || isa<linalg::GenericOp, tensor::GatherOp>(op);
}

std::optional<Combiner> reductionCombiner(Value yielded, BlockArgument acc, std::string& why) {
  auto c = graph::reductionCombiner(yielded, acc, why);
  if (!c) return std::nullopt;
  Combiner r;
  r.operand = c->operand;
  r.combineOp = c->combineOp;
  r.op = c->kind == graph::Combiner::Kind::Add   ? tpuprog::Opcode::VAdd
         : c->kind == graph::Combiner::Kind::Max ? tpuprog::Opcode::VMax
                                                 : tpuprog::Opcode::VMin;
  return r;
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

// ---- tpu-verify-graph: the shared graph form (compiler/graph) for the TPU -------------------

namespace {

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
  if (isa<arith::CmpFOp>(op)) return graph::supportedFloatCompare(op, why);
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

/// What tpu-compile takes beyond the common graph form.
const graph::GraphTarget& tpuTarget() {
  static const graph::GraphTarget target{
      [](Type t) { return dtypeOf(t).has_value(); }, "bf16, f32, i8 or i32", "bf16 and f32",
      [](Type t) {
        return t.isBF16() || t.isF32() || t.isInteger(8) || t.isInteger(32) || t.isInteger(1);
      },
      "bf16, f32, i8, i32, i1", supportedBodyOp,
      [](Type a, Type, Type c) -> std::string {
        std::string s;
        llvm::raw_string_ostream os(s);
        if (a.isInteger(32)) // before the result type: no result type makes it supported
          os << "matmul of i32 is not supported (bf16, f32 and i8 are)";
        else if (a.isInteger(8) ? !c.isInteger(32) : !(c.isF32() || c.isBF16()))
          // Quoted as a diagnostic quotes types.
          os << "matmul of '" << a << "' must produce " << (a.isInteger(8) ? "i32" : "f32 or bf16")
             << " (got '" << c << "')";
        return s;
      },
      // Concatenations (their parts are written into their slices, tpu-alloc-hbm), padding,
      // pooling and convolutions (tpu-decompose: Windows.cpp), embedding lookups (Gathers.cpp).
      [](Operation* op) {
        return isa<tensor::ConcatOp, tensor::PadOp, linalg::PoolingNhwcMaxOp,
                   linalg::PoolingNhwcSumOp, linalg::Conv2DNhwcHwcfOp, tensor::GatherOp>(op);
      }};
  return target;
}

struct VerifyGraphPass : PassWrapper<VerifyGraphPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(VerifyGraphPass)
  StringRef getArgument() const override { return "tpu-verify-graph"; }
  StringRef getDescription() const override {
    return "Check the tensor-graph form (docs/graph-ir.md); report unsupported constructs at "
           "the op";
  }
  void runOnOperation() override {
    if (failed(graph::verifyGraph(getOperation(), tpuTarget()))) signalPassFailure();
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
    sinkTransposes(m);
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
    FailureOr<TpuArch> arch = targetArch(m);
    if (failed(arch) || failed(decomposeWindows(m, arch->dma.alignment_bytes)) ||
        failed(decomposeGathers(m)))
      return signalPassFailure();
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
