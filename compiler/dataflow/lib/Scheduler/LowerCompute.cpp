//===- LowerCompute.cpp - elementwise work on the SFU streams -------------===//
//
// Part of chipless. See Lowering.h. An elementwise computation becomes, per corelet, a
// stream of the load unit (one or two lanes of sticks into in0/in1), one SFU instruction
// over the sticks and a stream of the store unit; values in every lane sit in SFU
// registers (sfu.splat, or a stick moved in through in3). Which ops compute elementwise is
// decided in LowerElementwise.cpp; reductions are in LowerReduce.cpp, matmuls in
// LowerMatmul.cpp.
//
// The work of an op is split over the corelets by its outermost rows, or by sticks when
// it has one row.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"
#include "dataflow/Dialect/Dfir/DfirOps.h"

#include <cstring>

using namespace mlir;

namespace chipless::sched {

namespace {

/// How one operand (or the output) is walked over the iteration of an elementwise op.
struct Stream {
  int buffer = -1;
  int64_t offset = 0;      ///< bytes: the stick of element (0, ..., 0)
  int64_t stickStride = 0; ///< along the lanes: one stick (chip.stick_bytes) or 0 (broadcast)
  std::vector<int64_t> rowStrides; ///< per row dimension of the output
};

/// A register operand: a constant, or a stick pushed through in3.
struct RegOperand {
  std::string reg;
  Scalar scalar;
};

/// Stream parameters (n0, s0, n1, s1, n2, s2) for an iteration: rows groups and sticks.
struct Walk {
  int64_t n0 = 1, n1 = 1, n2 = 1;
  int64_t total() const { return n0 * n1 * n2; }
};

std::string portName(const char* prefix, int i) {
  return std::string(prefix) + std::to_string(i);
}

} // namespace

LogicalResult Lowering::elementwise(StringRef kind, ArrayRef<TVal> given, const TVal& out,
                                    Location loc, const std::string& text, int corelet) {
  const int64_t stickBytes = stick();
  // A vector broadcast along the lanes (a per-row value) is read from a stick per element.
  std::vector<TVal> operands(given.begin(), given.end());
  for (TVal& o : operands)
    if (broadcastsAlongLanes(o)) {
      auto spread = spreadAlongLanes(o, loc);
      if (failed(spread)) return failure();
      o = *spread;
    } else if (!out.sparse && o.kind == TVal::Kind::Buffer && o.sparse && !o.shape.empty() &&
               o.shape.back() > 1 && o.strides.size() == o.shape.size() && o.strides.back() != 0) {
      // Reduction results beside dense values: packed into dense rows first.
      auto packed = packSparse(o, loc);
      if (failed(packed)) return failure();
      o = *packed;
    }
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
  const int64_t lanesPerStick = lanes(dtype);
  // A result with one element per stick (arithmetic on reduction results): every element
  // is a row of one lane-uniform stick, so each value gets a trailing dimension of one.
  if (out.sparse && !out.shape.empty() && out.shape.back() != 1) {
    auto column = [&](TVal t) -> FailureOr<TVal> {
      if (t.kind == TVal::Kind::Buffer && !t.sparse) {
        // A dense value beside reduction results (a running maximum carried by a loop):
        // each of its elements spread into a lane-uniform stick of its own.
        auto spread = spreadAlongLanes(t, loc);
        if (failed(spread)) return failure();
        t = *spread;
      }
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
      if (dtype.isInteger(32) && o.elem.isF32()) {
        // A float among i32 lanes (selected by an integer comparison): its bits, which the
        // i32 select copies as they are.
        if (!o.scalar.isConst && !o.scalar.symbol.empty())
          return emitError(loc) << "selects a real launch value by an integer condition; "
                                   "compare as floats (sitofp), or select a tensor";
        if (o.scalar.isConst) {
          const float f = static_cast<float>(o.scalar.value);
          int32_t bits;
          std::memcpy(&bits, &f, sizeof bits);
          r.scalar.value = static_cast<double>(bits);
        }
      }
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
        if (r.scalar.inBuffer())
          s.accesses.push_back(scratch(r.scalar.buffer, r.scalar.offset, stickBytes, false));
      std::vector<Stream> ss = streams;
      std::vector<RegOperand> rr = regs;
      s.emit = [ss, rr, w, start, s1, s2, all = all.size()](ProgramWriter& pw, int) {
        for (const RegOperand& r : rr)
          if (r.scalar.inBuffer())
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
          else if (!r.scalar.symbol.empty())
            pw.b.create<dfir::SfuSplatOp>(
                pw.loc, TypeAttr::get(dtype), pw.str(r.reg),
                FlatSymbolRefAttr::get(pw.b.getContext(), r.scalar.symbol));
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
      const int64_t oneStick = stick();
      s.emit = [buffer, st0, os1, os2, ss0, oneStick, w](ProgramWriter& pw, int) {
        pw.b.create<dfir::StStreamOp>(
            pw.loc, pw.c(w.n0), pw.str("out0"), pw.get(pw.addr(buffer, Expr(st0))),
            pw.c(ss0 ? ss0 : oneStick), w.n1 > 1 ? pw.c(os1) : Value(),
            w.n2 > 1 ? pw.c(os2) : Value(), w.n1 > 1 ? pw.c(w.n1) : Value(),
            w.n2 > 1 ? pw.c(w.n2) : Value());
      };
    }
    if (streams.size() == 3 && w.total() > arch_.fifo.depth_sticks)
      return emitError(loc) << "streams three operands over more than " << arch_.fifo.depth_sticks
                            << " sticks (the FIFO depth) per corelet; not supported yet";
  }
  return success();
}

} // namespace chipless::sched
