//===- LowerMatmul.cpp - linalg.matmul on the PT arrays -------------------===//
//
// Part of chipless. See Lowering.h. A matmul C = A x B (+ init) becomes tiles of the
// output that fit the PT array's fp32 accumulators (pt.accumulator_bytes), handed to the
// corelets in turn. Per tile, the corelet's load unit streams the k x n weights of B and
// then the m x k rows of A, the compute unit runs pt.mm, and the store unit writes the
// m x n result.
//
// With a non-zero init (accumulation through scf.for iter_args: C = A x B + C), the
// accumulators cannot be preloaded: each tile's product goes to a staging buffer of its
// corelet and the same corelet's SFU adds it to the init, so the corelets never wait for
// each other and the init may be the result buffer itself.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"
#include "dataflow/Dialect/Dfir/DfirOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <optional>

using namespace mlir;

namespace chipless::sched {

namespace {

/// One output tile of a matmul.
struct MatmulTile {
  int64_t m0, m, n0, n;
};

/// A rows x cols window at (row, col) of the 2-D value `t` (a strided view).
TVal window(const TVal& t, int64_t row, int64_t col, int64_t rows, int64_t cols, int64_t es) {
  TVal w = t;
  w.shape = {rows, cols};
  w.offset = t.offset + row * t.strides[0] + col * es;
  w.pad.reset();
  return w;
}

} // namespace

LogicalResult Lowering::lowerMatmul(Operation* o) {
  auto op = cast<linalg::MatmulOp>(o);
  auto a = value(op.getInputs()[0]), b = value(op.getInputs()[1]), c = value(op.getOutputs()[0]);
  if (failed(a) || failed(b) || failed(c)) return failure();
  TVal A = *a, B = *b;
  for (TVal* t : {&A, &B}) {
    auto m = materialize(*t, op.getLoc(), "matmul operand");
    if (failed(m)) return failure();
    *t = *m;
    if (t->sparse) return op.emitOpError("multiplies a value that is one element per stick");
  }
  if (A.shape.size() != 2 || B.shape.size() != 2)
    return op.emitOpError("multiplies tensors that are not matrices");
  const int64_t M = A.shape[0], K = A.shape[1], N = B.shape[1];
  // The PT array takes f16 and bf16: an f32 operand is rounded to f16 first (sfu.cvt), and
  // the products accumulate in fp32 as for any matmul.
  for (TVal* t : {&A, &B})
    if (t->elem.isF32()) {
      auto h = convert(op, *t, Float16Type::get(op.getContext()), t->shape);
      if (failed(h)) return failure();
      *t = *h;
    }
  Type dtype = A.elem;
  if (!(dtype.isF16() || dtype.isBF16()) || B.elem != dtype)
    return op.emitOpError("multiplies ")
           << A.elem << " by " << B.elem
           << " matrices; the PT array takes f16 or bf16 (f32 is rounded to f16 first)";
  // K and N need not be whole sticks: rows are padded to whole sticks in the scratchpad,
  // and pt.mm ignores A's lanes past K and writes zeros past N.
  const int64_t lanesPerStick = lanes(dtype);
  auto resType = cast<RankedTensorType>(op.getResult(0).getType());
  Type outElem = resType.getElementType();
  const std::string outName = outElem.isF32() ? "f32" : outElem.isBF16() ? "bf16" : "f16";
  const bool addInit =
      !(c->kind == TVal::Kind::Uniform && c->scalar.isConst && c->scalar.value == 0);
  TVal C = resultBuffer(op, op.getResult(0), {}, "linalg.matmul");
  TVal init = *c;
  if (addInit) {
    auto m = materialize(init, op.getLoc(), "matmul init");
    if (failed(m)) return failure();
    init = *m;
    if (init.sparse || init.shape.size() != 2 || esize(init.elem) != esize(C.elem))
      return op.emitOpError("accumulates into an init that is not a dense matrix of its type");
  }

  // Tiles within the accumulators, as square as the shape allows (n in whole sticks): a
  // square tile streams the fewest operand sticks per MAC, and a row of tiles finishes
  // whole rows of C early (a chunked store of C can then start).
  const int64_t accElems = arch_.pt.accumulator_bytes / 4;
  int64_t side = 1;
  while ((side + 1) * (side + 1) <= accElems) ++side;
  const int64_t rows = std::min(M, side);
  const int64_t nt =
      std::min<int64_t>(N, std::max<int64_t>(lanesPerStick, accElems / std::max<int64_t>(rows, 1) /
                                                                lanesPerStick * lanesPerStick));
  // The accumulators hold whole sticks of a tile's rows.
  const int64_t mt = std::min<int64_t>(M, accElems / (sticksOf(nt, dtype) * lanesPerStick));
  if (mt <= 0) return op.emitOpError("internal error: empty matmul tile");
  std::vector<MatmulTile> tiles;
  for (int64_t m0 = 0; m0 < M; m0 += mt)
    for (int64_t n0 = 0; n0 < N; n0 += nt)
      tiles.push_back({m0, std::min(mt, M - m0), n0, std::min(nt, N - n0)});

  const int corelets = arch_.chip.corelets_per_core;
  const int64_t es = esize(dtype), esOut = esize(C.elem);
  const int64_t pitchA = A.strides[0], pitchB = B.strides[0];
  // Staging buffers of the products when an init is added, one per corelet.
  std::vector<TVal> staging;
  if (addInit)
    for (int l = 0; l < corelets && l < static_cast<int>(tiles.size()); ++l)
      staging.push_back(
          newDense({mt, nt}, C.elem, "matmul product (corelet " + std::to_string(l) + ")"));
  // In the first iteration of a loop that starts the accumulator (C itself) as zeros, the
  // product is the result: the PT array's output goes straight to C and nothing is added.
  std::optional<Expr> first; // 1 in that iteration, else 0
  if (addInit && init.buffer == C.buffer && init.offset == C.offset && init.strides == C.strides) {
    auto it = zeroInFirstIteration_.find(C.buffer);
    if (it != zeroInFirstIteration_.end() && it->second == current_)
      first = Expr(1) - min(Expr(1), Expr::var(current_->loop) - current_->lb);
  }
  std::vector<TVal> products(tiles.size()); // where each tile's product went
  // C tile = product + init tile, on the tile's corelet.
  auto accumulate = [&](size_t t) {
    const MatmulTile& tile = tiles[t];
    const int l = static_cast<int>(t % static_cast<size_t>(corelets));
    return elementwise(
        "add", {products[t], window(init, tile.m0, tile.n0, tile.m, tile.n, esOut)},
        window(C, tile.m0, tile.n0, tile.m, tile.n, esOut), op.getLoc(),
        "matmul accumulate tile " + std::to_string(t) + " (corelet " + std::to_string(l) + ")", l);
  };
  const int64_t stickBytes = stick(); // the stride of one stick, for the streams below
  for (size_t t = 0; t < tiles.size(); ++t) {
    const MatmulTile tile = tiles[t];
    const int l = static_cast<int>(t % static_cast<size_t>(corelets));
    const std::string where = " tile " + std::to_string(t) + " (corelet " + std::to_string(l) + ")";
    // Where the PT array's result goes: C itself, or the corelet's staging buffer.
    products[t] = addInit ? window(staging[static_cast<size_t>(l)], 0, 0, tile.m, tile.n, esOut)
                          : window(C, tile.m0, tile.n0, tile.m, tile.n, esOut);
    const TVal& dst = products[t];
    const int group = newGroup();
    {
      Step& s = addStep(Engines::load(l), op.getLoc(), "ld linalg.matmul" + where);
      s.group = group;
      int64_t bStart = B.offset + tile.n0 * es, aStart = A.offset + tile.m0 * pitchA;
      // Whole sticks: a row that ends inside a stick is read to the stick's end.
      const int64_t nSticks = sticksOf(tile.n, dtype), kSticks = sticksOf(K, dtype);
      s.accesses.push_back(
          scratch(B.buffer, bStart, (K - 1) * pitchB + nSticks * stickBytes, false));
      s.accesses.push_back(
          scratch(A.buffer, aStart, (tile.m - 1) * pitchA + kSticks * stickBytes, false));
      int bufA = A.buffer, bufB = B.buffer;
      s.emit = [=](ProgramWriter& pw, int) {
        // Weights first (the array loads them before it streams A).
        pw.b.create<dfir::LdStreamOp>(
            pw.loc, pw.c(nSticks), pw.str("in1"), pw.get(pw.addr(bufB, Expr(bStart))),
            pw.c(stickBytes), K > 1 ? pw.c(pitchB) : Value(), Value(), K > 1 ? pw.c(K) : Value(),
            Value(), StringAttr(), Value(), Value(), Value(), Value());
        pw.b.create<dfir::LdStreamOp>(pw.loc, pw.c(kSticks), pw.str("in0"),
                                      pw.get(pw.addr(bufA, Expr(aStart))), pw.c(stickBytes),
                                      tile.m > 1 ? pw.c(pitchA) : Value(), Value(),
                                      tile.m > 1 ? pw.c(tile.m) : Value(), Value(), StringAttr(),
                                      Value(), Value(), Value(), Value());
      };
    }
    {
      Step& s = addStep(Engines::compute(l), op.getLoc(), "pt.mm linalg.matmul" + where);
      s.group = group;
      s.emit = [=](ProgramWriter& pw, int) {
        pw.b.create<dfir::PtMmOp>(pw.loc, TypeAttr::get(dtype), pw.c(tile.m), pw.c(K), pw.c(tile.n),
                                  pw.str("in0"), pw.str("in1"), pw.str("out0"), Value(), Value(),
                                  pw.str(outName));
      };
    }
    {
      Step& s = addStep(Engines::store(l), op.getLoc(), "st linalg.matmul" + where);
      s.group = group;
      const int64_t outSticks = sticksOf(tile.n, C.elem), pitch = dst.strides[0];
      s.accesses.push_back(
          scratch(dst.buffer, dst.offset, (tile.m - 1) * pitch + outSticks * stickBytes, true));
      const TVal direct = window(C, tile.m0, tile.n0, tile.m, tile.n, esOut);
      if (first)
        s.accesses.push_back(scratch(direct.buffer, direct.offset,
                                     (tile.m - 1) * direct.strides[0] + outSticks * stickBytes,
                                     true));
      const int buf = dst.buffer, bufC = direct.buffer;
      const int64_t start = dst.offset, startC = direct.offset, pitchC = direct.strides[0];
      const std::optional<Expr> f = first;
      s.emit = [=](ProgramWriter& pw, int) {
        Expr addr = pw.addr(buf, Expr(start)), rowPitch(pitch);
        if (f) { // the staging buffer, or C in the first iteration
          addr = addr + *f * (pw.addr(bufC, Expr(startC)) - addr);
          rowPitch = rowPitch + *f * Expr(pitchC - pitch);
        }
        pw.b.create<dfir::StStreamOp>(pw.loc, pw.c(outSticks), pw.str("out0"), pw.get(addr),
                                      pw.c(stickBytes), tile.m > 1 ? pw.get(rowPitch) : Value(),
                                      Value(), tile.m > 1 ? pw.c(tile.m) : Value(), Value());
      };
    }
    // The corelet adds the product as soon as it is stored. (Adding it after the
    // corelet's next tile keeps the PT array busier, but delays the first results of a
    // loop's last iteration, whose stores then end later.)
    if (!addInit) continue;
    Node* outer =
        first ? openConditional(Expr(1) - *first, "matmul: not the first iteration") : current_;
    LogicalResult ok = accumulate(t);
    current_ = outer;
    if (failed(ok)) return failure();
  }
  // Without an init the PT array wrote every row's lanes past N as zeros.
  if (!addInit && N % lanes(C.elem) != 0) C.pad = 0.0;
  bind(op.getResult(0), C);
  return success();
}

} // namespace chipless::sched
