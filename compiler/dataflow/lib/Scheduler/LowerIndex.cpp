//===- LowerIndex.cpp - linalg.index: a generic's loop indices as values --===//
//
// Part of chipless. See Lowering.h. `linalg.index d` in a linalg.generic body is the
// position along loop d of the element being computed (of the generic's own iteration
// space: the tile's value, not the global tensor), an i32 on the SFU (`arith.index_cast`
// to or from it changes nothing). The SFU has no iota, so the compute unit builds it:
//
//   - along the last loop (the lanes): a register holding 0, 1, .. in its lanes, made once
//     from sfu.lane.mask (lanes - 1 minus the number of masks a lane is under), then one
//     stick per stick column of the row (the register plus the column's first index),
//     read by every row (row stride 0);
//   - along a leading loop: one lane-uniform stick per position (sfu.splat), read with that
//     loop's stride and stride 0 along the others.
//
// An index value the body reads from outside it (a loop variable, the tile's position, an
// integer launch value, arithmetic on them) is one lane-uniform stick: sfu.splat.int of
// the value, computed by the compute engine's registers where the generic runs.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"
#include "dataflow/Dialect/Dfir/DfirOps.h"

using namespace mlir;

namespace chipless::sched {

FailureOr<TVal> Lowering::loopIndex(Operation* op, unsigned dim, ArrayRef<int64_t> shape) {
  const Location loc = op->getLoc();
  if (dim >= shape.size())
    return op->emitOpError("indexes loop ")
               << dim << " of a generic with " << shape.size() << " loops",
           failure();
  Type i32 = IntegerType::get(op->getContext(), 32);
  const int64_t stickBytes = stick(), lanesPerStick = lanes(i32);
  const bool lanesDim = dim + 1 == shape.size();
  // The sticks to write: the columns of one row, or one per position along `dim`.
  const int64_t extent = shape[dim];
  const int64_t sticks = lanesDim ? sticksOf(extent, i32) : extent;
  const int buffer = newBuffer(sticks * stickBytes, "linalg.index");
  const int group = newGroup();
  {
    Step& s = addStep(Engines::compute(0), loc, "index " + std::to_string(dim));
    s.group = group;
    s.emit = [=](ProgramWriter& pw, int) {
      TypeAttr t = TypeAttr::get(i32);
      auto splat = [&](const char* reg, double v) {
        pw.b.create<dfir::SfuSplatOp>(pw.loc, t, pw.str(reg), pw.b.getF64FloatAttr(v));
      };
      auto sfu = [&](const char* kind, const char* dst, const char* a, const char* b) {
        pw.b.create<dfir::SfuOp>(pw.loc, pw.str(kind), t, pw.c(1), pw.str(dst), StringAttr(),
                                 pw.str(a), b ? pw.str(b) : StringAttr(), StringAttr());
      };
      if (!lanesDim) {
        for (int64_t j = 0; j < sticks; ++j) {
          splat("v0", static_cast<double>(j));
          sfu("mov", "out0", "v0", nullptr);
        }
        return;
      }
      // v1 = the number of masks each lane is under; v0 = lanes - 1 - v1 = the lane.
      splat("v1", 0);
      for (int64_t k = 1; k < lanesPerStick; ++k) {
        pw.b.create<dfir::SfuLaneMaskOp>(pw.loc, t, pw.str("v2"), pw.c(k));
        sfu("add", "v1", "v1", "v2");
      }
      splat("v2", static_cast<double>(lanesPerStick - 1));
      sfu("sub", "v0", "v2", "v1");
      for (int64_t j = 0; j < sticks; ++j) {
        splat("v3", static_cast<double>(j * lanesPerStick));
        sfu("add", "out0", "v0", "v3");
      }
    };
  }
  streamSticksOut(group, loc, "st index " + std::to_string(dim), buffer, 0, sticks, stickBytes);
  TVal t;
  t.kind = TVal::Kind::Buffer;
  t.shape.assign(shape.begin(), shape.end());
  t.elem = i32;
  t.buffer = buffer;
  t.strides.assign(shape.size(), 0);
  if (lanesDim) {
    t.strides.back() = esize(i32); // one row, read by every row
    if (extent % lanesPerStick != 0) t.pad.reset();
  } else {
    t.strides[dim] = stickBytes; // a lane-uniform stick per position
    t.sparse = true;
  }
  return t;
}

FailureOr<TVal> Lowering::indexInStick(Location loc, const Expr& e, ArrayRef<int64_t> shape,
                                       Type elem) {
  Type i32 = IntegerType::get(func_.getContext(), 32);
  if (!elem) elem = i32;
  const int64_t stickBytes = stick();
  const int buffer = newBuffer(stickBytes, "index value");
  const int group = newGroup();
  {
    Step& s = addStep(Engines::compute(0), loc, "index value " + e.str());
    s.group = group;
    s.emit = [=](ProgramWriter& pw, int) {
      TypeAttr t = TypeAttr::get(elem);
      pw.b.create<dfir::SfuSplatIntOp>(pw.loc, t, pw.str("v0"), pw.get(e));
      pw.b.create<dfir::SfuOp>(pw.loc, pw.str("mov"), t, pw.c(1), pw.str("out0"), StringAttr(),
                               pw.str("v0"), StringAttr(), StringAttr());
    };
  }
  streamSticksOut(group, loc, "st index value", buffer, 0, 1, stickBytes);
  return uniformInStick(shape, elem, buffer);
}

} // namespace chipless::sched
