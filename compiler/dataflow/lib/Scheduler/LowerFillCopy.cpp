//===- LowerFillCopy.cpp - fills, copies and lane-uniform scalars ---------===//
//
// Part of chipless. See Lowering.h. Fills and copies are SFU moves (Lowering::elementwise
// in LowerCompute.cpp); a value needed in every lane of a stick is a constant, the stick
// of a lane-uniform buffer, or one element broadcast over its stick by folding the lanes.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"
#include "dataflow/Dialect/Dfir/DfirOps.h"

using namespace mlir;

namespace chipless::sched {

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

} // namespace chipless::sched
