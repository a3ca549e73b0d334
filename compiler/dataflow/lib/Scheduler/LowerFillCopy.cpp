//===- LowerFillCopy.cpp - fills, copies and lane-uniform scalars ---------===//
//
// Part of chipless. See Lowering.h. Fills and copies are SFU moves (Lowering::elementwise
// in LowerCompute.cpp); a value needed in every lane of a stick is a constant, the stick
// of a lane-uniform buffer, or one element broadcast over its stick by folding the lanes;
// a vector broadcast along the lanes (a per-row scale) gets a stick per element
// (sfu.lane.bcast).
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"
#include "dataflow/Dialect/Dfir/DfirOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <algorithm>

using namespace mlir;

namespace chipless::sched {

void Lowering::streamSticksIn(int group, Location loc, const std::string& text, int buffer,
                              int64_t offset, int64_t sticks, std::optional<int64_t> pitch) {
  Step& s = addStep(Engines::load(0), loc, text);
  s.group = group;
  s.accesses.push_back(
      scratch(buffer, offset, (sticks - 1) * pitch.value_or(stick()) + stick(), false));
  s.emit = [=](ProgramWriter& pw, int) {
    pw.b.create<dfir::LdStreamOp>(pw.loc, pw.c(sticks), pw.str("in0"),
                                  pw.get(pw.addr(buffer, Expr(offset))),
                                  pitch ? pw.c(*pitch) : Value(), Value(), Value(), Value(),
                                  Value(), StringAttr(), Value(), Value(), Value(), Value());
  };
}

void Lowering::streamSticksOut(int group, Location loc, const std::string& text, int buffer,
                               int64_t offset, int64_t sticks, std::optional<int64_t> pitch) {
  Step& s = addStep(Engines::store(0), loc, text);
  s.group = group;
  s.accesses.push_back(
      scratch(buffer, offset, (sticks - 1) * pitch.value_or(stick()) + stick(), true));
  s.emit = [=](ProgramWriter& pw, int) {
    pw.b.create<dfir::StStreamOp>(
        pw.loc, pw.c(sticks), pw.str("out0"), pw.get(pw.addr(buffer, Expr(offset))),
        pitch ? pw.c(*pitch) : Value(), Value(), Value(), Value(), Value());
  };
}

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

FailureOr<Scalar> Lowering::scalarOf(const TVal& t, Location loc, bool alone) {
  if (t.kind == TVal::Kind::Uniform) return t.scalar;
  if (t.sparse) {
    Scalar s;
    s.isConst = false;
    s.buffer = t.buffer;
    s.offset = t.offset;
    return s;
  }
  if (t.offset % stick() != 0)
    return emitError(loc) << "needs one element of a tensor in every lane of a stick, but the "
                             "element is not the first of its stick (only reduction results "
                             "and one-element values can be broadcast)",
           failure();
  // Lane 0 holds the element and every other lane the padding value: folding the lanes
  // with the op whose identity the padding is puts the element in every lane. A padding
  // that is not known (a one-element result of an exchange, of arithmetic) is written.
  std::optional<double> pad = t.pad;
  if (!pad && !alone)
    return emitError(loc) << "needs one element of a tensor in every lane of a stick, but the "
                             "element is not alone in its stick (only reduction results and "
                             "one-element values can be broadcast)",
           failure();
  if (!pad) {
    TVal one = t;
    one.shape = {1};
    one.strides = {esize(t.elem)};
    auto padded = padRows(one, 0.0, loc);
    if (failed(padded)) return failure();
    pad = 0.0;
  }
  const char* kind = *pad == 0 ? "lane.add" : *pad < 0 ? "lane.max" : "lane.min";
  TVal out = newSparse({}, t.elem, "lane broadcast");
  const int group = newGroup();
  Type dtype = t.elem;
  streamSticksIn(group, loc, "ld lane broadcast", t.buffer, t.offset, 1, std::nullopt);
  {
    Step& s = addStep(Engines::compute(0), loc, std::string(kind) + " lane broadcast");
    s.group = group;
    std::string k = kind;
    s.emit = [k, dtype](ProgramWriter& pw, int) {
      pw.b.create<dfir::SfuOp>(pw.loc, pw.str(k), TypeAttr::get(dtype), pw.c(1), pw.str("out0"),
                               StringAttr(), pw.str("in0"), StringAttr(), StringAttr());
    };
  }
  streamSticksOut(group, loc, "st lane broadcast", out.buffer, 0, 1, std::nullopt);
  Scalar s;
  s.isConst = false;
  s.buffer = out.buffer;
  s.offset = 0;
  return s;
}

bool Lowering::broadcastsAlongLanes(const TVal& t) const {
  return t.kind == TVal::Kind::Buffer && !t.sparse && !t.shape.empty() && t.shape.back() > 1 &&
         t.strides.size() == t.shape.size() && t.strides.back() == 0;
}

FailureOr<TVal> Lowering::spreadAlongLanes(const TVal& t, Location loc) {
  // The dimensions that walk the vector, innermost first, must cover it contiguously.
  const int64_t es = esize(t.elem);
  std::vector<size_t> dims;
  for (size_t k = 0; k < t.shape.size(); ++k)
    if (t.strides[k] != 0 && t.shape[k] > 1) dims.push_back(k);
  std::sort(dims.begin(), dims.end(),
            [&](size_t a, size_t b) { return t.strides[a] < t.strides[b]; });
  int64_t elements = 1;
  for (size_t k : dims) {
    if (t.strides[k] != elements * es)
      return emitError(loc) << "broadcasts along the lanes a value whose elements are not one "
                               "contiguous vector in the scratchpad; not supported",
             failure();
    elements *= t.shape[k];
  }
  if (t.offset % stick() != 0)
    return emitError(loc) << "broadcasts along the lanes a vector that does not start on a "
                             "stick; not supported",
           failure();
  const int64_t lanesPerStick = lanes(t.elem), inSticks = sticksOf(elements, t.elem);
  TVal spread = newSparse({elements}, t.elem, "lane spread");
  const int group = newGroup();
  Type dtype = t.elem;
  streamSticksIn(group, loc, "ld lane spread", t.buffer, t.offset, inSticks, stick());
  {
    // Per input stick: into a register, then one result stick per element.
    Step& s = addStep(Engines::compute(0), loc, "lane.bcast lane spread");
    s.group = group;
    s.emit = [=](ProgramWriter& pw, int) {
      auto spreadStick = [&](int64_t count) {
        pw.b.create<dfir::SfuOp>(pw.loc, pw.str("mov"), TypeAttr::get(dtype), pw.c(1), pw.str("v0"),
                                 StringAttr(), pw.str("in0"), StringAttr(), StringAttr());
        pw.b.create<dfir::SfuOp>(pw.loc, pw.str("lane.bcast"), TypeAttr::get(dtype), pw.c(count),
                                 pw.str("out0"), StringAttr(), pw.str("v0"), StringAttr(),
                                 StringAttr());
      };
      const int64_t whole = elements / lanesPerStick, rest = elements % lanesPerStick;
      if (whole == 1) {
        spreadStick(lanesPerStick);
      } else if (whole > 1) {
        auto loop = pw.b.create<scf::ForOp>(pw.loc, pw.c(0), pw.c(whole), pw.c(1));
        OpBuilder::InsertionGuard guard(pw.b);
        pw.b.setInsertionPoint(loop.getBody()->getTerminator());
        spreadStick(lanesPerStick);
      }
      if (rest > 0) spreadStick(rest);
    };
  }
  streamSticksOut(group, loc, "st lane spread", spread.buffer, 0, elements, std::nullopt);
  // The vector's element j is stick j of the spread buffer.
  TVal out = t;
  out.buffer = spread.buffer;
  out.offset = 0;
  out.sparse = true;
  out.pad.reset();
  for (size_t k = 0; k < t.shape.size(); ++k)
    out.strides[k] = t.strides[k] == 0 ? 0 : t.strides[k] / es * stick();
  return out;
}

FailureOr<TVal> Lowering::packSparse(const TVal& t, Location loc) {
  if (t.strides != sparseStrides(t.shape) || t.offset % stick() != 0)
    return emitError(loc) << "packs values with one element per stick that are not laid out "
                             "one stick after the other; not supported",
           failure();
  const int64_t C = t.shape.back(), L = lanes(t.elem), spr = sticksOf(C, t.elem);
  const int64_t rows = t.elements() / C, whole = C / L, rest = C % L;
  TVal out = newDense(t.shape, t.elem, "packed");
  const int group = newGroup();
  const Type dtype = t.elem;
  streamSticksIn(group, loc, "ld pack", t.buffer, t.offset, rows * C, stick());
  {
    // Per result stick, lane l ascending: lanes from l up take element l (the lanes below
    // l keep theirs), so lane l ends with element l.
    Step& s = addStep(Engines::compute(0), loc, "pack " + std::to_string(C) + " per row");
    s.group = group;
    s.emit = [=](ProgramWriter& pw, int) {
      TypeAttr type = TypeAttr::get(dtype);
      auto packStick = [&](int64_t count) {
        for (int64_t l = 0; l < count; ++l) {
          pw.b.create<dfir::SfuLaneMaskOp>(pw.loc, type, pw.str("v1"), pw.c(l));
          pw.b.create<dfir::SfuOp>(pw.loc, pw.str("select"), type, pw.c(1), pw.str("v0"),
                                   pw.str("v1"), pw.str("v0"), pw.str("in0"), StringAttr());
        }
        pw.b.create<dfir::SfuOp>(pw.loc, pw.str("mov"), type, pw.c(1), pw.str("out0"), StringAttr(),
                                 pw.str("v0"), StringAttr(), StringAttr());
      };
      auto row = [&] {
        if (whole == 1) {
          packStick(L);
        } else if (whole > 1) {
          auto loop = pw.b.create<scf::ForOp>(pw.loc, pw.c(0), pw.c(whole), pw.c(1));
          OpBuilder::InsertionGuard guard(pw.b);
          pw.b.setInsertionPoint(loop.getBody()->getTerminator());
          packStick(L);
        }
        if (rest > 0) packStick(rest);
      };
      if (rows == 1) {
        row();
      } else {
        auto loop = pw.b.create<scf::ForOp>(pw.loc, pw.c(0), pw.c(rows), pw.c(1));
        OpBuilder::InsertionGuard guard(pw.b);
        pw.b.setInsertionPoint(loop.getBody()->getTerminator());
        row();
      }
    };
  }
  streamSticksOut(group, loc, "st pack", out.buffer, 0, rows * spr, std::nullopt);
  return out;
}

FailureOr<TVal> Lowering::padRows(const TVal& t, double value, Location loc) {
  std::vector<int64_t> shape = normShape(t);
  const size_t L = shape.size() - 1;
  const int64_t C = shape[L], spr = sticksOf(C, t.elem), last = C % lanes(t.elem);
  if (t.kind != TVal::Kind::Buffer || t.sparse || last == 0 ||
      (!t.strides.empty() && t.strides.back() != esize(t.elem)) || t.offset % stick() != 0)
    return emitError(loc) << "internal error: padding rows of a value that is not dense", failure();
  // The rows must chain into one strided dimension (count x pitch).
  int64_t rows = 1, pitch = stick(), expected = -1;
  for (size_t k = L; k-- > 0;) {
    if (shape[k] == 1) continue;
    if (expected >= 0 && t.strides[k] != expected)
      return emitError(loc) << "needs the lanes past each row's last element set, but the "
                               "rows of the value are not evenly spaced; not supported",
             failure();
    if (expected < 0) pitch = t.strides[k];
    rows *= shape[k];
    expected = t.strides[k] * shape[k];
  }
  const int64_t first = t.offset + (spr - 1) * stick(); // the last stick of row 0
  const int group = newGroup();
  Type dtype = t.elem;
  const int buffer = t.buffer;
  streamSticksIn(group, loc, "ld row padding", buffer, first, rows, pitch);
  {
    Step& s = addStep(Engines::compute(0), loc, "select row padding");
    s.group = group;
    s.emit = [=](ProgramWriter& pw, int) {
      pw.b.create<dfir::SfuLaneMaskOp>(pw.loc, TypeAttr::get(dtype), pw.str("v0"), pw.c(last));
      pw.b.create<dfir::SfuSplatOp>(pw.loc, TypeAttr::get(dtype), pw.str("v1"),
                                    pw.b.getF64FloatAttr(value));
      pw.b.create<dfir::SfuOp>(pw.loc, pw.str("select"), TypeAttr::get(dtype), pw.c(rows),
                               pw.str("out0"), pw.str("v0"), pw.str("in0"), pw.str("v1"),
                               StringAttr());
    };
  }
  streamSticksOut(group, loc, "st row padding", buffer, first, rows, pitch);
  // Other views of the buffer no longer know what their padding holds.
  for (auto& entry : values_)
    if (entry.second.kind == TVal::Kind::Buffer && entry.second.buffer == buffer)
      entry.second.pad.reset();
  for (auto& entry : destinations_)
    if (entry.second.buffer == buffer) entry.second.pad.reset();
  TVal out = t;
  out.pad = value;
  return out;
}

} // namespace chipless::sched
