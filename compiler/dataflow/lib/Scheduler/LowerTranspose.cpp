//===- LowerTranspose.cpp - linalg.transpose ------------------------------===//
//
// Part of chipless. See Lowering.h. The load and store units move whole sticks in order and
// the SFU works lane by lane, except for sfu.lane.bcast (lane i of a stick in every lane of
// result stick i). A matrix [R, C] whose transposed rows fit one stick (R at most the
// lanes of a stick) is transposed on the SFU with it: row r of the input is spread a stick
// per element (lane.bcast), and a select writes lane r of every output row from it, the
// condition row r of an R x R identity (built once from lane positions, held in a
// register while the select streams the output rows). That costs about
// 2 C sticks of SFU work per input row and no device memory.
//
// Any other transpose goes through device memory: the DMA out engine writes the tile
// (rank 2 or 3, B x R x C) packed to a job buffer (one region per core), and the DMA in
// engine reads it back permuted with the byte-granular dma.loadb: one element per run (one
// row per run when the innermost dimension stays innermost), the output's dimensions as
// the DMA's loop levels. Each run costs the whole stick it touches in device memory, so the
// price of a transpose is what the modelled DMA charges for those gathers, not a constant.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"
#include "dataflow/Dialect/Dfir/DfirOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Sequence.h"

#include <array>
#include <string>
#include <vector>

using namespace mlir;

namespace chipless::sched {

FailureOr<TVal> Lowering::transposeOnChip(Operation* op, const TVal& src) {
  const Location loc = op->getLoc();
  const int64_t R = src.shape[0], C = src.shape[1];
  const Type elem = src.elem, i32 = IntegerType::get(op->getContext(), 32);
  // The identity [R, R] in the element type: position along the lanes == position along
  // the rows.
  auto lanePos = loopIndex(op, 1, {R, R});
  auto rowPos = loopIndex(op, 0, {R, R});
  if (failed(lanePos) || failed(rowPos)) return failure();
  TVal eye = newDense({R, R}, i32, "transpose identity");
  if (failed(elementwise("eq", {*lanePos, *rowPos}, eye, loc, "transpose identity")))
    return failure();
  if (elem != i32) {
    auto converted = convert(op, eye, elem, {R, R});
    if (failed(converted)) return failure();
    eye = *converted;
  }
  TVal dst = newDense({C, R}, elem, "transpose");
  Scalar zero;
  if (failed(fill(dst, zero, loc))) return failure();
  for (int64_t r = 0; r < R; ++r) {
    // Row r of the input along the output's rows (spread a stick per element), and row r
    // of the identity read by every output row.
    TVal row = src;
    row.offset = src.offset + r * src.strides[0];
    row.shape = {C, R};
    row.strides = {src.strides[1], 0};
    row.pad.reset();
    // The condition is one stick (R <= lanes): the SFU holds it in a register for every
    // output row, as it holds a lane-uniform value (the select reads it lane by lane).
    TVal cond = uniformInStick({C, R}, elem, eye.buffer);
    cond.scalar.offset = eye.offset + r * eye.strides[0];
    if (failed(elementwise("select", {cond, row, dst}, dst, loc,
                           "transpose row " + std::to_string(r))))
      return failure();
  }
  dst.pad.reset();
  return dst;
}

LogicalResult Lowering::lowerTranspose(Operation* op) {
  auto transpose = cast<linalg::TransposeOp>(op);
  const Location loc = op->getLoc();
  ArrayRef<int64_t> perm = transpose.getPermutation();
  auto in = value(transpose.getInput());
  if (failed(in)) return failure();
  const size_t rank = static_cast<size_t>(in->rank());
  if (rank < 2 || rank > 3)
    return op->emitError() << "transposes a rank-" << rank
                           << " tensor; the Dataflow Scheduler transposes tiles of rank 2 and 3 "
                              "(the DMA engines loop over at most three dimensions)",
           failure();
  if (in->kind == TVal::Kind::Buffer && in->sparse)
    return op->emitError() << "transposes a reduction result (one element per stick); "
                              "broadcast it to a dense tile first",
           failure();
  if (llvm::equal(perm, llvm::seq<int64_t>(0, static_cast<int64_t>(rank)))) {
    bind(transpose.getResult()[0], *in); // identity: a view of the input
    return success();
  }
  auto src = materialize(*in, loc, "transpose input");
  if (failed(src)) return failure();
  // (Taller tiles would need a step per input row; hundreds of rows make the schedule too
  // large to plan quickly, so they stay on the DMA path.)
  if (rank == 2 && perm[0] == 1 && src->shape[0] <= lanes(src->elem) &&
      src->offset % stick() == 0 && src->strides[0] % stick() == 0 &&
      src->strides[1] == esize(src->elem)) {
    auto t = transposeOnChip(op, *src);
    if (failed(t)) return failure();
    bind(transpose.getResult()[0], *t);
    return success();
  }
  // The input as rank 3 (a leading 1 for rank 2): [B, R, C], and the permutation with it.
  std::vector<int64_t> inShape = src->shape, inStrides = src->strides;
  std::vector<int64_t> p(perm.begin(), perm.end());
  if (rank == 2) {
    inShape.insert(inShape.begin(), 1);
    inStrides.insert(inStrides.begin(), src->shape[0] * src->strides[0]);
    p = {0, p[0] + 1, p[1] + 1};
  }
  const int64_t B = inShape[0], R = inShape[1], C = inShape[2], es = esize(src->elem);
  const int64_t stickBytes = stick();
  const int64_t tileBytes = B * R * C * es;
  const int64_t regionBytes = (tileBytes + stickBytes - 1) / stickBytes * stickBytes;
  // One region of the job buffer per core, so the cores never share bytes.
  const std::string name = "transpose" + std::to_string(transposes_++);
  out_.deviceBuffers[name] = regionBytes * numTiles();
  const Expr base = Expr::sym(name) + Expr(regionBytes * core());
  std::vector<int64_t> resShape;
  for (int64_t d : perm) resShape.push_back(src->shape[static_cast<size_t>(d)]);
  TVal dst = resultBuffer(op, transpose.getResult()[0], {}, "transpose");
  if (dst.kind != TVal::Kind::Buffer || dst.strides != denseStrides(resShape, src->elem))
    dst = newDense(resShape, src->elem, "transpose");
  std::vector<int64_t> outStrides = dst.strides;
  if (rank == 2) outStrides.insert(outStrides.begin(), resShape[0] * outStrides[0]);
  std::vector<int64_t> outShape = {inShape[static_cast<size_t>(p[0])],
                                   inShape[static_cast<size_t>(p[1])],
                                   inShape[static_cast<size_t>(p[2])]};
  // The tile's bytes in device memory, packed: element (b, r, c) at (b R C + r C + c) es.
  const std::vector<int64_t> packed = {R * C * es, C * es, es};

  // The two steps stay in separate op groups: the synchroniser must order the read-back
  // after the write (device memory) and after the store has read the source (scratchpad).
  Access global;
  global.space = Access::Space::Global;
  global.arg = name;
  global.lo = Expr(regionBytes * core());
  global.hi = Expr(regionBytes * core() + tileBytes);

  // 1. The tile out to device memory, rows packed (whole sticks when they allow it).
  const bool whole = (C * es) % stickBytes == 0 && inStrides[1] % stickBytes == 0 &&
                     inStrides[0] % stickBytes == 0 && src->offset % stickBytes == 0;
  {
    Step& s = addStep(Engines::dmaOut(), loc,
                      std::string(whole ? "dma.store" : "dma.storeb") + " transpose " +
                          std::to_string(B) + "x" + std::to_string(R) + "x" + std::to_string(C) +
                          " -> " + name);
    s.async = true;
    s.accesses.push_back(scratch(src->buffer, src->offset,
                                 (B - 1) * inStrides[0] + (R - 1) * inStrides[1] + C * es, false));
    Access g = global;
    g.write = true;
    s.accesses.push_back(g);
    const int buffer = src->buffer;
    const int64_t offset = src->offset, rowStride = inStrides[1], slabStride = inStrides[0];
    s.emit = [=](ProgramWriter& w, int done) {
      Value sp = w.get(w.addr(buffer, Expr(offset)));
      Value mem = w.get(base);
      Value doneV = done >= 0 ? w.c(done) : Value();
      Value n1 = w.c(R), ms1 = w.c(C * es), ss1 = w.c(rowStride);
      Value n2 = B > 1 ? w.c(B) : Value(), ms2 = B > 1 ? w.c(R * C * es) : Value(),
            ss2 = B > 1 ? w.c(slabStride) : Value();
      if (whole)
        w.b.create<dfir::DmaStoreOp>(w.loc, sp, mem, w.c(C * es), n1, ms1, ss1, n2, ms2, ss2,
                                     Value(), Value(), Value(), doneV);
      else
        w.b.create<dfir::DmaStoreBytesOp>(w.loc, sp, mem, w.c(C * es), n1, ms1, ss1, n2, ms2, ss2,
                                          Value(), Value(), Value(), doneV);
    };
  }
  // 2. Back in, permuted: output element (o0, o1, o2) is input element o_k at position
  //    p[k], so its packed address is sum_k o_k packed[p[k]]. Runs are one element, or
  //    whole rows when the innermost dimension stays innermost.
  {
    const bool rows = p[2] == 2;
    const int64_t runBytes = rows ? C * es : es;
    std::string text = "dma.loadb transpose " + name + " -> ";
    for (size_t k = 0; k < rank; ++k) text += (k ? "x" : "") + std::to_string(resShape[k]);
    text += rows ? " (one row per run)" : " (one element per run)";
    Step& s = addStep(Engines::dmaIn(), loc, text);
    s.async = true;
    s.accesses.push_back(scratch(dst.buffer, dst.offset,
                                 (outShape[0] - 1) * outStrides[0] +
                                     (outShape[1] - 1) * outStrides[1] + outShape[2] * es,
                                 true));
    s.accesses.push_back(global);
    const int buffer = dst.buffer;
    const int64_t offset = dst.offset;
    // Loop levels from the innermost: (count, device stride, scratchpad stride).
    std::vector<std::array<int64_t, 3>> levels;
    if (!rows) levels.push_back({outShape[2], packed[static_cast<size_t>(p[2])], es});
    levels.push_back({outShape[1], packed[static_cast<size_t>(p[1])], outStrides[1]});
    if (outShape[0] > 1)
      levels.push_back({outShape[0], packed[static_cast<size_t>(p[0])], outStrides[0]});
    s.emit = [=](ProgramWriter& w, int done) {
      Value sp = w.get(w.addr(buffer, Expr(offset)));
      Value mem = w.get(base);
      Value doneV = done >= 0 ? w.c(done) : Value();
      Value v[9];
      for (size_t k = 0; k < levels.size(); ++k)
        for (size_t j = 0; j < 3; ++j) v[3 * k + j] = w.c(levels[k][j]);
      w.b.create<dfir::DmaLoadBytesOp>(w.loc, sp, mem, w.c(runBytes), v[0], v[1], v[2], v[3], v[4],
                                       v[5], v[6], v[7], v[8], doneV);
    };
  }
  dst.pad.reset();
  bind(transpose.getResult()[0], dst);
  return success();
}

} // namespace chipless::sched
