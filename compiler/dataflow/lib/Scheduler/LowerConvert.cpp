//===- LowerConvert.cpp - element type conversions of tensors ------------===//
//
// Part of chipless. See Lowering.h. arith.extf, truncf, sitofp and fptosi of a tensor (alone
// or in a linalg.generic body) run on the SFU's sfu.cvt, streamed like any elementwise op but
// with a stick geometry of their own: a 16-bit stick holds 64 lanes and a 32-bit one 32, so
//
//   - between types of one size (f32 <-> i32, f16 <-> bf16), stick j of a row becomes stick j;
//   - widening (f16, bf16 -> f32): two passes, half 0 of input stick j to output stick 2j and
//     half 1 to stick 2j + 1;
//   - narrowing (f32 -> f16, bf16): input sticks 2j and 2j + 1 (streamed side by side) make
//     output stick j, and an odd last stick makes the last output stick alone.
//
// A lane-uniform value (one element per stick: a reduction result) converts stick for stick
// (a narrowing reads the same stick twice, so every lane stays equal); constants fold.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"
#include "dataflow/Dialect/Dfir/DfirIsa.h"
#include "dataflow/Dialect/Dfir/DfirOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"

#include <cmath>
#include <limits>

using namespace mlir;

namespace chipless::sched {

namespace {

/// One pass of a conversion over every row: output stick j of a row (from `outFirst`, every
/// `outEvery` sticks) is made of input sticks `inFirst + j * inEvery` (and, narrowing,
/// `+ 1`), for `count` sticks per row.
struct Pass {
  int64_t count = 0;
  int64_t inFirst = 0, inEvery = 1, outFirst = 0, outEvery = 1;
  bool pair = false; ///< narrowing: the next input stick fills the second half
  int part = 0;      ///< widening: which half of the input stick
};

/// The value of `x` (of element type `from`) converted to `to` at compile time.
double foldConversion(double x, Type to) {
  if (!to.isInteger(32)) return x;
  if (std::isnan(x)) return 0;
  return std::trunc(std::clamp(x, static_cast<double>(std::numeric_limits<int32_t>::min()),
                               static_cast<double>(std::numeric_limits<int32_t>::max())));
}

} // namespace

bool Lowering::isConversion(Operation* op) {
  return isa<arith::ExtFOp, arith::TruncFOp, arith::SIToFPOp, arith::FPToSIOp>(op);
}

FailureOr<TVal> Lowering::convert(Operation* op, const TVal& given, Type to,
                                  ArrayRef<int64_t> shape) {
  const Location loc = op->getLoc();
  const Type from = given.elem;
  std::optional<DType> dFrom = dfir::dtypeOf(from), dTo = dfir::dtypeOf(to);
  if (!dFrom || !dTo)
    return op->emitOpError("converts ")
               << from << " to " << to << "; the SFU converts between f16, bf16, f32 and i32",
           failure();
  if (given.kind == TVal::Kind::Uniform && given.scalar.isConst) {
    TVal u = given;
    u.elem = to;
    u.shape.assign(shape.begin(), shape.end());
    u.scalar.value = foldConversion(given.scalar.value, to);
    return u;
  }
  const int64_t stickBytes = stick();
  const int64_t lanesFrom = lanes(from), lanesTo = lanes(to);
  const bool widen = lanesFrom == 2 * lanesTo, narrow = lanesTo == 2 * lanesFrom;

  // The source as rows of sticks: a lane-uniform stick (a launch value, a value computed
  // once), sticks with one element each, or a dense value in its canonical layout.
  TVal src = given;
  int64_t rows = 1, inSticks = 1, outSticks = 1;
  TVal out;
  if (src.kind == TVal::Kind::Uniform && !src.scalar.inBuffer()) {
    // A launch value: its stick first.
    TVal one = newSparse({}, from, "converted scalar");
    if (failed(fill(one, src.scalar, loc))) return failure();
    src.scalar.isConst = false;
    src.scalar.symbol.clear();
    src.scalar.buffer = one.buffer;
    src.scalar.offset = 0;
  }
  if (src.kind == TVal::Kind::Uniform) {
    TVal one;
    one.kind = TVal::Kind::Buffer;
    one.elem = from;
    one.buffer = src.scalar.buffer;
    one.offset = src.scalar.offset;
    one.sparse = true;
    src = one;
    out = newSparse({}, to, "converted scalar");
  } else if (src.sparse &&
             llvm::all_of(src.strides, [&](int64_t s) { return s >= 0 && s % stickBytes == 0; })) {
    // Its sticks as they lie (a broadcast reads one stick for many elements): each
    // converted, the value read through the same strides.
    int64_t span = stickBytes;
    for (size_t d = 0; d < src.shape.size(); ++d) span += (src.shape[d] - 1) * src.strides[d];
    rows = span / stickBytes;
    out = src;
    out.elem = to;
    out.offset = 0;
    out.pad.reset();
    out.buffer = newBuffer(span, op->getName().getStringRef().str());
    out.shape.assign(shape.begin(), shape.end());
    src.shape = {rows};
    src.strides = {stickBytes};
  } else {
    auto m = materialize(src, loc, "converted value");
    if (failed(m)) return failure();
    src = *m;
    std::vector<int64_t> norm = normShape(src);
    for (size_t i = 0; i + 1 < norm.size(); ++i) rows *= norm[i];
    inSticks = sticksOf(norm.back(), from);
    outSticks = sticksOf(norm.back(), to);
    out = newDense(shape, to, op->getName().getStringRef().str());
  }
  const bool uniformLanes = src.sparse; // every lane of a stick equal

  std::vector<Pass> passes;
  if (widen && !uniformLanes) {
    passes.push_back({(outSticks + 1) / 2, 0, 1, 0, 2, false, 0});
    if (outSticks / 2 > 0) passes.push_back({outSticks / 2, 0, 1, 1, 2, false, 1});
  } else if (narrow && !uniformLanes) {
    if (inSticks / 2 > 0) passes.push_back({inSticks / 2, 0, 2, 0, 1, true, 0});
    if (inSticks % 2) passes.push_back({1, inSticks - 1, 1, outSticks - 1, 1, false, 0});
  } else {
    // One size, or a lane-uniform stick: stick for stick (a narrowing reads it twice).
    passes.push_back({inSticks, 0, 1, 0, 1, narrow, 0});
  }

  const int64_t inRow = inSticks * stickBytes, outRow = outSticks * stickBytes;
  const int corelets = arch_.chip.corelets_per_core;
  const std::string text = op->getName().getStringRef().str();
  for (const Pass& p : passes) {
    const int group = newGroup();
    const int64_t per = (rows + corelets - 1) / corelets;
    for (int l = 0; l < corelets; ++l) {
      const int64_t first = l * per, count = std::min(rows, first + per) - first;
      if (count <= 0) continue;
      const std::string where = " (corelet " + std::to_string(l) + ")";
      const int64_t inStart = src.offset + first * inRow + p.inFirst * stickBytes;
      const int64_t outStart = out.offset + first * outRow + p.outFirst * stickBytes;
      const int64_t inStep = p.inEvery * stickBytes, outStep = p.outEvery * stickBytes;
      // b of a pair: the next input stick (or, lane-uniform, the same one).
      const int64_t pairStart = uniformLanes ? inStart : inStart + stickBytes;
      {
        Step& s = addStep(Engines::load(l), loc, "ld " + text + where);
        s.group = group;
        s.accesses.push_back(scratch(src.buffer, src.offset + first * inRow, count * inRow, false));
        const int buffer = src.buffer;
        const bool pair = p.pair;
        const int64_t n0 = p.count;
        s.emit = [=](ProgramWriter& pw, int) {
          Value n1 = count > 1 ? pw.c(count) : Value(), s1 = count > 1 ? pw.c(inRow) : Value();
          StringAttr fifoB;
          Value addrB, sb0, sb1;
          if (pair) {
            fifoB = pw.str("in1");
            addrB = pw.get(pw.addr(buffer, Expr(pairStart)));
            sb0 = pw.c(inStep);
            if (count > 1) sb1 = pw.c(inRow);
          }
          pw.b.create<dfir::LdStreamOp>(pw.loc, pw.c(n0), pw.str("in0"),
                                        pw.get(pw.addr(buffer, Expr(inStart))), pw.c(inStep), s1,
                                        Value(), n1, Value(), fifoB, addrB, sb0, sb1, Value());
        };
      }
      {
        Step& s = addStep(Engines::compute(l), loc, "cvt " + text + where);
        s.group = group;
        const int64_t n = p.count * count;
        const bool pair = p.pair;
        const int part = p.part;
        const std::string fromName = dtypeName(*dFrom);
        s.emit = [=](ProgramWriter& pw, int) {
          pw.b.create<dfir::SfuCvtOp>(pw.loc, TypeAttr::get(to), pw.c(n), pw.str("out0"),
                                      pw.str("in0"), pair ? pw.str("in1") : StringAttr(),
                                      pw.str(fromName), part ? pw.c(part) : Value());
        };
      }
      {
        Step& s = addStep(Engines::store(l), loc, "st " + text + where);
        s.group = group;
        s.accesses.push_back(scratch(out.buffer, out.offset + first * outRow, count * outRow, true));
        const int buffer = out.buffer;
        const int64_t n0 = p.count;
        s.emit = [=](ProgramWriter& pw, int) {
          pw.b.create<dfir::StStreamOp>(pw.loc, pw.c(n0), pw.str("out0"),
                                        pw.get(pw.addr(buffer, Expr(outStart))), pw.c(outStep),
                                        count > 1 ? pw.c(outRow) : Value(), Value(),
                                        count > 1 ? pw.c(count) : Value(), Value());
        };
      }
    }
  }
  if (given.kind == TVal::Kind::Uniform) return uniformInStick(shape, to, out.buffer);
  if (src.pad && !to.isInteger(32) && !from.isInteger(32)) out.pad = src.pad;
  return out;
}

} // namespace chipless::sched
