/// The TensorCore's MXUs: one fold (weights in, activation rows streamed through, results
/// out) per mxu.matmul; the numbers are in mxu_math.cpp.
#include "sim/tpu/mxu_math.h"
#include "sim/tpu/system.h"
#include "sim/tpu/tensor_core.h"

#include <algorithm>

namespace chipless::sim::tpu {

using namespace tpuprog;

// ---- MXU ----------------------------------------------------------------------------------

void TensorCore::mxuMatmul(const Op& op) {
  const TpuArch& arch = system_.arch();
  const DType type = *op.dtype;
  const int64_t esize = static_cast<int64_t>(dtypeSize(type));
  const int64_t m = arg(op, 0);
  if (m < 0 || m >= arch.mxu.count)
    fault("MXU " + std::to_string(m) + " out of range (0.." + std::to_string(arch.mxu.count - 1) +
          ", mxu.count)");
  const int64_t lhs = arg(op, 1), rows = arg(op, 2), k = arg(op, 3);
  int64_t lhsStride = arg(op, 4);
  const int64_t rhs = arg(op, 5), n = arg(op, 6);
  int64_t rhsStride = arg(op, 7);
  const int64_t out = arg(op, 8);
  int64_t outStride = arg(op, 9);
  const int64_t acc = arg(op, 10), sem = arg(op, 11);
  const int R = arch.mxu.rows, C = arch.mxu.cols;
  if (rows < 0) fault("rows = " + std::to_string(rows) + " is negative");
  if (k < 1 || k > R)
    fault("k = " + std::to_string(k) + " must be 1.." + std::to_string(R) + " (mxu.rows)");
  if (n < 1 || n > C)
    fault("n = " + std::to_string(n) + " must be 1.." + std::to_string(C) + " (mxu.cols)");
  const bool transposed = op.op == Opcode::MxuMatmulNT;
  if (lhsStride == -1) lhsStride = k * esize;
  if (rhsStride == -1) rhsStride = (transposed ? k : n) * esize;
  if (outStride == -1) outStride = n * 4;
  if (lhs % esize || rhs % esize || lhsStride % esize || rhsStride % esize || out % 4 ||
      outStride % 4)
    fault("misaligned MXU operands: lhs " + hex(lhs) + ", rhs " + hex(rhs) + " and their strides " +
          "must be multiples of " + std::to_string(esize) + " bytes, out " + hex(out) +
          " and out_stride multiples of 4");
  if (sem < -1 || sem >= sems_.size())
    fault("semaphore " + std::to_string(sem) + " out of range (0.." +
          std::to_string(sems_.size() - 1) + ")");
  const StridedBlock lhsB{lhs, k * esize, lhsStride, rows},
      rhsB = transposed ? StridedBlock{rhs, k * esize, rhsStride, n}
                        : StridedBlock{rhs, n * esize, rhsStride, k},
      outB{out, n * 4, outStride, rows};
  if (rows == 0) {
    if (sem >= 0) sems_.send(static_cast<int>(sem), local_);
    return;
  }
  checkVmem("mxu.matmul lhs", lhsB);
  checkVmem("mxu.matmul rhs", rhsB);
  checkVmem("mxu.matmul out", outB);

  // Streaming: one activation row per cycle (int8: mxu.int8_speedup rows; fp32: one pass of
  // bf16 pieces per numerics.fp32_matmul_precision).
  Cycles stream = static_cast<Cycles>(rows);
  if (type == DType::F32) stream *= arch.fp32Passes();
  if (type == DType::I8)
    stream = static_cast<Cycles>((rows + arch.mxu.int8_speedup - 1) / arch.mxu.int8_speedup);
  MxuState& u = mxus_[static_cast<size_t>(m)];
  const int unit = kMxuUnit + static_cast<int>(m);
  static const char* const kNames[] = {"mxu0",  "mxu1",  "mxu2",  "mxu3", "mxu4",  "mxu5",
                                       "mxu6",  "mxu7",  "mxu8",  "mxu9", "mxu10", "mxu11",
                                       "mxu12", "mxu13", "mxu14", "mxu15"};
  const char* what = m < 16 ? kNames[m] : "mxu";
  const bool overlap = arch.mxu.overlap_weight_load;
  // Weights enter from the top, R cycles; with overlap they load into the shadow registers
  // while the previous fold streams, else only after its last result is out.
  Cycles loadStart = std::max(local_, overlap ? u.weightFree : u.done);
  loadStart = vmemReady(&rhsB, 1, loadStart, false, unit, what);
  const Cycles loadEnd = loadStart + R;
  // Activations enter from the left, skewed a cycle per row; the last result leaves the
  // array R + C - 2 cycles after the last row went in.
  Cycles streamStart = std::max(loadEnd, u.streamFree);
  streamStart = vmemReady(&lhsB, 1, streamStart, false, unit, what);
  streamStart = vmemReady(&outB, 1, streamStart, true, unit, what);
  const Cycles streamEnd = streamStart + stream;
  const Cycles done = streamEnd + R + C - 2;
  u.weightFree = overlap ? streamStart : done;
  u.streamFree = streamEnd;
  u.done = done;

  MxuCounters& mc = mxuCounters_[static_cast<size_t>(m)];
  mc.busy += done - std::max(loadStart, u.busyEnd);
  u.busyEnd = std::max(u.busyEnd, done);
  ++mc.folds;
  mc.flops += 2.0 * static_cast<double>(rows) * static_cast<double>(k) * static_cast<double>(n);
  if (mc.firstStart < 0) mc.firstStart = loadStart;
  mc.lastDone = std::max(mc.lastDone, done);

  noteAccess(rhsB, loadStart, loadEnd, false, unit, what);
  noteAccess(lhsB, streamStart, streamEnd, false, unit, what);
  noteAccess(outB, streamStart, done, true, unit, what);
  if (!system_.timingOnly()) {
    uint8_t* mem = vmem_.get();
    foldMatmul({mem + lhs, lhsStride, mem + rhs, rhsStride, mem + out, outStride, rows, k, n, type,
                acc != 0, arch.fp32Passes(), transposed});
  }
  if (sem >= 0) sems_.send(static_cast<int>(sem), done);
  async(done);
  system_.noteActivity(done);
  if (system_.tracing()) {
    traceSpan(system_.trackMxuWeights(static_cast<int>(m)), "weights", loadStart, loadEnd);
    traceSpan(system_.trackMxuStream(static_cast<int>(m)), std::string("fold.") + dtypeName(type),
              streamStart, done);
  }
}

} // namespace chipless::sim::tpu
