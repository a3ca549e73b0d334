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

} // namespace

ResidentTensors planResidency(const KernelPlan& plan, const std::vector<Division>& divisions,
                              const SpyreArch& arch, const llvm::DenseSet<Value>& results) {
  ResidentTensors out;
  const size_t n = plan.kernels.size();
  const int64_t stick = arch.chip.stick_bytes;
  const int64_t half = arch.planningScratchpadBytes() / 2;
  // Per kernel: the end of the blocks it keeps (the previous kernel's, then its own).
  std::vector<int64_t> top(n, 0);
  for (size_t i = 0; i + 1 < n; ++i) {
    const KernelGroup &p = plan.kernels[i], &c = plan.kernels[i + 1];
    const Division &dp = divisions[i], &dc = divisions[i + 1];
    std::optional<int64_t> rp = wholeRowBlocks(p, dp), rc = wholeRowBlocks(c, dc);
    if (!rp || rp != rc || dp.tiles() != dc.tiles()) continue;
    for (const Operand& o : p.outputs) {
      Value v = o.value;
      auto type = cast<RankedTensorType>(v.getType());
      if (o.form != Form::Matrix || memoryRoot(plan, v) != v || results.contains(v) ||
          rowsOf(type.getShape()) != p.rows || c.rows != p.rows || type.getRank() == 0)
        continue;
      const int64_t cols = type.getShape().back();
      const int64_t es = elementBytes(v);
      if ((cols * es) % stick != 0 || (p.kind == KernelGroup::Kind::Matmul && cols != p.cols))
        continue;
      // Read by the next kernel only, whole rows at a time.
      bool others = false;
      for (size_t j = 0; j < n && !others; ++j) {
        if (j == i + 1) continue;
        for (const Operand& in : plan.kernels[j].inputs) others |= memoryRoot(plan, in.value) == v;
      }
      if (others || !readsWholeRows(c, dc, v)) continue;
      const int64_t bytes = (*rp * cols * es + stick - 1) / stick * stick;
      const int64_t address = top[i];
      if (address + bytes + dp.residentBytes > half ||
          std::max(top[i + 1], address + bytes) + dc.residentBytes > half)
        continue;
      out[v] = ResidentBlock{address, *rp, cols, bytes, i};
      top[i] = address + bytes;
      top[i + 1] = std::max(top[i + 1], address + bytes);
    }
  }
  return out;
}

} // namespace chipless::frontend
