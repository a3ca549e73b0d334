//===- Model.cpp - kernel specifications, MXU tiling, VMEM, cores, emission ===//
//
// Part of chipless. Builds the plain-C++ KernelSpec of a tpu.kernel (tpuc/KernelSpec.h): the
// matmul's operands in HBM, the vector program translated from the linalg bodies (arith and
// math ops to VPU operations; math.erf as a polynomial), the inputs it loads and the outputs
// it writes. The passes tpu-tile-mxu, tpu-alloc-vmem and tpu-split-cores record their
// decisions as attributes of the kernel; emitTpuAssembly reads them back and writes the
// program.
//
//===----------------------------------------------------------------------===//

#include "Common.h"
#include "Layout.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Builders.h"
#include "tpuc/Emit.h"
#include "tpuc/Passes.h"
#include "tpuc/Plan.h"

#include "llvm/ADT/DenseMap.h"

#include <cmath>
#include <limits>
#include <map>

using namespace mlir;

namespace chipless::tpuc {

using tpuprog::Opcode;

namespace {

/// Which attributes the model reads (each pass needs the ones before it).
enum class Stage { Tile, Vmem, Cores, Emit };

class ModelBuilder {
public:
  ModelBuilder(KernelOp k, const TpuArch& arch, Stage stage,
               std::map<std::string, Operation*>* places)
      : kernel_(k), arch_(arch), stage_(stage), places_(places) {}

  FailureOr<KernelSpec> build() {
    spec_.name = kernel_.getName().str();
    Operation* root = nullptr;
    for (Operation& op : kernel_.getBody().front())
      if (isComputeOp(&op)) {
        root = &op;
        break;
      }
    if (!root) return kernel_.emitError("kernel has no compute op"), failure();
    spec_.where = where(root);
    if (auto g = dyn_cast<linalg::GenericOp>(root)) {
      SmallVector<int64_t> loops = g.getStaticLoopRanges();
      space_.assign(loops.begin(), loops.end());
    } else {
      auto shape = cast<ShapedType>(root->getResult(0).getType()).getShape();
      space_.assign(shape.begin(), shape.end());
    }
    const size_t r = space_.size();
    if (r == 1) {
      spec_.m = 1;
      spec_.n = space_[0];
    } else {
      spec_.batch.assign(space_.begin(), space_.end() - 2);
      spec_.m = space_[r - 2];
      spec_.n = space_[r - 1];
    }
    for (Operation& op : kernel_.getBody().front()) {
      if (isInitOp(&op)) continue;
      if (isMatmul(&op)) {
        if (failed(matmul(op))) return failure();
      } else if (auto g = dyn_cast<linalg::GenericOp>(op)) {
        if (failed(generic(g))) return failure();
      } else if (auto y = dyn_cast<YieldOp>(op)) {
        if (failed(outputs(y))) return failure();
      } else {
        return op.emitError("unexpected op in a kernel"), failure();
      }
    }
    if (stage_ != Stage::Tile && spec_.matmul && failed(readTiling())) return failure();
    if ((stage_ == Stage::Cores || stage_ == Stage::Emit) && failed(readMemory())) return failure();
    if (stage_ == Stage::Emit && failed(readCores())) return failure();
    return spec_;
  }

private:
  std::string where(Operation* op) {
    std::string w = locString(op->getLoc());
    if (places_ && !w.empty() && !places_->count(w)) (*places_)[w] = op;
    return w;
  }

  int add(VOp o) {
    spec_.ops.push_back(std::move(o));
    return static_cast<int>(spec_.ops.size() - 1);
  }

  int constant(double v, bool isInt) {
    VOp o;
    o.kind = VKind::Const;
    o.value = v;
    o.isInt = isInt;
    return add(o);
  }

  bool isColumn(int id) const {
    return id >= 0 && spec_.ops[static_cast<size_t>(id)].column &&
           spec_.ops[static_cast<size_t>(id)].kind != VKind::Const;
  }
  bool isConst(int id) const { return spec_.ops[static_cast<size_t>(id)].kind == VKind::Const; }

  /// A value node; column when every non-constant operand is (or the op is per-row).
  int node(VKind kind, Opcode opc, int a, int b, int c, bool isInt, Operation* at) {
    VOp o;
    o.kind = kind;
    o.op = opc;
    o.a = a;
    o.b = b;
    o.c = c;
    o.isInt = isInt;
    o.where = at ? where(at) : "";
    bool anyFull = false, anyCol = false;
    for (int x : {a, b, c}) {
      if (x < 0 || isConst(x)) continue;
      (isColumn(x) ? anyCol : anyFull) = true;
    }
    o.column = columnPlace_ || (anyCol && !anyFull);
    return add(o);
  }

  /// The access of `v` with element strides `dims` over the kernel's space dimensions.
  FailureOr<HbmAccess> access(const View& v, ArrayRef<int64_t> dims, int64_t n, bool write,
                              Operation* at, const std::string& what) {
    HbmAccess a;
    const int64_t es = v.esize(), align = arch_.dma.alignment_bytes;
    a.symbol = v.symbol;
    a.dtype = v.dtype;
    a.offset = v.offset * es;
    const size_t r = dims.size();
    const int64_t nStride = dims[r - 1];
    if (nStride != 1 && n > 1)
      return at->emitError() << what << " is not contiguous along its innermost dimension in HBM",
             failure();
    if (r >= 2) {
      for (size_t i = 0; i + 2 < r; ++i) a.batchStrides.push_back(dims[i] * es);
      a.rowStride = dims[r - 2] * es;
    }
    a.runBytes = roundUp(n * es, align);
    // A result of one row per batch: its stride never moves a DMA (a [1, M] view of [M]).
    if ((a.rowStride == 0 && (r < 2 || spec_.m == 1)) || (write && spec_.m == 1))
      a.rowStride = a.runBytes;
    if (a.runBytes > v.contiguous * es)
      return at->emitError() << what << ": a DMA moves rows of " << a.runBytes
                             << " bytes, but only " << v.contiguous * es
                             << " are contiguous in HBM (rows of " << n << " " << dtypeName(v.dtype)
                             << " elements must be a multiple of " << align
                             << " bytes unless the tensor's padding follows them)",
             failure();
    if (write && a.runBytes != n * es && !v.padTail)
      return at->emitError() << what << ": rows of " << n * es << " bytes would be written as "
                             << a.runBytes << "-byte DMA runs (dma.alignment_bytes) and overwrite "
                             << "the elements after them",
             failure();
    bool aligned = a.offset % align == 0 && a.rowStride % align == 0;
    for (int64_t s : a.batchStrides) aligned &= s % align == 0;
    if (!aligned)
      return at->emitError() << what << ": its HBM offset (" << a.offset << ") and strides must be "
                             << "multiples of " << align << " bytes (dma.alignment_bytes)",
             failure();
    return a;
  }

  FailureOr<View> view(Value v, Operation* at, const std::string& what) {
    std::string why;
    FailureOr<View> r = viewOf(v, arch_.vpu.lanes, why);
    if (failed(r)) return at->emitError() << what << ": " << why, failure();
    return r;
  }

  LogicalResult matmul(Operation& op) {
    auto lin = cast<linalg::LinalgOp>(op);
    const bool batched = isa<linalg::BatchMatmulOp>(op);
    Value lhs = lin.getDpsInputs()[0], rhs = lin.getDpsInputs()[1], init = lin.getDpsInits()[0];
    auto lt = cast<RankedTensorType>(lhs.getType());
    MatmulSpec mm;
    mm.dtype = *dtypeOf(lt.getElementType());
    mm.k = lt.getShape().back();
    FailureOr<View> lv = view(lhs, &op, "the matmul's LHS"),
                    rv = view(rhs, &op, "the matmul's RHS");
    if (failed(lv) || failed(rv)) return failure();
    // LHS [batch?, M, K]: K contiguous.
    if (lv->strides.back() != 1 && mm.k > 1)
      return op.emitError("the matmul's LHS is transposed in HBM (its K dimension is not "
                          "contiguous): only the RHS may be read transposed"),
             failure();
    SmallVector<int64_t> ldims;
    if (batched) ldims.push_back(lv->strides[0]);
    ldims.push_back(lv->strides[lv->strides.size() - 2]);
    ldims.push_back(1);
    View lk = *lv;
    FailureOr<HbmAccess> la = access(lk, ldims, mm.k, false, &op, "the matmul's LHS");
    if (failed(la)) return failure();
    mm.lhs = *la;
    // RHS [batch?, K, N]: N contiguous, or K contiguous (read transposed).
    const size_t rr = rv->strides.size();
    const int64_t sK = rv->strides[rr - 2], sN = rv->strides[rr - 1];
    SmallVector<int64_t> rdims;
    if (batched) rdims.push_back(rv->strides[0]);
    int64_t runLen;
    if (sN == 1 || spec_.n == 1) {
      rdims.push_back(sK);
      runLen = spec_.n;
    } else if (sK == 1 || mm.k == 1) {
      mm.transposeRhs = true;
      rdims.push_back(sN);
      runLen = mm.k;
    } else {
      return op.emitError("the matmul's RHS is contiguous in neither K nor N in HBM"), failure();
    }
    rdims.push_back(1);
    FailureOr<HbmAccess> ra = access(*rv, rdims, runLen, false, &op, "the matmul's RHS");
    if (failed(ra)) return failure();
    mm.rhs = *ra;
    if (!batched)
      mm.rhs.batchStrides.clear();
    else
      mm.rhs.batchStrides.resize(spec_.batch.size(), 0);
    spec_.matmul = mm;
    int acc = node(VKind::Acc, Opcode::Nop, -1, -1, -1, mm.dtype == DType::I8, &op);
    spec_.ops[static_cast<size_t>(acc)].column = false;
    // The init: zero, a constant, or a tensor added to the products.
    if (std::optional<double> c = constantValue(init)) {
      if (*c != 0)
        acc = node(VKind::Binary, Opcode::VAdd, acc, constant(*c, mm.dtype == DType::I8), -1,
                   mm.dtype == DType::I8, &op);
    } else {
      SmallVector<int64_t> dims;
      FailureOr<View> iv = view(init, &op, "the matmul's accumulator input");
      if (failed(iv)) return failure();
      FailureOr<int> ld =
          load(init, *iv, SmallVector<int64_t>(iv->strides), &op, "the matmul's accumulator input");
      if (failed(ld)) return failure();
      acc = node(VKind::Binary, Opcode::VAdd, acc, *ld, -1, mm.dtype == DType::I8, &op);
    }
    tensor_[op.getResult(0)] = acc;
    return success();
  }

  /// A Load of external tensor `x` whose element strides over the kernel's dimensions are `dims`.
  FailureOr<int> load(Value x, const View& v, SmallVector<int64_t> dims, Operation* at,
                      const std::string& what) {
    FailureOr<HbmAccess> a = access(v, dims, spec_.n, false, at, what);
    if (failed(a)) return failure();
    VInput in;
    in.access = *a;
    in.rowVector = dims.size() >= 2 && dims[dims.size() - 2] == 0 && spec_.m > 1;
    if (in.rowVector) in.access.rowStride = in.access.runBytes;
    int index = -1;
    for (size_t i = 0; i < spec_.inputs.size(); ++i) {
      const VInput& o = spec_.inputs[i];
      if (o.rowVector == in.rowVector && o.access.symbol == in.access.symbol &&
          o.access.offset == in.access.offset && o.access.rowStride == in.access.rowStride &&
          o.access.batchStrides == in.access.batchStrides && o.access.dtype == in.access.dtype)
        index = static_cast<int>(i);
    }
    if (index < 0) {
      spec_.inputs.push_back(in);
      index = static_cast<int>(spec_.inputs.size() - 1);
    }
    VOp o;
    o.kind = VKind::Load;
    o.input = index;
    o.isInt = a->dtype == DType::I8 || a->dtype == DType::I32;
    o.where = where(at);
    (void)x;
    return add(o);
  }

  LogicalResult generic(linalg::GenericOp g) {
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
        FailureOr<int> ld = load(x, *v, dims, g, what);
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
          id = node(VKind::Unary, Opcode::VMov, id, -1, -1,
                    spec_.ops[static_cast<size_t>(id)].isInt, g);
          spec_.ops[static_cast<size_t>(id)].column = false;
        } else if (columnPlace_ && isConst(id)) {
          id = node(VKind::Unary, Opcode::VMov, id, -1, -1,
                    spec_.ops[static_cast<size_t>(id)].isInt, g);
        }
      }
      tensor_[g.getResult(i)] = id;
    }
    columnPlace_ = false;
    return success();
  }

  LogicalResult operandOf(Value v, llvm::DenseMap<Value, int>& scalar, int& id, Operation* at) {
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

  /// The erf polynomial of Abramowitz and Stegun 7.1.26 (|error| <= 1.5e-7).
  int erf(int x, Operation* at) {
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

  LogicalResult bodyOp(Operation& op, llvm::DenseMap<Value, int>& scalar) {
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
      auto cmp = [&](Opcode o, int a, int b) {
        return node(VKind::Binary, o, a, b, -1, false, &op);
      };
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
      auto cmp = [&](Opcode o, int a, int b) {
        return node(VKind::Binary, o, a, b, -1, true, &op);
      };
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
      r = node(VKind::Binary, isa<arith::AndIOp>(op) ? Opcode::VMul : Opcode::VMax, in[0], in[1],
               -1, a, &op);
    } else {
      return op.emitError() << "'" << op.getName() << "' is not supported in a linalg body",
             failure();
    }
    scalar[op.getResult(0)] = r;
    return success();
  }

  LogicalResult outputs(YieldOp y) {
    for (auto [i, v] : llvm::enumerate(y.getValues())) {
      auto it = tensor_.find(v);
      if (it == tensor_.end())
        return y.emitError("yields a value the kernel does not compute"), failure();
      if (stage_ == Stage::Tile) continue;
      const std::string what = "result " + std::to_string(i);
      FailureOr<View> vw =
          view(kernel_.getResult(static_cast<unsigned>(i)), v.getDefiningOp(), what);
      if (failed(vw)) return failure();
      FailureOr<HbmAccess> a =
          access(*vw, SmallVector<int64_t>(vw->strides), spec_.n, true, v.getDefiningOp(), what);
      if (failed(a)) return failure();
      int id = it->second;
      if (isColumn(id))
        return v.getDefiningOp()->emitError("a per-row value as a kernel result"), failure();
      spec_.outputs.push_back({id, *a});
    }
    return success();
  }

  LogicalResult readTiling() {
    auto d = kernel_->getAttrOfType<DictionaryAttr>(kMxuAttr);
    if (!d) return kernel_.emitError("no MXU tiling (run tpu-tile-mxu)"), failure();
    MatmulSpec& mm = *spec_.matmul;
    auto get = [&](const char* k) { return d.getAs<IntegerAttr>(k).getInt(); };
    mm.kChunk = get("k_chunk");
    mm.nTile = get("n_tile");
    mm.kChunks = get("k_chunks");
    mm.nTiles = get("n_tiles");
    mm.mxus = get("mxus");
    mm.groups = get("groups");
    return success();
  }

  LogicalResult readMemory() {
    auto d = kernel_->getAttrOfType<DictionaryAttr>(kVmemAttr);
    if (!d) return kernel_.emitError("no VMEM plan (run tpu-alloc-vmem)"), failure();
    MemoryPlan& p = spec_.memory;
    auto get = [&](const char* k) { return d.getAs<IntegerAttr>(k).getInt(); };
    auto pairs = [&](const char* k, std::vector<int64_t>& off, std::vector<int64_t>& rb) {
      for (Attribute a : d.getAs<ArrayAttr>(k)) {
        auto arr = cast<DenseI64ArrayAttr>(a).asArrayRef();
        off.push_back(arr[0]);
        rb.push_back(arr[1]);
      }
    };
    p.rowsPerUnit = get("rows_per_unit");
    p.bufferRows = get("buffer_rows");
    p.halfBytes = get("half_bytes");
    p.totalBytes = get("total_bytes");
    pairs("inputs", p.inputOffsets, p.inputRowBytes);
    pairs("outputs", p.outputOffsets, p.outputRowBytes);
    if (spec_.matmul) {
      auto lhs = d.getAs<DenseI64ArrayAttr>("lhs").asArrayRef();
      auto acc = d.getAs<DenseI64ArrayAttr>("acc").asArrayRef();
      p.lhsOffset = lhs[0];
      p.lhsRowBytes = lhs[1];
      p.accOffset = acc[0];
      p.accRowBytes = acc[1];
      p.rhsResident = d.getAs<StringAttr>("rhs").getValue() == "resident";
      p.panelChunks = get("panel_chunks");
      p.panelSlots = get("panel_slots");
      p.panelOffset = get("panel_offset");
      p.panelBytes = get("panel_bytes");
      p.panelRowBytes = get("panel_row_bytes");
    }
    return success();
  }

  LogicalResult readCores() {
    auto a = kernel_->getAttrOfType<ArrayAttr>(kCoresAttr);
    if (!a) return kernel_.emitError("no TensorCore split (run tpu-split-cores)"), failure();
    for (Attribute x : a) {
      auto r = cast<DenseI64ArrayAttr>(x).asArrayRef();
      spec_.cores.push_back({r[0], r[1]});
    }
    if (static_cast<int>(spec_.cores.size()) != arch_.chip.tensorcores)
      return kernel_.emitError() << "split over " << spec_.cores.size()
                                 << " TensorCores, but chip.tensorcores is "
                                 << arch_.chip.tensorcores,
             failure();
    return success();
  }

  KernelOp kernel_;
  const TpuArch& arch_;
  Stage stage_;
  std::map<std::string, Operation*>* places_;
  KernelSpec spec_;
  SmallVector<int64_t> space_;
  llvm::DenseMap<Value, int> tensor_;
  bool columnPlace_ = false;
};

FailureOr<KernelSpec> buildSpec(KernelOp k, const TpuArch& arch, Stage stage,
                                std::map<std::string, Operation*>* places = nullptr) {
  return ModelBuilder(k, arch, stage, places).build();
}

template <typename Derived>
struct KernelPass : PassWrapper<Derived, OperationPass<ModuleOp>> {
  void runOnOperation() override {
    ModuleOp m = this->getOperation();
    FailureOr<TpuArch> arch = targetArch(m);
    if (failed(arch)) return this->signalPassFailure();
    func::FuncOp f = graphFunction(m);
    if (!f) return this->signalPassFailure();
    for (KernelOp k : llvm::make_early_inc_range(f.getOps<KernelOp>()))
      if (failed(static_cast<Derived*>(this)->runOnKernel(k, *arch)))
        return this->signalPassFailure();
  }
};

// ---- tpu-tile-mxu ------------------------------------------------------------------------------

struct TileMxuPass : KernelPass<TileMxuPass> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TileMxuPass)
  StringRef getArgument() const override { return "tpu-tile-mxu"; }
  StringRef getDescription() const override {
    return "Tile each matmul onto the MXUs: K in chunks of mxu.rows, N in tiles of mxu.cols, "
           "one tile per MXU in groups; weights (the RHS, transposed when it lies so) stationary";
  }
  LogicalResult runOnKernel(KernelOp k, const TpuArch& arch) {
    FailureOr<KernelSpec> s = buildSpec(k, arch, Stage::Tile);
    if (failed(s)) return failure();
    if (!s->matmul) return success();
    const MatmulSpec& mm = *s->matmul;
    Builder b(k.getContext());
    const int64_t kChunks = ceilDiv(mm.k, arch.mxu.rows), nTiles = ceilDiv(s->n, arch.mxu.cols);
    const int64_t mxus = std::min<int64_t>(arch.mxu.count, nTiles);
    const int64_t groups = ceilDiv(nTiles, mxus);
    auto i64 = [&](int64_t v) { return b.getI64IntegerAttr(v); };
    k->setAttr(kMxuAttr, b.getDictionaryAttr({
                             b.getNamedAttr("stationary", b.getStringAttr("rhs")),
                             b.getNamedAttr("transpose_rhs", b.getBoolAttr(mm.transposeRhs)),
                             b.getNamedAttr("dtype", b.getStringAttr(dtypeName(mm.dtype))),
                             b.getNamedAttr("k", i64(mm.k)),
                             b.getNamedAttr("n", i64(s->n)),
                             b.getNamedAttr("k_chunk", i64(arch.mxu.rows)),
                             b.getNamedAttr("n_tile", i64(arch.mxu.cols)),
                             b.getNamedAttr("k_chunks", i64(kChunks)),
                             b.getNamedAttr("n_tiles", i64(nTiles)),
                             b.getNamedAttr("mxus", i64(mxus)),
                             b.getNamedAttr("groups", i64(groups)),
                             b.getNamedAttr("folds_per_row_block", i64(kChunks * nTiles)),
                             b.getNamedAttr("padded_k", i64(kChunks * arch.mxu.rows)),
                             b.getNamedAttr("padded_n", i64(nTiles * arch.mxu.cols)),
                         }));
    return success();
  }
};

// ---- tpu-alloc-vmem ----------------------------------------------------------------------------

struct AllocVmemPass : KernelPass<AllocVmemPass> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(AllocVmemPass)
  StringRef getArgument() const override { return "tpu-alloc-vmem"; }
  StringRef getDescription() const override {
    return "Choose rows per unit of work and whether the RHS stays resident or streams in "
           "double-buffered panels, and lay out each kernel's VMEM within vmem.bytes";
  }
  LogicalResult runOnKernel(KernelOp k, const TpuArch& arch) {
    std::map<std::string, Operation*> places;
    FailureOr<KernelSpec> s = buildSpec(k, arch, Stage::Vmem, &places);
    if (failed(s)) return failure();
    MemoryPlan p;
    try {
      p = planMemory(*s, arch, arch.chip.tensorcores);
    } catch (const CompileError& e) {
      return k.emitError(e.what()), failure();
    }
    s->memory = p;
    Builder b(k.getContext());
    auto i64 = [&](int64_t v) { return b.getI64IntegerAttr(v); };
    auto pairs = [&](const std::vector<int64_t>& off, const std::vector<int64_t>& rb) {
      SmallVector<Attribute> a;
      for (size_t i = 0; i < off.size(); ++i) a.push_back(b.getDenseI64ArrayAttr({off[i], rb[i]}));
      return b.getArrayAttr(a);
    };
    SmallVector<NamedAttribute> attrs = {
        b.getNamedAttr("rows_per_unit", i64(p.rowsPerUnit)),
        b.getNamedAttr("units", i64(s->units())),
        b.getNamedAttr("buffer_rows", i64(p.bufferRows)),
        b.getNamedAttr("half_bytes", i64(p.halfBytes)),
        b.getNamedAttr("inputs", pairs(p.inputOffsets, p.inputRowBytes)),
        b.getNamedAttr("outputs", pairs(p.outputOffsets, p.outputRowBytes)),
        b.getNamedAttr("total_bytes", i64(p.totalBytes)),
        b.getNamedAttr("estimated_cycles", i64(static_cast<int64_t>(estimateCycles(
                                               *s, p, arch, arch.chip.tensorcores)))),
    };
    if (s->matmul) {
      attrs.push_back(b.getNamedAttr("lhs", b.getDenseI64ArrayAttr({p.lhsOffset, p.lhsRowBytes})));
      attrs.push_back(b.getNamedAttr("acc", b.getDenseI64ArrayAttr({p.accOffset, p.accRowBytes})));
      attrs.push_back(
          b.getNamedAttr("rhs", b.getStringAttr(p.rhsResident ? "resident" : "streamed")));
      attrs.push_back(b.getNamedAttr("panel_chunks", i64(p.panelChunks)));
      attrs.push_back(b.getNamedAttr("panel_slots", i64(p.panelSlots)));
      attrs.push_back(b.getNamedAttr("panel_offset", i64(p.panelOffset)));
      attrs.push_back(b.getNamedAttr("panel_bytes", i64(p.panelBytes)));
      attrs.push_back(b.getNamedAttr("panel_row_bytes", i64(p.panelRowBytes)));
    }
    k->setAttr(kVmemAttr, b.getDictionaryAttr(attrs));
    return success();
  }
};

// ---- tpu-split-cores ---------------------------------------------------------------------------

struct SplitCoresPass : KernelPass<SplitCoresPass> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(SplitCoresPass)
  StringRef getArgument() const override { return "tpu-split-cores"; }
  StringRef getDescription() const override {
    return "Share each kernel's units (blocks of rows of one batch index) out over the "
           "chip's TensorCores in contiguous, balanced ranges";
  }
  LogicalResult runOnKernel(KernelOp k, const TpuArch& arch) {
    FailureOr<KernelSpec> s = buildSpec(k, arch, Stage::Cores);
    if (failed(s)) return failure();
    Builder b(k.getContext());
    SmallVector<Attribute> ranges;
    for (auto [first, end] : splitUnits(s->units(), arch.chip.tensorcores))
      ranges.push_back(b.getDenseI64ArrayAttr({first, end}));
    k->setAttr(kCoresAttr, b.getArrayAttr(ranges));
    return success();
  }
};

} // namespace

std::unique_ptr<Pass> createTileMxuPass() {
  return std::make_unique<TileMxuPass>();
}
std::unique_ptr<Pass> createAllocVmemPass() {
  return std::make_unique<AllocVmemPass>();
}
std::unique_ptr<Pass> createSplitCoresPass() {
  return std::make_unique<SplitCoresPass>();
}

FailureOr<std::string> emitTpuAssembly(ModuleOp module) {
  FailureOr<TpuArch> arch = targetArch(module);
  if (failed(arch)) return failure();
  func::FuncOp f = graphFunction(module);
  if (!f) return module.emitError("expected one func.func"), failure();
  ProgramSpec prog;
  prog.name = f.getSymName().str();
  for (unsigned i = 0; i < f.getNumArguments(); ++i) {
    auto t = cast<RankedTensorType>(f.getArgument(i).getType());
    prog.args.push_back({argumentName(f, i), false, *dtypeOf(t.getElementType()),
                         std::vector<int64_t>(t.getShape().begin(), t.getShape().end())});
  }
  for (unsigned i = 0; i < f.getNumResults(); ++i) {
    auto t = cast<RankedTensorType>(f.getResultTypes()[i]);
    prog.args.push_back({resultName(f, i), true, *dtypeOf(t.getElementType()),
                         std::vector<int64_t>(t.getShape().begin(), t.getShape().end())});
  }
  if (auto s = f->getAttrOfType<IntegerAttr>(kScratchAttr)) prog.scratchBytes = s.getInt();
  std::map<std::string, Operation*> places;
  std::map<std::string, Operation*> kernelAt;
  for (KernelOp k : f.getOps<KernelOp>()) {
    FailureOr<KernelSpec> s = buildSpec(k, *arch, Stage::Emit, &places);
    if (failed(s)) return failure();
    kernelAt[s->where] = k;
    prog.kernels.push_back(std::move(*s));
  }
  try {
    return emitProgram(prog, *arch);
  } catch (const CompileError& e) {
    Operation* at = f;
    if (auto it = places.find(e.where); it != places.end()) at = it->second;
    return at->emitError(e.what()), failure();
  }
}

} // namespace chipless::tpuc
