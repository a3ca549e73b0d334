//===- LowerReduce.cpp - linalg.reduce on the SFU -------------------------===//
//
// Part of chipless. See Lowering.h. A reduction accumulates across sticks (sfu.acc.*) and,
// when it reduces the lanes, folds them (sfu.lane.*); output elements or rows are split
// over the corelets.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"
#include "dataflow/Dialect/Dfir/DfirOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <cmath>

using namespace mlir;

namespace chipless::sched {

namespace {

/// add, max or min: the reduction a linalg.reduce combiner computes.
std::string combinerKind(Region& region) {
  Block& b = region.front();
  SmallVector<Operation*> ops;
  for (Operation& op : b.without_terminator()) ops.push_back(&op);
  Value in = b.getArgument(0), out = b.getArgument(1);
  if (ops.size() == 1) {
    Operation* op = ops[0];
    if (isa<arith::AddFOp, arith::AddIOp>(op)) return "add";
    if (isa<arith::MaximumFOp, arith::MaxNumFOp, arith::MaxSIOp>(op)) return "max";
    if (isa<arith::MinimumFOp, arith::MinNumFOp, arith::MinSIOp>(op)) return "min";
    return "";
  }
  if (ops.size() == 2) {
    auto cmp = dyn_cast<arith::CmpFOp>(ops[0]);
    auto sel = dyn_cast<arith::SelectOp>(ops[1]);
    if (!cmp || !sel || sel.getCondition() != cmp.getResult()) return "";
    auto p = cmp.getPredicate();
    bool greater = p == arith::CmpFPredicate::OGT || p == arith::CmpFPredicate::OGE ||
                   p == arith::CmpFPredicate::UGT || p == arith::CmpFPredicate::UGE;
    bool less = p == arith::CmpFPredicate::OLT || p == arith::CmpFPredicate::OLE ||
                p == arith::CmpFPredicate::ULT || p == arith::CmpFPredicate::ULE;
    if (!greater && !less) return "";
    // select(lhs > rhs, lhs, rhs) = max; with the values swapped, min.
    bool same = sel.getTrueValue() == cmp.getLhs() && sel.getFalseValue() == cmp.getRhs();
    bool swapped = sel.getTrueValue() == cmp.getRhs() && sel.getFalseValue() == cmp.getLhs();
    if (!same && !swapped) return "";
    bool operandsOk =
        (cmp.getLhs() == in && cmp.getRhs() == out) || (cmp.getLhs() == out && cmp.getRhs() == in);
    if (!operandsOk) return "";
    return (greater == same) ? "max" : "min";
  }
  return "";
}

double identityOf(const std::string& kind) {
  if (kind == "max") return -INFINITY;
  if (kind == "min") return INFINITY;
  return 0.0;
}

} // namespace

LogicalResult Lowering::lowerReduce(Operation* o) {
  auto op = cast<linalg::ReduceOp>(o);
  if (op.getInputs().size() != 1)
    return op.emitOpError("reduces several tensors at once; not supported");
  std::string kind = combinerKind(op.getCombiner());
  if (kind.empty())
    return op.emitOpError("has a combiner that is not add, max or min (the SFU accumulates "
                          "with those; a multiplication or other fold is not supported)");
  auto in = value(op.getInputs()[0]);
  auto init = value(op.getInits()[0]);
  if (failed(in) || failed(init)) return failure();
  TVal src = *in;
  if (src.kind == TVal::Kind::Uniform) {
    auto m = materialize(src, op.getLoc(), "reduce input");
    if (failed(m)) return failure();
    src = *m;
  }
  if (src.sparse) return op.emitOpError("reduces a value that is already one element per stick");
  const double identity = identityOf(kind);
  std::vector<int64_t> shape = normShape(src);
  const size_t L = shape.size() - 1;
  Type dtype = src.elem;
  const int64_t lanesPerStick = lanes(dtype);
  const int64_t C = shape[L];
  const int64_t spr = (C + lanesPerStick - 1) / lanesPerStick;
  std::vector<bool> reduced(shape.size(), false);
  for (int64_t d : op.getDimensions())
    reduced[static_cast<size_t>(src.shape.empty() ? 0 : d)] = true;
  const bool lanesReduced = reduced[L];
  if (src.strides.back() != esize(src.elem) || src.offset % stick() != 0)
    return op.emitOpError("reduces a value that is not laid out in whole sticks");
  // Rows that end inside a stick: the rest of the stick must hold the identity.
  if (lanesReduced && C % lanesPerStick != 0 && !(src.pad && *src.pad == identity)) {
    auto padded = padRows(src, identity, op.getLoc());
    if (failed(padded)) return failure();
    src = *padded;
  }
  // Kept and reduced row dimensions must each chain into one strided dimension.
  auto chain = [&](bool wantReduced, int64_t& count, int64_t& stride) -> bool {
    count = 1;
    stride = 0;
    int64_t expected = -1;
    for (size_t k = L; k-- > 0;) {
      if (reduced[k] != wantReduced || shape[k] == 1) continue;
      if (expected >= 0 && src.strides[k] != expected) return false;
      if (expected < 0) stride = src.strides[k];
      count *= shape[k];
      expected = src.strides[k] * shape[k];
    }
    return true;
  };
  int64_t keptCount, keptStride, redCount, redStride;
  if (!chain(false, keptCount, keptStride) || !chain(true, redCount, redStride))
    return op.emitOpError("reduces over dimensions that do not lie one after the other; not "
                          "supported");
  auto resType = cast<RankedTensorType>(op.getResult(0).getType());
  std::vector<int64_t> resShape(resType.getShape().begin(), resType.getShape().end());
  TVal out = lanesReduced ? newSparse(resShape, dtype, "linalg.reduce")
                          : newDense(resShape, dtype, "linalg.reduce");
  // The init: the identity needs nothing; another constant is folded in at the end.
  std::optional<double> initValue;
  if (init->kind == TVal::Kind::Uniform && init->scalar.isConst) {
    if (init->scalar.value != identity) initValue = init->scalar.value;
  } else {
    return op.emitOpError("starts from an init that is not a constant; not supported yet");
  }

  const int corelets = arch_.chip.corelets_per_core;
  const int group = newGroup();
  // Output elements (lanes reduced) or output rows (lanes kept) are split over corelets.
  const int64_t units = keptCount;
  for (int l = 0; l < corelets; ++l) {
    int64_t per = (units + corelets - 1) / corelets;
    int64_t begin = l * per, count = std::min(units, begin + per) - begin;
    if (count <= 0) continue;
    const std::string where = " (corelet " + std::to_string(l) + ")";
    int64_t inStart = src.offset + begin * keptStride;
    // Load: lanes reduced: per element, spr sticks x redCount rows; lanes kept: per row,
    // spr columns x redCount rows.
    int64_t n0, s0, n1, s1, n2 = count, s2 = keptStride;
    if (lanesReduced) {
      n0 = spr;
      s0 = stick();
      n1 = redCount;
      s1 = redStride;
    } else {
      n0 = redCount;
      s0 = redStride;
      n1 = spr;
      s1 = stick();
    }
    {
      Step& s = addStep(Engines::load(l), op.getLoc(), "ld linalg.reduce" + where);
      s.group = group;
      int64_t span = (n0 - 1) * s0 + (n1 - 1) * s1 + (n2 - 1) * s2 + stick();
      s.accesses.push_back(scratch(src.buffer, inStart, span, false));
      int buffer = src.buffer;
      s.emit = [=](ProgramWriter& pw, int) {
        pw.b.create<dfir::LdStreamOp>(
            pw.loc, pw.c(n0), pw.str("in0"), pw.get(pw.addr(buffer, Expr(inStart))), pw.c(s0),
            n1 > 1 ? pw.c(s1) : Value(), n2 > 1 ? pw.c(s2) : Value(), n1 > 1 ? pw.c(n1) : Value(),
            n2 > 1 ? pw.c(n2) : Value(), StringAttr(), Value(), Value(), Value(), Value());
      };
    }
    {
      Step& s = addStep(Engines::compute(l), op.getLoc(), "acc." + kind + " linalg.reduce" + where);
      s.group = group;
      // Per output element: splat the identity, accumulate the sticks, fold the lanes.
      int64_t outer = lanesReduced ? count : count * spr;
      int64_t perElement = lanesReduced ? spr * redCount : redCount;
      s.emit = [=](ProgramWriter& pw, int) {
        auto body = [&]() {
          pw.b.create<dfir::SfuSplatOp>(pw.loc, TypeAttr::get(dtype), pw.str("v0"),
                                        pw.b.getF64FloatAttr(identity));
          pw.b.create<dfir::SfuOp>(pw.loc, pw.str("acc." + kind), TypeAttr::get(dtype),
                                   pw.c(perElement), pw.str("v0"), StringAttr(), pw.str("in0"),
                                   StringAttr(), StringAttr());
          std::string result = "v0";
          if (lanesReduced) {
            pw.b.create<dfir::SfuOp>(pw.loc, pw.str("lane." + kind), TypeAttr::get(dtype), pw.c(1),
                                     pw.str("v1"), StringAttr(), pw.str("v0"), StringAttr(),
                                     StringAttr());
            result = "v1";
          }
          if (initValue) {
            pw.b.create<dfir::SfuSplatOp>(pw.loc, TypeAttr::get(dtype), pw.str("v2"),
                                          pw.b.getF64FloatAttr(*initValue));
            pw.b.create<dfir::SfuOp>(pw.loc, pw.str(kind), TypeAttr::get(dtype), pw.c(1),
                                     pw.str(result), StringAttr(), pw.str(result), pw.str("v2"),
                                     StringAttr());
          }
          pw.b.create<dfir::SfuOp>(pw.loc, pw.str("mov"), TypeAttr::get(dtype), pw.c(1),
                                   pw.str("out0"), StringAttr(), pw.str(result), StringAttr(),
                                   StringAttr());
        };
        if (outer == 1) {
          body();
          return;
        }
        auto loop = pw.b.create<scf::ForOp>(pw.loc, pw.c(0), pw.c(outer), pw.c(1));
        OpBuilder::InsertionGuard guard(pw.b);
        pw.b.setInsertionPoint(loop.getBody()->getTerminator());
        body();
      };
    }
    {
      Step& s = addStep(Engines::store(l), op.getLoc(), "st linalg.reduce" + where);
      s.group = group;
      int buffer = out.buffer;
      int64_t outStart, sn0, ss0, sn1 = 1, ss1 = 0;
      if (lanesReduced) {
        outStart = begin * stick();
        sn0 = count;
        ss0 = stick();
      } else {
        std::vector<int64_t> os = out.strides;
        int64_t rowStride = os.size() >= 2 ? os[os.size() - 2] : stick();
        outStart = begin * rowStride;
        sn0 = spr;
        ss0 = stick();
        sn1 = count;
        ss1 = rowStride;
      }
      int64_t span = (sn0 - 1) * ss0 + (sn1 - 1) * ss1 + stick();
      s.accesses.push_back(scratch(buffer, outStart, span, true));
      s.emit = [=](ProgramWriter& pw, int) {
        pw.b.create<dfir::StStreamOp>(
            pw.loc, pw.c(sn0), pw.str("out0"), pw.get(pw.addr(buffer, Expr(outStart))), pw.c(ss0),
            sn1 > 1 ? pw.c(ss1) : Value(), Value(), sn1 > 1 ? pw.c(sn1) : Value(), Value());
      };
    }
  }
  bind(op.getResult(0), out);
  return success();
}

} // namespace chipless::sched
