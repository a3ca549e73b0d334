#include "tpuc/Plan.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace chipless::tpuc {

namespace {

/// Alignment of buffer offsets in VMEM: DMA-aligned and a multiple of a lane row of f32.
int64_t bufferAlignment(const TpuArch& arch) {
  return std::max<int64_t>(arch.dma.alignment_bytes, int64_t{arch.vpu.lanes} * 4);
}

int64_t esize(DType t) {
  return static_cast<int64_t>(dtypeSize(t));
}

/// Rows an MXU streams for `rows` activation rows of `type` (fp32 passes, int8 speed-up).
double streamedRows(double rows, DType type, const TpuArch& arch) {
  if (type == DType::F32) return rows * arch.fp32Passes();
  if (type == DType::I8) return std::ceil(rows / arch.mxu.int8_speedup);
  return rows;
}

/// Cycles of one fold streaming `rows` rows, back to back with others on the same MXU.
double foldCycles(double rows, DType type, const TpuArch& arch) {
  const double t = streamedRows(rows, type, arch);
  const double r = arch.mxu.rows, c = arch.mxu.cols;
  if (!arch.mxu.overlap_weight_load) return 2 * r + c + t - 2;
  return std::max(t, r);
}

/// Whether output j is the accumulator itself in a 4-byte type: written back straight from it.
bool outputFromAcc(const KernelSpec& k, size_t j) {
  const VOutput& o = k.outputs[j];
  return k.matmul && k.ops[o.value].kind == VKind::Acc && dtypeSize(o.access.dtype) == 4;
}

struct Layout {
  MemoryPlan plan;
  bool fits = false;
};

/// Lays out the buffers of `k` for units of `rows` rows with the given RHS scheme.
Layout layout(const KernelSpec& k, const TpuArch& arch, int64_t rows, bool resident,
              int64_t panelChunks, int64_t panelSlots) {
  Layout l;
  MemoryPlan& p = l.plan;
  const int64_t lanes = arch.vpu.lanes, align = bufferAlignment(arch);
  p.rowsPerUnit = rows;
  p.bufferRows =
      roundUp(rows, int64_t{maxRegisterBlock(rows, arch.vpu.sublanes)} * arch.vpu.sublanes);
  const int64_t np = roundUp(k.n, lanes);
  int64_t off = 0;
  auto place = [&](int64_t bytes) {
    int64_t at = off;
    off = roundUp(off + bytes, align);
    return at;
  };
  if (k.matmul) {
    const MatmulSpec& mm = *k.matmul;
    p.lhsRowBytes = roundUp(mm.k, lanes) * esize(mm.dtype);
    p.lhsOffset = place(roundUp(rows, arch.vpu.sublanes) * p.lhsRowBytes);
    p.accRowBytes = np * 4;
    p.accOffset = place(p.bufferRows * p.accRowBytes);
  }
  for (const VInput& in : k.inputs) {
    const int64_t es = esize(in.access.dtype);
    if (in.columnVector) {
      // Packed: one element per row (a unit that does not start the batch's rows starts its
      // DMA chunks at rows * es bytes: a whole number of chunks); else a chunk per row. A
      // row of lanes after the last, so that a load of the last block stays in the buffer.
      const bool packed = in.packed();
      if (packed && rows < k.m && (rows * es) % arch.dma.alignment_bytes != 0) return l;
      const int64_t rb = packed ? es : in.access.runBytes;
      p.inputRowBytes.push_back(rb);
      p.inputOffsets.push_back(
          place(roundUp(p.bufferRows * rb + lanes * es, arch.dma.alignment_bytes)));
      continue;
    }
    const int64_t rb = np * es;
    p.inputRowBytes.push_back(rb);
    p.inputOffsets.push_back(place((in.rowVector ? 1 : p.bufferRows) * rb));
  }
  for (size_t j = 0; j < k.outputs.size(); ++j) {
    const int64_t rb = np * esize(k.outputs[j].access.dtype);
    if (outputFromAcc(k, j)) {
      p.outputRowBytes.push_back(p.accRowBytes);
      p.outputOffsets.push_back(-1);
    } else {
      p.outputRowBytes.push_back(rb);
      p.outputOffsets.push_back(place(p.bufferRows * rb));
    }
  }
  p.halfBytes = off;
  int64_t total = 2 * off;
  if (k.matmul) {
    const MatmulSpec& mm = *k.matmul;
    const int64_t es = esize(mm.dtype), groupCols = mm.mxus * mm.nTile;
    p.rhsResident = resident;
    p.panelChunks = resident ? mm.kChunks : panelChunks;
    p.panelSlots = resident ? mm.groups : panelSlots;
    const int64_t panelK = p.panelChunks * mm.kChunk;
    int64_t panelRows;
    if (mm.transposeRhs) {
      p.panelRowBytes = roundUp(panelK * es, arch.dma.alignment_bytes);
      panelRows = groupCols;
    } else {
      p.panelRowBytes = roundUp(groupCols * es, arch.dma.alignment_bytes);
      panelRows = panelK;
    }
    p.panelBytes = roundUp(panelRows * p.panelRowBytes, align);
    p.panelOffset = total;
    total += p.panelSlots * p.panelBytes;
  }
  p.totalBytes = total;
  l.fits = total <= arch.vmem.bytes;
  return l;
}

/// Estimated vector-unit cycles per register of a unit's vector program.
double vpuCyclesPerRegister(const KernelSpec& k, const TpuArch& arch) {
  double c = 0;
  for (const VOp& op : k.ops) {
    if (op.column) continue;
    switch (op.kind) {
    case VKind::Unary:
    case VKind::Binary:
      c += (op.op == tpuprog::Opcode::VExp || op.op == tpuprog::Opcode::VLog ||
            op.op == tpuprog::Opcode::VRcp || op.op == tpuprog::Opcode::VRsqrt ||
            op.op == tpuprog::Opcode::VSqrt || op.op == tpuprog::Opcode::VTanh ||
            op.op == tpuprog::Opcode::VDiv)
               ? arch.vpu.transcendental_interval_cycles
               : 1;
      break;
    case VKind::Select:
    case VKind::Reduce:
    case VKind::Index:
      c += 1;
      break;
    default:
      break;
    }
  }
  return std::max(c, 1.0);
}

} // namespace

int maxRegisterBlock(int64_t rows, int sublanes) {
  const int64_t groups = ceilDiv(rows, sublanes);
  int u = kMaxRegisterBlock;
  while (u > 1 && u / 2 >= groups) u /= 2;
  return u;
}

double estimateCycles(const KernelSpec& k, const MemoryPlan& p, const TpuArch& arch, int cores) {
  const double bw = arch.hbmBytesPerCycle(), lat = arch.hbmLatencyCycles();
  const int64_t upb = ceilDiv(k.m, p.rowsPerUnit), units = k.batchCount() * upb;
  const int64_t perCore = ceilDiv(units, std::max(1, cores));
  const int64_t activeCores = std::min<int64_t>(cores, units);
  const double rows = static_cast<double>(std::min(p.rowsPerUnit, k.m));
  const int64_t np = roundUp(k.n, arch.vpu.lanes);
  // Bytes each unit moves.
  double unitBytes = 0, firstBytes = 0, rhsBytes = 0;
  for (const VInput& in : k.inputs)
    unitBytes += in.packed()
                     ? static_cast<double>(roundUp(
                           static_cast<int64_t>(rows) * esize(in.access.dtype), in.access.runBytes))
                     : (in.rowVector ? 1 : rows) * static_cast<double>(in.access.runBytes);
  double outBytes = 0;
  for (const VOutput& o : k.outputs) outBytes += rows * static_cast<double>(o.access.runBytes);
  unitBytes += outBytes;
  double mxu = 0;
  if (k.matmul) {
    const MatmulSpec& mm = *k.matmul;
    unitBytes += rows * static_cast<double>(mm.lhsRunBytes());
    rhsBytes = static_cast<double>(mm.k) * static_cast<double>(k.n) * esize(mm.dtype);
    if (!p.rhsResident) unitBytes += rhsBytes;
    mxu = static_cast<double>(mm.kChunks * mm.groups) * foldCycles(rows, mm.dtype, arch);
    if (!p.rhsResident) {
      // A panel's load is hidden behind the folds of the panels before it in the pipeline.
      const double panelFolds =
          static_cast<double>(p.panelChunks) * foldCycles(rows, mm.dtype, arch);
      const double panelLoad = lat + static_cast<double>(p.panelBytes) / bw;
      const double exposed = std::max(0.0, panelLoad - (p.panelSlots - 1) * panelFolds);
      mxu += static_cast<double>(mm.groups * ceilDiv(mm.kChunks, p.panelChunks)) * exposed;
    }
    firstBytes = rows * static_cast<double>(mm.lhsRunBytes()) + static_cast<double>(p.panelBytes);
  }
  const double vregs = std::ceil(rows / arch.vpu.sublanes) * (np / arch.vpu.lanes);
  const double vpu = vregs * vpuCyclesPerRegister(k, arch);
  // The chip's HBM is shared by the active cores.
  const double hbmUnit = unitBytes * activeCores / bw;
  const double unit = std::max({mxu, vpu, hbmUnit});
  // The first unit starts when its inputs and first panel have landed; with a resident RHS its
  // last group cannot start before the whole RHS has (the cores load their copies together).
  const double start = lat + firstBytes * activeCores / bw;
  double firstUnit = start + unit;
  if (k.matmul && p.rhsResident)
    firstUnit = std::max(firstUnit, start + rhsBytes * activeCores / bw +
                                        unit / static_cast<double>(k.matmul->groups));
  double total = firstUnit + static_cast<double>(perCore - 1) * unit;
  const double allBytes =
      units * unitBytes + (p.rhsResident ? rhsBytes * static_cast<double>(activeCores) : 0);
  total = std::max(total, start + allBytes / bw);
  // The last unit's outputs drain after it, each through one DMA engine
  // (dma.bytes_per_cycle) with the active cores sharing HBM; each unit boundary costs the
  // MXUs a weight load and a drain (R + C) or the vector unit a pipeline start.
  if (!k.outputs.empty()) {
    const double drainRate =
        std::min(static_cast<double>(k.outputs.size()) * arch.dma.bytes_per_cycle,
                 bw / static_cast<double>(activeCores));
    total += outBytes / drainRate;
  }
  total += static_cast<double>(perCore) *
           (k.matmul ? 2.0 * arch.mxu.rows + arch.mxu.cols : arch.vpu.latency_cycles + 64.0);
  return total;
}

MemoryPlan planMemory(const KernelSpec& k, const TpuArch& arch, int cores) {
  // Candidate unit sizes: powers of two times the sublanes, up to all of M (one unit streams
  // every row through each fold: no fold is repeated per unit) or kMaxUnitRows.
  std::vector<int64_t> candidates;
  const int64_t s = arch.vpu.sublanes;
  if (k.m <= s) candidates.push_back(k.m);
  for (int64_t r = s;; r *= 2) {
    candidates.push_back(std::min({r, k.m, kMaxUnitRows}));
    if (r >= k.m || r >= kMaxUnitRows) break;
  }
  // An even share of M per core when the batch does not give every core work.
  if (cores > 1 && k.batchCount() < cores && k.m > s)
    candidates.push_back(std::min(k.m, roundUp(ceilDiv(k.m, cores), s)));
  std::sort(candidates.begin(), candidates.end());
  candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());

  bool sharedRhs = true;
  if (k.matmul)
    for (int64_t st : k.matmul->rhs.batchStrides) sharedRhs &= st == 0;

  std::optional<MemoryPlan> best;
  double bestCycles = std::numeric_limits<double>::infinity();
  auto consider = [&](const Layout& l) {
    if (!l.fits) return;
    const double c = estimateCycles(k, l.plan, arch, cores);
    // Ties go to the larger unit (fewer units, fewer weight reloads).
    if (c < bestCycles * (1 - 1e-9) ||
        (c <= bestCycles && best && l.plan.rowsPerUnit > best->rowsPerUnit)) {
      best = l.plan;
      bestCycles = c;
    }
  };
  for (int64_t rows : candidates) {
    if (!k.matmul) {
      consider(layout(k, arch, rows, false, 0, 0));
      continue;
    }
    const MatmulSpec& mm = *k.matmul;
    if (sharedRhs) consider(layout(k, arch, rows, true, 0, 0));
    // Streamed panels: as many k chunks per panel as fit with two (or more) slots; more slots
    // when one panel's folds are too short to hide the next panel's load.
    // (the estimate charges a panel load the folds before it do not hide).
    for (int64_t slots = 2; slots <= 4; ++slots) {
      for (int64_t chunks = mm.kChunks; chunks >= 1;
           chunks = chunks == 1 ? 0 : ceilDiv(chunks, 2)) {
        const int64_t panelsPerUnit = mm.groups * ceilDiv(mm.kChunks, chunks);
        if (slots - 1 > panelsPerUnit) continue; // prefetches reach at most one unit ahead
        Layout l = layout(k, arch, rows, false, chunks, slots);
        if (!l.fits) continue;
        consider(l);
        break;
      }
    }
  }
  if (!best) {
    // Report the smallest layout's needs.
    Layout l = layout(k, arch, std::min<int64_t>(k.m, s), false, 1, 2);
    throw CompileError(k.where, "kernel " + k.name + " does not fit in VMEM: even " +
                                    std::to_string(l.plan.rowsPerUnit) + "-row units need " +
                                    std::to_string(l.plan.totalBytes) + " bytes, vmem.bytes is " +
                                    std::to_string(arch.vmem.bytes));
  }
  return *best;
}

std::vector<std::pair<int64_t, int64_t>> splitUnits(int64_t units, int cores) {
  std::vector<std::pair<int64_t, int64_t>> r;
  for (int c = 0; c < cores; ++c) r.push_back({units * c / cores, units * (c + 1) / cores});
  return r;
}

int semaphoresNeeded(const KernelSpec& k) {
  // 0 barrier, 1-2 inputs, 3-4 outputs, 5 folds (resident), then the panel semaphores.
  int n = 6;
  if (k.matmul) {
    if (k.memory.rhsResident)
      n += static_cast<int>(std::min<int64_t>(k.memory.panelSlots, 8));
    else
      n += static_cast<int>(2 * k.memory.panelSlots);
  }
  return n;
}

} // namespace chipless::tpuc
