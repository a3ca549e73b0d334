//===- Residency.cpp - intermediates kept in the scratchpad between kernels ---===//
//
// Part of chipless. See Residency.h.
//
//===----------------------------------------------------------------------===//

#include "Residency.h"

#include "mlir/IR/BuiltinTypes.h"

#include <algorithm>
#include <optional>

using namespace mlir;

namespace chipless::frontend {

namespace {

/// The rows of its domain every tile of `k` divided as `d` holds at once, when tile t holds
/// rows [t R, (t + 1) R) whole (all columns) in one step; else nothing.
std::optional<int64_t> wholeRowBlocks(const KernelGroup& k, const Division& d) {
  if (d.gridCols != 1 || d.gridDepth != 1 || d.stepRows != d.blockRows || d.blockBatch != 1)
    return std::nullopt;
  if (k.kind == KernelGroup::Kind::Rows) {
    if (d.gridBatch != 1 || d.gridRows * d.blockRows != k.rows) return std::nullopt;
    return d.blockRows;
  }
  if (k.kind == KernelGroup::Kind::Matmul) {
    // Tile (b, m) of a grid [B, gm, 1] is tile b gm + m: rows b M + m R = t R.
    if (d.blockCols != k.cols || d.gridBatch != k.batch ||
        d.gridRows * d.blockRows * k.batch != k.rows)
      return std::nullopt;
    return d.blockRows;
  }
  return std::nullopt;
}

/// Whether kernel `c` reads `v` (a tensor of its row-form domain) once, as a block of whole
/// rows the way wholeRowBlocks describes: a rows kernel's matrix input, or a matmul's A taken
/// in one slice of K and read by nothing else of the kernel.
bool readsWholeRows(const KernelGroup& c, const Division& d, Value v) {
  int reads = 0;
  for (const Operand& o : c.inputs)
    if (o.value == v) {
      if (o.form != Form::Matrix) return false;
      ++reads;
    }
  if (reads != 1) return false;
  if (c.kind == KernelGroup::Kind::Rows) return true;
  if (c.kind != KernelGroup::Kind::Matmul || c.transposedB) return false;
  Operation* mm = c.ops.front();
  if (mm->getOperand(0) != v || mm->getOperand(1) == v || d.stepDepth != c.depth) return false;
  for (size_t i = 1; i < c.ops.size(); ++i)
    if (llvm::is_contained(c.ops[i]->getOperands(), v)) return false;
  return true;
}

/// The block kernel i (divided as `dp`) would leave of its output `o` for kernel i + 1
/// (divided as `dc`) when the conditions of planResidency hold, the kernels already keeping
/// the bytes below `producerTop` and `consumerTop` (the block goes at `producerTop`); else
/// nothing.
std::optional<ResidentBlock> keepable(const KernelPlan& plan, size_t i, const Division& dp,
                                      const Division& dc, const Operand& o, const SpyreArch& arch,
                                      const llvm::DenseSet<Value>& results, int64_t producerTop,
                                      int64_t consumerTop) {
  const KernelGroup &p = plan.kernels[i], &c = plan.kernels[i + 1];
  std::optional<int64_t> rp = wholeRowBlocks(p, dp), rc = wholeRowBlocks(c, dc);
  if (!rp || rp != rc || dp.tiles() != dc.tiles()) return std::nullopt;
  Value v = o.value;
  auto type = cast<RankedTensorType>(v.getType());
  if (o.form != Form::Matrix || memoryRoot(plan, v) != v || results.contains(v) ||
      type.getRank() == 0 || rowsOf(type.getShape()) != p.rows || c.rows != p.rows)
    return std::nullopt;
  const int64_t stick = arch.chip.stick_bytes;
  const int64_t cols = type.getShape().back(), es = elementBytes(v);
  if ((cols * es) % stick != 0 || (p.kind == KernelGroup::Kind::Matmul && cols != p.cols))
    return std::nullopt;
  // Read by the next kernel only, whole rows at a time.
  for (size_t j = 0; j < plan.kernels.size(); ++j) {
    if (j == i + 1) continue;
    for (const Operand& in : plan.kernels[j].inputs)
      if (memoryRoot(plan, in.value) == v) return std::nullopt;
  }
  if (!readsWholeRows(c, dc, v)) return std::nullopt;
  const int64_t bytes = (*rp * cols * es + stick - 1) / stick * stick;
  const int64_t half = arch.planningScratchpadBytes() / 2;
  if (producerTop + bytes + dp.residentBytes > half ||
      std::max(consumerTop, producerTop + bytes) + dc.residentBytes > half)
    return std::nullopt;
  return ResidentBlock{producerTop, *rp, cols, bytes, i};
}

} // namespace

ResidentTensors planResidency(const KernelPlan& plan, const std::vector<Division>& divisions,
                              const SpyreArch& arch, const llvm::DenseSet<Value>& results) {
  ResidentTensors out;
  const size_t n = plan.kernels.size();
  // Per kernel: the end of the blocks it keeps (the previous kernel's, then its own).
  std::vector<int64_t> top(n, 0);
  for (size_t i = 0; i + 1 < n; ++i)
    for (const Operand& o : plan.kernels[i].outputs)
      if (std::optional<ResidentBlock> b = keepable(plan, i, divisions[i], divisions[i + 1], o,
                                                    arch, results, top[i], top[i + 1])) {
        out[o.value] = *b;
        top[i] = b->address + b->bytes;
        top[i + 1] = std::max(top[i + 1], top[i]);
      }
  return out;
}

void preferResidency(const KernelPlan& plan, const std::vector<std::vector<Division>>& candidates,
                     std::vector<size_t>& chosen, const std::vector<bool>& forced,
                     const SpyreArch& arch, const llvm::DenseSet<Value>& results) {
  const double dram = arch.dramBytesPerCycle();
  for (size_t i = 0; i + 1 < plan.kernels.size(); ++i) {
    if (forced[i + 1]) continue;
    const Division& dp = candidates[i][chosen[i]];
    const std::vector<Division>& cs = candidates[i + 1];
    // Each candidate of the reader: its estimate less the device-memory traffic of what it
    // would let stay (written by the writer, read by the reader).
    auto saved = [&](size_t c) {
      double cycles = 0;
      for (const Operand& o : plan.kernels[i].outputs)
        if (std::optional<ResidentBlock> b = keepable(plan, i, dp, cs[c], o, arch, results, 0, 0))
          cycles += 2.0 *
                    static_cast<double>(b->rows * b->cols * elementBytes(o.value) * dp.tiles()) /
                    dram;
      return cycles;
    };
    size_t best = chosen[i + 1];
    const double choice = cs[best].cycles - saved(best);
    double bestCycles = choice;
    for (size_t c = 0; c < cs.size(); ++c) {
      const double s = saved(c), e = cs[c].cycles - s;
      if (s > 0 && e < choice * (1 - kNearTie) && e < bestCycles) {
        best = c;
        bestCycles = e;
      }
    }
    chosen[i + 1] = best;
  }
}

} // namespace chipless::frontend
