//===- LowerTranspose.cpp - linalg.transpose through device memory --------===//
//
// Part of chipless. See Lowering.h. The chip has no path that re-lays out data inside the
// scratchpad (the load and store units move whole sticks in order, the SFU works lane by
// lane), so a 2-D transpose goes through device memory: the DMA out engine writes the
// R x C tile compactly to a job buffer (one region per core), and the DMA in engine reads
// it back with the byte-granular dma.loadb, one element per run: C rows of R elements,
// element i of row j from byte (i * C + j) * esize. Each such run costs the whole stick it
// touches in device memory, so the price of a transpose is what the modelled DMA charges
// for R * C element gathers, not a constant.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"
#include "dataflow/Dialect/Dfir/DfirOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

using namespace mlir;

namespace chipless::sched {

LogicalResult Lowering::lowerTranspose(Operation* op) {
  auto transpose = cast<linalg::TransposeOp>(op);
  const Location loc = op->getLoc();
  ArrayRef<int64_t> perm = transpose.getPermutation();
  auto in = value(transpose.getInput());
  if (failed(in)) return failure();
  if (in->rank() != 2)
    return op->emitError() << "transposes a rank-" << in->rank()
                           << " tensor; only 2-D tiles are supported by the Dataflow Scheduler",
           failure();
  if (in->kind == TVal::Kind::Buffer && in->sparse)
    return op->emitError() << "transposes a reduction result (one element per stick); "
                              "broadcast it to a dense tile first",
           failure();
  if (perm[0] == 0) { // identity: a view of the input
    bind(transpose.getResult()[0], *in);
    return success();
  }
  auto src = materialize(*in, loc, "transpose input");
  if (failed(src)) return failure();
  const int64_t R = src->shape[0], C = src->shape[1], es = esize(src->elem);
  const int64_t rowStride = src->strides[0];
  const int64_t stickBytes = stick();
  const int64_t regionBytes = (R * C * es + stickBytes - 1) / stickBytes * stickBytes;
  // One region of the job buffer per core, so the cores never share bytes.
  const std::string name = "transpose" + std::to_string(transposes_++);
  out_.deviceBuffers[name] = regionBytes * numTiles();
  const Expr base = Expr::sym(name) + Expr(regionBytes * core());
  TVal dst = resultBuffer(op, transpose.getResult()[0], {}, "transpose");
  if (dst.kind != TVal::Kind::Buffer || dst.strides != denseStrides({C, R}, src->elem))
    dst = newDense({C, R}, src->elem, "transpose");

  // The two steps stay in separate op groups: the synchroniser must order the read-back
  // after the write (device memory) and after the store has read the source (scratchpad).
  Access global;
  global.space = Access::Space::Global;
  global.arg = name;
  global.lo = Expr(regionBytes * core());
  global.hi = Expr(regionBytes * core() + R * C * es);

  // 1. The tile out to device memory, rows packed (whole sticks when they allow it).
  const bool whole =
      (C * es) % stickBytes == 0 && rowStride % stickBytes == 0 && src->offset % stickBytes == 0;
  {
    Step& s = addStep(Engines::dmaOut(), loc,
                      std::string(whole ? "dma.store" : "dma.storeb") + " transpose " +
                          std::to_string(R) + "x" + std::to_string(C) + " -> " + name);
    s.async = true;
    s.accesses.push_back(scratch(src->buffer, src->offset, (R - 1) * rowStride + C * es, false));
    Access g = global;
    g.write = true;
    s.accesses.push_back(g);
    const int buffer = src->buffer;
    const int64_t offset = src->offset;
    s.emit = [=](ProgramWriter& w, int done) {
      Value sp = w.get(w.addr(buffer, Expr(offset)));
      Value mem = w.get(base);
      Value doneV = done >= 0 ? w.c(done) : Value();
      Value n = w.c(R), ms = w.c(C * es), ss = w.c(rowStride);
      if (whole)
        w.b.create<dfir::DmaStoreOp>(w.loc, sp, mem, w.c(C * es), n, ms, ss, Value(), Value(),
                                     Value(), Value(), Value(), Value(), doneV);
      else
        w.b.create<dfir::DmaStoreBytesOp>(w.loc, sp, mem, w.c(C * es), n, ms, ss, Value(), Value(),
                                          Value(), Value(), Value(), Value(), doneV);
    };
  }
  // 2. Back in column by column: output row j gathers element j of every input row.
  {
    Step& s = addStep(Engines::dmaIn(), loc,
                      "dma.loadb transpose " + name + " -> " + std::to_string(C) + "x" +
                          std::to_string(R) + " (one element per run)");
    s.async = true;
    s.accesses.push_back(scratch(dst.buffer, dst.offset, (C - 1) * dst.strides[0] + R * es, true));
    s.accesses.push_back(global);
    const int buffer = dst.buffer;
    const int64_t offset = dst.offset, outRow = dst.strides[0];
    s.emit = [=](ProgramWriter& w, int done) {
      Value sp = w.get(w.addr(buffer, Expr(offset)));
      Value mem = w.get(base);
      Value doneV = done >= 0 ? w.c(done) : Value();
      w.b.create<dfir::DmaLoadBytesOp>(w.loc, sp, mem, w.c(es), w.c(R), w.c(C * es), w.c(es),
                                       w.c(C), w.c(es), w.c(outRow), Value(), Value(), Value(),
                                       doneV);
    };
  }
  dst.pad.reset();
  bind(transpose.getResult()[0], dst);
  return success();
}

} // namespace chipless::sched
