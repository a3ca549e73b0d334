//===- LowerCompute.cpp - SFU and PT-array work of a core -----------------===//
//
// Part of chipless. See Lowering.h. Elementwise ops become, per corelet, a stream of the
// load unit (one or two lanes of sticks into in0/in1), one SFU instruction over the
// sticks and a stream of the store unit; values in every lane sit in SFU registers
// (sfu.splat, or a stick moved in through in3). Reductions accumulate across sticks
// (sfu.acc.*) and fold the lanes (sfu.lane.*). Matmuls are in LowerMatmul.cpp.
//
// The work of an op is split over the corelets by its outermost rows, or by sticks when
// it has one row.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"
#include "dataflow/Dialect/Dfir/DfirOps.h"
#include "ktir/Dialect/Spyreop/SpyreopOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <cmath>

using namespace mlir;

namespace chipless::sched {

namespace {

/// How one operand (or the output) is walked over the iteration of an elementwise op.
struct Stream {
  int buffer = -1;
  int64_t offset = 0;      ///< bytes: the stick of element (0, ..., 0)
  int64_t stickStride = 0; ///< along the lanes: one stick (128) or 0 (lane-uniform broadcast)
  std::vector<int64_t> rowStrides; ///< per row dimension of the output
};

/// A register operand: a constant, or a stick pushed through in3.
struct RegOperand {
  std::string reg;
  Scalar scalar;
};

std::vector<int64_t> normShape(const TVal& t) {
  return t.shape.empty() ? std::vector<int64_t>{1} : t.shape;
}

/// Stream parameters (n0, s0, n1, s1, n2, s2) for an iteration: rows groups and sticks.
struct Walk {
  int64_t n0 = 1, n1 = 1, n2 = 1;
  int64_t total() const { return n0 * n1 * n2; }
};

int64_t sfuLanes(const Lowering& l, Type t) {
  return l.stick() / l.esize(t);
}

std::string portName(const char* prefix, int i) {
  return std::string(prefix) + std::to_string(i);
}

} // namespace

LogicalResult Lowering::elementwise(StringRef kind, ArrayRef<TVal> operands, const TVal& out,
                                    Location loc, const std::string& text, int corelet) {
  const int64_t stickBytes = stick();
  Type dtype = out.elem;
  for (const TVal& o : operands)
    if (isa<FloatType>(o.elem) || o.elem.isInteger(32)) {
      dtype = o.elem;
      break;
    }
  if (!isa<FloatType>(dtype) && !dtype.isInteger(32))
    return emitError(loc) << "computes on element type " << dtype
                          << ", which the SFU does not (f16, bf16, f32, i32)";
  if (esize(out.elem) != esize(dtype))
    return emitError(loc) << "converts between element types of different sizes (" << dtype
                          << " to " << out.elem << "); the SFU computes in one type per op";
  const int64_t lanesPerStick = sfuLanes(*this, dtype);
  // A result with one element per stick (arithmetic on reduction results): every element
  // is a row of one lane-uniform stick, so each value gets a trailing dimension of one.
  if (out.sparse && !out.shape.empty() && out.shape.back() != 1) {
    auto column = [&](TVal t) -> FailureOr<TVal> {
      if (t.kind == TVal::Kind::Buffer && !t.sparse)
        return emitError(loc) << "mixes a value with one element per stick (a reduction "
                                 "result) and a dense value of the same shape; broadcast "
                                 "the reduction result first",
               failure();
      t.shape.push_back(1);
      if (t.kind == TVal::Kind::Buffer) t.strides.push_back(0);
      return t;
    };
    std::vector<TVal> ops;
    for (const TVal& o : operands) {
      auto c = column(o);
      if (failed(c)) return failure();
      ops.push_back(*c);
    }
    auto o = column(out);
    if (failed(o)) return failure();
    return elementwise(kind, ops, *o, loc, text);
  }
  std::vector<int64_t> shape = normShape(out);
  const size_t L = shape.size() - 1;
  const int64_t C = shape[L];
  const int64_t spr = (C + lanesPerStick - 1) / lanesPerStick;

  auto streamOf = [&](const TVal& t, bool isOut) -> FailureOr<Stream> {
    Stream s;
    s.buffer = t.buffer;
    s.offset = t.offset;
    std::vector<int64_t> st =
        t.strides.empty() ? std::vector<int64_t>{t.sparse ? stickBytes : esize(t.elem)} : t.strides;
    std::vector<int64_t> ts = normShape(t);
    if (ts != shape)
      return emitError(loc) << "operand shape does not match the result (internal error)",
             failure();
    if (C == 1) {
      s.stickStride = 0;
    } else if (!t.sparse && st[L] == esize(t.elem)) {
      s.stickStride = stickBytes;
    } else if (t.sparse && st[L] == 0) {
      s.stickStride = 0;
    } else if (st[L] == 0) {
      return emitError(loc) << "broadcasts a value along the lanes that is not the same in "
                               "every lane of its stick",
             failure();
    } else if (t.sparse) {
      return emitError(loc) << "mixes a value with one element per stick (a reduction "
                               "result) and a dense value of the same shape; broadcast the "
                               "reduction result first",
             failure();
    } else {
      return emitError(loc) << "reads a value whose last dimension is not contiguous in the "
                               "scratchpad (a transposed or strided view); re-laying out is "
                               "not supported",
             failure();
    }
    if (s.offset % stickBytes != 0)
      return emitError(loc) << "reads a value that does not start on a stick (a slice inside a "
                               "stick); re-laying out is not supported",
             failure();
    for (size_t k = 0; k < L; ++k) {
      if (shape[k] > 1 && st[k] % stickBytes != 0)
        return emitError(loc) << "reads a value whose rows do not start on sticks", failure();
      s.rowStrides.push_back(st[k]);
    }
    (void)isOut;
    return s;
  };

  std::vector<Stream> streams; // streamed operands
  std::vector<RegOperand> regs;
  std::vector<std::string> ports; // per operand: "in0", "v2", ...
  int nextReg = 0;
  for (const TVal& o : operands) {
    if (o.kind == TVal::Kind::Uniform) {
      RegOperand r;
      r.reg = portName("v", nextReg++);
      r.scalar = o.scalar;
      // i1 constants (select masks) and other types: the value as a number.
      regs.push_back(r);
      ports.push_back(r.reg);
      continue;
    }
    auto s = streamOf(o, false);
    if (failed(s)) return failure();
    ports.push_back(portName("in", static_cast<int>(streams.size())));
    streams.push_back(*s);
  }
  if (streams.size() > 3)
    return emitError(loc) << "streams more than three operands through the SFU";
  auto outStream = streamOf(out, true);
  if (failed(outStream)) return failure();

  // Row groups: adjacent row dimensions that every stream walks with chained strides.
  std::vector<std::pair<int64_t, std::vector<int64_t>>> groups; // count, stride per stream (+out)
  auto all = [&]() {
    std::vector<const Stream*> v;
    for (const Stream& s : streams) v.push_back(&s);
    v.push_back(&*outStream);
    return v;
  }();
  for (size_t k = 0; k < L; ++k) {
    if (shape[k] == 1) continue;
    std::vector<int64_t> strides;
    for (const Stream* s : all) strides.push_back(s->rowStrides[k]);
    if (!groups.empty()) {
      auto& [count, gs] = groups.back();
      bool chain = true;
      for (size_t i = 0; i < all.size(); ++i) chain &= gs[i] == strides[i] * shape[k];
      if (chain) {
        count *= shape[k];
        gs = strides;
        continue;
      }
    }
    groups.push_back({shape[k], strides});
  }
  if (groups.size() > 2)
    return emitError(loc) << "walks more than two strided row dimensions; not supported";

  const int corelets = arch_.chip.corelets_per_core;
  const int group = newGroup();
  // Work of each corelet: a range of the outermost group (or of the sticks).
  for (int l = 0; l < corelets; ++l) {
    int64_t g0Begin = 0, g0Count = groups.empty() ? 1 : groups.front().first;
    int64_t sBegin = 0, sCount = spr;
    if (corelet >= 0) {
      if (l != corelet) continue; // all of it on the one corelet
    } else if (!groups.empty()) {
      int64_t per = (g0Count + corelets - 1) / corelets;
      g0Begin = l * per;
      g0Count = std::min(g0Count, g0Begin + per) - g0Begin;
    } else {
      int64_t per = (spr + corelets - 1) / corelets;
      sBegin = l * per;
      sCount = std::min(spr, sBegin + per) - sBegin;
    }
    if (g0Count <= 0 || sCount <= 0) continue;
    Walk w;
    w.n0 = sCount;
    std::vector<int64_t> s1(all.size(), 0), s2(all.size(), 0);
    if (groups.size() == 1) {
      w.n1 = g0Count;
      for (size_t i = 0; i < all.size(); ++i) s1[i] = groups[0].second[i];
    } else if (groups.size() == 2) {
      w.n1 = groups[1].first;
      w.n2 = g0Count;
      for (size_t i = 0; i < all.size(); ++i) {
        s1[i] = groups[1].second[i];
        s2[i] = groups[0].second[i];
      }
    }
    std::vector<int64_t> start(all.size());
    for (size_t i = 0; i < all.size(); ++i) {
      start[i] = all[i]->offset + sBegin * all[i]->stickStride;
      if (!groups.empty()) start[i] += g0Begin * groups.front().second[i];
    }
    auto range = [&](size_t i) {
      int64_t lo = start[i], hi = start[i] + stickBytes;
      auto span = [&](int64_t count, int64_t stride) {
        int64_t x = (count - 1) * stride;
        if (x < 0)
          lo += x;
        else
          hi += x;
      };
      span(w.n0, all[i]->stickStride);
      span(w.n1, s1[i]);
      span(w.n2, s2[i]);
      return std::make_pair(lo, hi);
    };
    const std::string where = " (corelet " + std::to_string(l) + ")";
    // Load unit: register sticks, then the streams.
    {
      Step& s = addStep(Engines::load(l), loc, "ld " + text + where);
      s.group = group;
      for (size_t i = 0; i < streams.size(); ++i) {
        auto [lo, hi] = range(i);
        s.accesses.push_back(scratch(streams[i].buffer, lo, hi - lo, false));
      }
      for (const RegOperand& r : regs)
        if (!r.scalar.isConst)
          s.accesses.push_back(scratch(r.scalar.buffer, r.scalar.offset, stickBytes, false));
      std::vector<Stream> ss = streams;
      std::vector<RegOperand> rr = regs;
      s.emit = [ss, rr, w, start, s1, s2, all = all.size()](ProgramWriter& pw, int) {
        for (const RegOperand& r : rr)
          if (!r.scalar.isConst)
            pw.b.create<dfir::LdStreamOp>(pw.loc, pw.c(1), pw.str("in3"),
                                          pw.get(pw.addr(r.scalar.buffer, Expr(r.scalar.offset))),
                                          Value(), Value(), Value(), Value(), Value(), StringAttr(),
                                          Value(), Value(), Value(), Value());
        (void)all;
        for (size_t i = 0; i < ss.size(); i += 2) {
          bool dual = i + 1 < ss.size() && i == 0;
          auto addr = pw.get(pw.addr(ss[i].buffer, Expr(start[i])));
          Value n1 = w.n1 > 1 ? pw.c(w.n1) : Value(), n2 = w.n2 > 1 ? pw.c(w.n2) : Value();
          Value s1v = w.n1 > 1 ? pw.c(s1[i]) : Value(), s2v = w.n2 > 1 ? pw.c(s2[i]) : Value();
          Value s0v = pw.c(ss[i].stickStride);
          StringAttr fifoB;
          Value addrB, sb0, sb1, sb2;
          if (dual) {
            fifoB = pw.str("in1");
            addrB = pw.get(pw.addr(ss[i + 1].buffer, Expr(start[i + 1])));
            sb0 = pw.c(ss[i + 1].stickStride);
            if (w.n1 > 1) sb1 = pw.c(s1[i + 1]);
            if (w.n2 > 1) sb2 = pw.c(s2[i + 1]);
          }
          pw.b.create<dfir::LdStreamOp>(pw.loc, pw.c(w.n0),
                                        pw.str(portName("in", static_cast<int>(i))), addr, s0v, s1v,
                                        s2v, n1, n2, fifoB, addrB, sb0, sb1, sb2);
          if (!dual) {
            // The third operand: its own stream (after the dual one).
            continue;
          }
        }
      };
    }
    // Compute unit.
    {
      Step& s = addStep(Engines::compute(l), loc, std::string(kind) + " " + text + where);
      s.group = group;
      std::vector<RegOperand> rr = regs;
      std::vector<std::string> pp = ports;
      std::string k = kind.str();
      int64_t n = w.total();
      s.emit = [rr, pp, k, n, dtype](ProgramWriter& pw, int) {
        for (const RegOperand& r : rr) {
          if (r.scalar.isConst)
            pw.b.create<dfir::SfuSplatOp>(pw.loc, TypeAttr::get(dtype), pw.str(r.reg),
                                          pw.b.getF64FloatAttr(r.scalar.value));
          else
            pw.b.create<dfir::SfuOp>(pw.loc, pw.str("mov"), TypeAttr::get(dtype), pw.c(1),
                                     pw.str(r.reg), StringAttr(), pw.str("in3"), StringAttr(),
                                     StringAttr());
        }
        StringAttr cond, a, b, c;
        if (k == "select") {
          cond = pw.str(pp[0]);
          a = pw.str(pp[1]);
          b = pw.str(pp[2]);
        } else {
          a = pw.str(pp[0]);
          if (pp.size() > 1) b = pw.str(pp[1]);
          if (pp.size() > 2) c = pw.str(pp[2]);
        }
        pw.b.create<dfir::SfuOp>(pw.loc, pw.str(k), TypeAttr::get(dtype), pw.c(n), pw.str("out0"),
                                 cond, a, b, c);
      };
    }
    // Store unit.
    {
      Step& s = addStep(Engines::store(l), loc, "st " + text + where);
      s.group = group;
      size_t o = all.size() - 1;
      auto [lo, hi] = range(o);
      s.accesses.push_back(scratch(outStream->buffer, lo, hi - lo, true));
      int buffer = outStream->buffer;
      int64_t st0 = start[o], os1 = s1[o], os2 = s2[o], ss0 = outStream->stickStride;
      s.emit = [buffer, st0, os1, os2, ss0, w](ProgramWriter& pw, int) {
        pw.b.create<dfir::StStreamOp>(
            pw.loc, pw.c(w.n0), pw.str("out0"), pw.get(pw.addr(buffer, Expr(st0))),
            pw.c(ss0 ? ss0 : 128), w.n1 > 1 ? pw.c(os1) : Value(), w.n2 > 1 ? pw.c(os2) : Value(),
            w.n1 > 1 ? pw.c(w.n1) : Value(), w.n2 > 1 ? pw.c(w.n2) : Value());
      };
    }
    if (streams.size() == 3 && w.total() > arch_.fifo.depth_sticks)
      return emitError(loc) << "streams three operands over more than " << arch_.fifo.depth_sticks
                            << " sticks (the FIFO depth) per corelet; not supported yet";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Fills, copies, scalars
//===----------------------------------------------------------------------===//

LogicalResult Lowering::fill(const TVal& t, const Scalar& s, Location loc) {
  TVal u;
  u.kind = TVal::Kind::Uniform;
  u.shape = t.shape;
  u.elem = t.elem;
  u.scalar = s;
  TVal dst = t;
  return elementwise("mov", {u}, dst, loc, "fill buf" + std::to_string(t.buffer));
}

LogicalResult Lowering::copyInto(const TVal& src, const TVal& dst, Location loc) {
  TVal s = src;
  s.shape = dst.shape;
  if (s.kind == TVal::Kind::Buffer && s.strides.size() != dst.shape.size())
    return emitError(loc) << "internal error: copy between values of different ranks";
  return elementwise("mov", {s}, dst, loc, "copy to buf" + std::to_string(dst.buffer));
}

FailureOr<TVal> Lowering::materialize(const TVal& t, Location loc, const std::string& what) {
  if (t.kind == TVal::Kind::Buffer && !t.sparse && t.strides == denseStrides(t.shape, t.elem))
    return t;
  if (t.kind == TVal::Kind::Buffer && t.sparse) return t;
  TVal out = newDense(t.shape, t.elem, what);
  if (failed(copyInto(t, out, loc))) return failure();
  return out;
}

FailureOr<Scalar> Lowering::scalarOf(const TVal& t, Location loc) {
  if (t.kind == TVal::Kind::Uniform) return t.scalar;
  if (t.sparse) {
    Scalar s;
    s.isConst = false;
    s.buffer = t.buffer;
    s.offset = t.offset;
    return s;
  }
  if (t.offset % stick() != 0 || !t.pad)
    return emitError(loc) << "needs one element of a tensor in every lane of a stick, but the "
                             "element is not alone in its stick (only reduction results and "
                             "one-element tiles can be broadcast)",
           failure();
  // Lane 0 holds the element and every other lane the padding value: folding the lanes
  // with the op whose identity the padding is puts the element in every lane.
  const char* kind = *t.pad == 0 ? "lane.add" : *t.pad < 0 ? "lane.max" : "lane.min";
  TVal out = newSparse({}, t.elem, "lane broadcast");
  const int group = newGroup();
  Type dtype = t.elem;
  {
    Step& s = addStep(Engines::load(0), loc, "ld lane broadcast");
    s.group = group;
    s.accesses.push_back(scratch(t.buffer, t.offset, stick(), false));
    int buffer = t.buffer;
    int64_t off = t.offset;
    s.emit = [buffer, off](ProgramWriter& pw, int) {
      pw.b.create<dfir::LdStreamOp>(
          pw.loc, pw.c(1), pw.str("in0"), pw.get(pw.addr(buffer, Expr(off))), Value(), Value(),
          Value(), Value(), Value(), StringAttr(), Value(), Value(), Value(), Value());
    };
  }
  {
    Step& s = addStep(Engines::compute(0), loc, std::string(kind) + " lane broadcast");
    s.group = group;
    std::string k = kind;
    s.emit = [k, dtype](ProgramWriter& pw, int) {
      pw.b.create<dfir::SfuOp>(pw.loc, pw.str(k), TypeAttr::get(dtype), pw.c(1), pw.str("out0"),
                               StringAttr(), pw.str("in0"), StringAttr(), StringAttr());
    };
  }
  {
    Step& s = addStep(Engines::store(0), loc, "st lane broadcast");
    s.group = group;
    s.accesses.push_back(scratch(out.buffer, 0, stick(), true));
    int buffer = out.buffer;
    s.emit = [buffer](ProgramWriter& pw, int) {
      pw.b.create<dfir::StStreamOp>(pw.loc, pw.c(1), pw.str("out0"), pw.get(pw.addr(buffer)),
                                    Value(), Value(), Value(), Value(), Value());
    };
  }
  Scalar s;
  s.isConst = false;
  s.buffer = out.buffer;
  s.offset = 0;
  return s;
}

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

namespace {

/// The SFU kind of a scalar or tensor elementwise op; "" if it is not one.
std::string sfuKind(Operation* op) {
  if (isa<arith::AddFOp, arith::AddIOp, linalg::AddOp>(op)) return "add";
  if (isa<arith::SubFOp, arith::SubIOp, linalg::SubOp>(op)) return "sub";
  if (isa<arith::MulFOp, arith::MulIOp, linalg::MulOp>(op)) return "mul";
  if (isa<arith::DivFOp, linalg::DivOp, spyreop::RealDivOp>(op)) return "div";
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
  return std::nullopt;
}

} // namespace

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
    TVal u;
    u.kind = TVal::Kind::Uniform;
    u.shape.assign(shape.begin(), shape.end());
    u.elem = elem;
    u.scalar.value = *v;
    return u;
  }
  for (TVal& t : operands) t.shape.assign(shape.begin(), shape.end());
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
    TVal u;
    u.kind = TVal::Kind::Uniform;
    u.shape.assign(shape.begin(), shape.end());
    u.elem = elem;
    u.scalar.isConst = false;
    u.scalar.buffer = one.buffer;
    u.scalar.offset = 0;
    return u;
  }
  TVal out = dest ? *dest : freshBuffer();
  if (failed(l.elementwise(kind, operands, out, op->getLoc(), op->getName().getStringRef().str())))
    return failure();
  out.pad.reset();
  return out;
}

LogicalResult Lowering::lowerElementwise(Operation* op) {
  std::string kind = sfuKind(op);
  if (kind.empty()) {
    if (isa<arith::ExtFOp, arith::TruncFOp, arith::SIToFPOp, arith::FPToSIOp>(op))
      return op->emitOpError("converts element types; the SFU computes in one type per op and "
                             "type conversions are not supported");
    return op->emitOpError("is not an elementwise op the SFU runs");
  }
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
  auto r = computeElementwise(*this, op, kind, operands, elem, shape, destPtr, [&] {
    if (!isa<RankedTensorType>(result.getType())) return newSparse({}, elem, "scalar");
    return resultBuffer(op, result, operands, op->getName().getStringRef().str());
  });
  if (failed(r)) return failure();
  bind(result, *r);
  return success();
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
  auto lookup = [&](Value v) -> FailureOr<TVal> {
    auto it = local.find(v);
    if (it != local.end()) return it->second;
    return value(v); // defined outside the body
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
    std::string kind = sfuKind(&inner);
    if (kind.empty())
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
    auto r = computeElementwise(*this, &inner, kind, operands, res.getType(), shape, destPtr, [&] {
      Type e = res.getType().isInteger(1) ? operands.front().elem : res.getType();
      bool sparse = !shape.empty() && llvm::all_of(operands, [&](const TVal& t) {
        return t.kind == TVal::Kind::Uniform || (t.sparse && t.strides == sparseStrides(shape));
      });
      return sparse ? newSparse(shape, e, "linalg.generic") : newDense(shape, e, "linalg.generic");
    });
    if (failed(r)) return failure();
    local[res] = *r;
  }
  auto r = lookup(yielded);
  if (failed(r)) return failure();
  bind(op.getResult(0), *r);
  return success();
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

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
  const int64_t lanesPerStick = sfuLanes(*this, dtype);
  const int64_t C = shape[L];
  const int64_t spr = (C + lanesPerStick - 1) / lanesPerStick;
  std::vector<bool> reduced(shape.size(), false);
  for (int64_t d : op.getDimensions())
    reduced[static_cast<size_t>(src.shape.empty() ? 0 : d)] = true;
  const bool lanesReduced = reduced[L];
  if (lanesReduced && C % lanesPerStick != 0 && !(src.pad && *src.pad == identity))
    return op.emitOpError("reduces rows of ")
           << C
           << " elements, which end inside a stick, and the rest of the stick does not "
              "hold the reduction's identity (only values loaded straight from memory are "
              "padded with it)";
  if (src.strides.back() != esize(src.elem) || src.offset % stick() != 0)
    return op.emitOpError("reduces a value that is not laid out in whole sticks");
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
