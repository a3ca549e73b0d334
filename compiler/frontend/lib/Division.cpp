//===- Division.cpp - dividing a kernel's work over the cores -------------===//
//
// Part of chipless. See Division.h. Rows and matmul kernels here; re-layouts, gathers, fills
// and windows in CopyDivisions.cpp; the rates and shared sums in DivisionCost.h. The
// estimate of a division, per tile (all tiles run at once, one per core):
//   load   = bytes the tile reads / DMA bytes per cycle, and the whole kernel's bytes over
//            DRAM bandwidth (every core shares DRAM), whichever is longer
//   work   = SFU sticks / (corelets x SFU sticks per cycle) for element-wise work, PT time
//            (2 M N K / the core's peak, on whole sticks) for a matmul
//   store  = bytes the tile writes, as for loads
// A tile that takes several steps overlaps its loads, work and stores (the scheduler's
// load -> compute -> store pipeline): its time is the longest of the three plus the rest
// of one step; a tile of one step runs them one after the other. Each step also pays the
// DRAM latency and the DMA set-up once. A small tensor that every tile reads (a norm's
// weight, a narrow matmul's B, a re-layout's source) is served only by the DRAM channels
// its interleaved blocks fall in (Rates::within).
//
//===----------------------------------------------------------------------===//

#include "Division.h"

#include "CoreSpan.h"
#include "DivisionCost.h"
#include "Layout.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <sstream>

using namespace mlir;

namespace chipless::frontend {

int64_t elementBytes(Value v) {
  Type t = cast<ShapedType>(v.getType()).getElementType();
  return std::max<int64_t>(1, static_cast<int64_t>(t.getIntOrFloatBitWidth()) / 8);
}

std::vector<int64_t> batchBox(llvm::ArrayRef<int64_t> batchDims, int64_t blockBatch) {
  std::vector<int64_t> box(batchDims.size(), 1);
  int64_t rest = blockBatch;
  for (size_t i = batchDims.size(); i-- > 0 && rest > 1;) {
    if (rest % batchDims[i] == 0) {
      box[i] = batchDims[i];
      rest /= batchDims[i];
    } else if (batchDims[i] % rest == 0) {
      box[i] = rest;
      rest = 1;
    } else {
      return {};
    }
  }
  if (rest != 1) return {};
  return box;
}

std::string Division::describe() const {
  std::ostringstream os;
  if (gridBatch > 1 || blockBatch > 1) os << gridBatch << " x ";
  os << gridRows << " x " << gridCols << " tiles of ";
  if (blockBatch > 1) os << blockBatch << " x ";
  os << blockRows << " x " << blockCols;
  if (gridDepth > 1) os << ", the reduction dimension split over " << gridDepth << " tiles";
  if (stepDepth > 0) {
    if (stepRows != blockRows) os << ", " << stepRows << " rows";
    os << ", " << stepDepth << " of the reduction dimension per step";
  } else
    os << ", " << stepRows << " rows per step";
  if (transposeRows > 0)
    os << ", transposed on the SFU " << transposeRows << " source rows at a time";
  return os.str();
}

bool swapsLastTwo(const KernelGroup& k, int64_t lanes) {
  if (k.kind != KernelGroup::Kind::Relayout || k.source.dims.size() < 2) return false;
  if (k.source.dims.back().factors.back().stride == 1) return false;
  const TensorView natural = swapLastTwo(k.source);
  // Its rows one stride apart, its columns contiguous or whole sticks: a loaded block of
  // them is a matrix in the scratchpad.
  const std::vector<Factor>& rows = natural.dims[natural.dims.size() - 2].factors;
  const std::vector<Factor>& cols = natural.dims.back().factors;
  if (rows.size() != 1 || cols.back().stride != 1) return false;
  return cols.size() == 1 || (cols.size() == 2 && cols.back().size == lanes);
}

int64_t roundUp(int64_t v, int64_t m) {
  return (v + m - 1) / m * m;
}

std::vector<int64_t> divisors(int64_t n) {
  std::vector<int64_t> d;
  for (int64_t i = 1; i * i <= n; ++i)
    if (n % i == 0) {
      d.push_back(i);
      if (i != n / i) d.push_back(n / i);
    }
  std::sort(d.begin(), d.end());
  return d;
}

double tileCycles(const Rates& r, double in, double out, double work, int64_t steps, int64_t tiles,
                  int64_t ops) {
  const double load = std::max(in / r.dma, in * tiles / r.dram);
  const double store = std::max(out / r.dma, out * tiles / r.dram);
  // Each step pays a load's and a store's DRAM latency and DMA set-up, and fills and drains
  // the FIFOs of each op's stream once.
  const double perStep = 2 * (r.latency + r.setup) + static_cast<double>(ops) * r.opFill;
  if (steps <= 1) return load + work + store + perStep;
  // Loads and stores of every tile share DRAM while the steps overlap.
  const double dram = (in + out) * static_cast<double>(tiles) / r.dram;
  const double longest = std::max({load, work, store, dram});
  return longest + (load + work + store) / static_cast<double>(steps) +
         perStep * static_cast<double>(steps);
}

int64_t spanBytes(const TensorView& v, int64_t elementBytes) {
  int64_t last = 0;
  for (const DimLayout& d : v.dims)
    for (const Factor& f : d.factors) last += (f.size - 1) * f.stride;
  return (last + 1) * elementBytes;
}

namespace {

/// The SFU passes an op makes over its sticks (a softmax: max, exp, sum, divide).
int64_t sfuPasses(Operation* op) {
  if (isa<linalg::SoftmaxOp>(op)) return 4;
  if (auto g = dyn_cast<linalg::GenericOp>(op))
    return std::max<int64_t>(1, static_cast<int64_t>(g.getBody()->getOperations().size()) - 1);
  return 1;
}

/// SFU operations per row beyond the passes over its sticks: a reduction ends each row
/// with a tree across the lanes of its last stick, and a value with one element per row
/// read along a whole row is first spread into a stick (a lane broadcast).
double perRowOps(Operation* op, const KernelGroup& k, const SpyreArch& a) {
  const double tree = std::log2(static_cast<double>(a.sfu.lanes)) + 1, spread = 2;
  if (isa<linalg::SoftmaxOp>(op)) return 2 * tree + 2 * spread;
  if (isa<linalg::ReduceOp>(op)) return tree;
  if (auto b = dyn_cast<linalg::BroadcastOp>(op))
    return k.formOf(b.getInput()) == Form::PerRow ? spread : 0;
  double ops = 0;
  if (auto g = dyn_cast<linalg::GenericOp>(op)) {
    if (g.getNumReductionLoops() > 0) ops += tree;
    for (Value in : g.getDpsInputs())
      if (k.formOf(in) == Form::PerRow) ops += spread;
  }
  return ops;
}

/// The rows every block of the kernel must lie within: a block reads one stretch of rows of
/// each repeated matrix, one row of each matrix broadcast along middle dimensions (0: no
/// such operand).
int64_t repeatPeriod(const KernelGroup& k) {
  int64_t period = 0;
  for (const Operand& in : k.inputs) {
    int64_t rows = 0;
    if (in.form == Form::Repeated) {
      ArrayRef<int64_t> s = cast<RankedTensorType>(in.value.getType()).getShape();
      rows = 1;
      for (size_t i = 0; i + 1 < s.size(); ++i) rows *= s[i];
    } else if (in.form == Form::Spread) {
      rows = spreadPeriod(k, in.value);
    }
    if (rows) period = period ? std::gcd(period, rows) : rows;
  }
  return period;
}

/// Whether the SFU evaluates `op` with its transcendental pipeline.
bool transcendental(Operation* op) {
  return isa<math::ExpOp, math::LogOp, math::TanhOp, math::RsqrtOp, math::SqrtOp, math::ErfOp,
             arith::DivFOp>(op);
}

/// The SFU pipeline latency one step of `op` waits for: each op of a chain starts when the
/// op before it has its first sticks, and a reduction ends with a tree across the lanes.
double chainLatency(Operation* op, const SpyreArch& a) {
  const double plain = static_cast<double>(a.sfu.latency_cycles),
               trans = static_cast<double>(a.sfu.transcendental_latency_cycles),
               tree = std::log2(static_cast<double>(a.sfu.lanes)) * plain;
  if (isa<linalg::SoftmaxOp>(op)) return 2 * (plain + tree) + 2 * trans + plain;
  if (isa<linalg::ReduceOp>(op)) return plain + tree;
  if (auto g = dyn_cast<linalg::GenericOp>(op)) {
    double l = 0;
    for (Operation& inner : g.getBody()->without_terminator())
      l += transcendental(&inner) ? trans : plain;
    if (g.getNumReductionLoops() > 0) l += tree;
    return l;
  }
  return plain;
}

/// PT cycles of one tile's [m, n] x k product: the KTIR compiler cuts it into accumulator
/// tiles (as square as the accumulators allow, n in whole sticks) that alternate between
/// the corelets, each on whole sticks of k and n.
double ptCycles(const Rates& r, int64_t m, int64_t n, int64_t k, int64_t lanes) {
  int64_t side = 1;
  while ((side + 1) * (side + 1) <= r.accumulatorElems) ++side;
  const int64_t rows = std::min(m, side);
  const int64_t nt = std::min<int64_t>(
      n, std::max<int64_t>(lanes, r.accumulatorElems / std::max<int64_t>(rows, 1) / lanes * lanes));
  const int64_t ntPad = (nt + lanes - 1) / lanes * lanes;
  const int64_t mt = std::max<int64_t>(1, std::min<int64_t>(m, r.accumulatorElems / ntPad));
  const int64_t tiles = ((m + mt - 1) / mt) * ((n + nt - 1) / nt);
  const int64_t kPad = (k + lanes - 1) / lanes * lanes;
  const double perTile = 2.0 * static_cast<double>(mt * ntPad * kPad) / r.ptPerCorelet;
  return static_cast<double>((tiles + r.corelets - 1) / r.corelets) * perTile;
}

std::string boundOf(double load, double work, double store, double dramShare) {
  if (work >= load && work >= store) return "compute";
  return dramShare >= 1.0 ? "dram" : "dma";
}

std::vector<Division> rowDivisions(const KernelGroup& k, const SpyreArch& arch, std::string& why) {
  Rates r(arch);
  // Bytes per row resident and moved; bytes resident once (vectors along the columns).
  int64_t residentPerRow = 0, readPerRow = 0, writePerRow = 0, once = 0, readOnce = 0;
  double sticksPerRow = 0, chain = 0, rowOps = 0;
  llvm::DenseSet<Value> counted;
  auto account = [&](Value v, Form f, int64_t* moved) {
    if (!counted.insert(v).second && !moved) return;
    const int64_t e = elementBytes(v);
    const int64_t width = cast<RankedTensorType>(v.getType()).getShape().back();
    switch (f) {
    case Form::Matrix:
    case Form::Repeated:
      residentPerRow += roundUp(width * e, r.stick);
      // Rows move as whole sticks: a row narrower than a stick still moves one.
      if (moved) *moved += roundUp(width * e, r.stick);
      break;
    case Form::PerRow:
      residentPerRow += r.stick; // one element per stick
      if (moved) *moved += e;
      break;
    case Form::PerCol:
      once += roundUp(width * e, r.stick);
      if (moved) readOnce += roundUp(width * e, r.stick);
      break;
    case Form::Spread: // one row of it per step, read along the columns
      once += roundUp(width * e, r.stick);
      if (moved) *moved += (width * e + spreadPeriod(k, v) - 1) / spreadPeriod(k, v);
      break;
    }
  };
  for (const Operand& in : k.inputs) account(in.value, in.form, &readPerRow);
  for (const Operand& out : k.outputs) account(out.value, out.form, &writePerRow);
  for (Operation* op : k.ops) {
    for (Value res : op->getResults()) {
      account(res, k.formOf(res), nullptr);
      const int64_t width = cast<RankedTensorType>(op->getOperand(0).getType()).getShape().back();
      // Each row is a segment of the op's stream: its sticks and a start.
      sticksPerRow += static_cast<double>(
          sfuPasses(op) * ((width * elementBytes(res) + r.stick - 1) / r.stick + 1));
      chain += chainLatency(op, arch);
      rowOps += perRowOps(op, k, arch);
    }
  }
  std::vector<Division> out;
  const int64_t half = r.budget / 2; // the rest: the scheduler's streams and double buffers
  if (once + residentPerRow > half) {
    why = "one row of the kernel keeps " + std::to_string(once + residentPerRow) +
          " bytes in the scratchpad, over half its planning budget (" + std::to_string(half) +
          " bytes)";
    return out;
  }
  const int64_t period = repeatPeriod(k);
  for (int64_t perTile : divisors(k.rows)) {
    const int64_t tiles = k.rows / perTile;
    if (tiles > arch.chip.cores) continue;
    std::vector<int64_t> steps;
    for (int64_t s : divisors(perTile))
      if (once + s * residentPerRow <= half && (period == 0 || period % s == 0)) steps.push_back(s);
    // The largest step that fits, and smaller ones that pipeline better.
    std::vector<int64_t> tried;
    for (size_t i = steps.size(); i-- > 0 && tried.size() < 3;)
      if (tried.empty() || steps[i] * 4 <= tried.back()) tried.push_back(steps[i]);
    for (int64_t s : tried) {
      Division d;
      d.gridRows = tiles;
      d.blockRows = perTile;
      d.blockCols = k.cols;
      d.stepRows = s;
      d.stepDepth = 0;
      d.residentBytes = once + s * residentPerRow;
      const double in = static_cast<double>(perTile * readPerRow + once);
      const double outBytes = static_cast<double>(perTile * writePerRow);
      const double work = static_cast<double>(perTile) * (sticksPerRow + rowOps) / r.sfu +
                          chain * static_cast<double>(perTile / s);
      // Vectors along the columns that every tile reads (a norm's weight and bias) are a
      // few KB in one or two DRAM channels, which serve every tile's copy of them.
      const double hot =
          static_cast<double>(tiles * readOnce) * (1.0 / r.within(readOnce).dram - 1.0 / r.dram);
      d.dramBytes = (in + outBytes) * static_cast<double>(tiles);
      d.cycles = tileCycles(r, in, outBytes, work, perTile / s, tiles,
                            static_cast<int64_t>(k.ops.size())) +
                 hot;
      d.bound = boundOf(std::max(in / r.dma, in * tiles / r.dram), work,
                        std::max(outBytes / r.dma, outBytes * tiles / r.dram),
                        (in + outBytes) * tiles / r.dram / ((in + outBytes) / r.dma));
      out.push_back(d);
    }
  }
  if (out.empty()) why = "no division of " + std::to_string(k.rows) + " rows fits the scratchpad";
  return out;
}

std::vector<Division> matmulDivisions(const KernelGroup& k, const SpyreArch& arch,
                                      const KernelPlan& plan, std::string& why) {
  Rates r(arch);
  // B's reads all fall within its span: a small B (a convolution's filters) is one or two
  // DRAM channels serving every tile's copy; a B read in place through a transposed view is
  // a DMA run per element, all of them there.
  double bRate = r.dram;
  if (auto it = plan.views.find(k.ops.front()->getOperand(1)); it != plan.views.end()) {
    bRate = r.within(spanBytes(it->second, elementBytes(k.ops.front()->getOperand(1)))).dram;
    if (k.transposedB) r.dram = bRate;
  }
  Operation* mm = k.ops.front();
  const int64_t e = elementBytes(mm->getOperand(0)), eo = elementBytes(mm->getResult(0));
  const int64_t lanes = r.stick / e;
  const int64_t B = k.batch, M = k.rows / k.batch, N = k.cols, K = k.depth;
  const int64_t period = repeatPeriod(k);
  // Epilogue operands read per output element / per output row / per output column.
  int64_t epiMatrix = 0, epiRow = 0, epiCol = 0, epiPasses = 0;
  for (const Operand& in : k.inputs) {
    if (in.value == mm->getOperand(0) || in.value == mm->getOperand(1)) continue;
    (in.form == Form::Matrix || in.form == Form::Repeated ? epiMatrix
     : in.form == Form::PerRow                            ? epiRow
                                                          : epiCol) += elementBytes(in.value);
  }
  for (size_t i = 1; i < k.ops.size(); ++i) epiPasses += sfuPasses(k.ops[i]);
  int64_t outPerElem = 0;
  for (const Operand& o : k.outputs) outPerElem += elementBytes(o.value);
  const int64_t half = r.budget / 2;
  std::vector<Division> out;
  for (int64_t gm : divisors(M))
    for (int64_t gn : divisors(N))
      for (int64_t gk : divisors(K)) {
        const int64_t bm = M / gm, bn = N / gn, kSpan = K / gk, tiles = B * gm * gn * gk;
        if (tiles > arch.chip.cores) continue;
        if (k.wholeRows && (gn > 1 || gk > 1)) continue; // the epilogue needs whole rows
        if (period != 0 && period % bm != 0) continue;   // a block reads one stretch of a mask
        if (gn > 1 && bn % lanes != 0) continue;         // column blocks of whole sticks
        // Splitting the reduction dimension: each of gk tiles multiplies a span of K, and a
        // ring reduce-scatter leaves each a slice of rows of the sum (a whole number of
        // sticks each); one matrix at a time.
        const int64_t sliceRows = bm / gk;
        if (gk > 1 &&
            (B > 1 || bm % gk != 0 || (sliceRows * bn * eo) % r.stick != 0 || (kSpan % lanes != 0)))
          continue;
        const int64_t bnPad = roundUp(bn * e, r.stick) / e;
        // Rows of the tile's block computed at a time (the whole block when it fits; never
        // less than the whole block when K is split: the partial is summed whole).
        int64_t sub = 0, depth = 0, resident = 0;
        for (int64_t sm : divisors(bm)) {
          if (gk > 1 && sm != bm) continue;
          const int64_t accBytes = sm * roundUp(bn * std::max<int64_t>(eo, 4), r.stick);
          const int64_t epiBytes = static_cast<int64_t>(k.ops.size()) * (sm / gk) *
                                   roundUp(bn * std::max<int64_t>(eo, 2), r.stick);
          // A reduce-scatter keeps the partial, its ring buffers and the slice.
          const int64_t ringBytes = gk > 1 ? 2 * accBytes : 0;
          int64_t best = 0, bestBytes = 0;
          for (int64_t tk : divisors(kSpan)) {
            if (tk != kSpan && tk % lanes != 0) continue;
            const int64_t bytes = sm * roundUp(tk * e, r.stick) + tk * roundUp(bn * e, r.stick) +
                                  accBytes + epiBytes + ringBytes;
            if (bytes <= half && tk > best) {
              best = tk;
              bestBytes = bytes;
            }
          }
          if (best > 0) {
            sub = sm;
            depth = best;
            resident = bestBytes;
          }
        }
        if (depth == 0) continue;
        Division d;
        d.gridBatch = B;
        d.gridRows = gm;
        d.gridCols = gn;
        d.gridDepth = gk;
        d.blockRows = bm;
        d.blockCols = bn;
        d.stepRows = sub;
        d.stepDepth = depth;
        d.residentBytes = resident;
        const int64_t Kpad = roundUp(kSpan * e, r.stick) / e;
        // Each block of rows reads its A rows and the whole span of B again; a transposed B
        // is a DMA run per element, each charged a whole stick.
        const double bBytes = k.transposedB ? static_cast<double>(kSpan * bn * r.stick)
                                            : static_cast<double>(kSpan * bnPad * e);
        const double in = static_cast<double>(bm * Kpad * e + sliceRows * bn * epiMatrix +
                                              sliceRows * epiRow + bn * epiCol) +
                          static_cast<double>(bm / sub) * bBytes;
        const double outBytes = static_cast<double>(sliceRows * bn * outPerElem);
        const double pt = ptCycles(r, bm, bn, kSpan, lanes);
        // The ring reduce-scatter: gk - 1 steps, each moving one slice a hop and adding it.
        const double slice = static_cast<double>(sliceRows * bn * eo);
        const double ring =
            gk > 1
                ? static_cast<double>(gk - 1) *
                      (slice / r.ring + r.hop +
                       static_cast<double>(sliceRows * ((bn * eo + r.stick - 1) / r.stick)) / r.sfu)
                : 0.0;
        // Each row of the block is a segment of every epilogue op's stream: its sticks and a
        // start.
        const double epi = static_cast<double>(epiPasses * sliceRows * (bnPad / lanes + 1)) / r.sfu;
        // What B's channels take beyond B's share of the whole bandwidth.
        const double hotB =
            static_cast<double>(tiles * (bm / sub)) * bBytes * (1.0 / bRate - 1.0 / r.dram);
        d.dramBytes = (in + outBytes) * static_cast<double>(tiles);
        d.cycles = tileCycles(r, in, outBytes, pt + epi, (bm / sub) * (kSpan / depth), tiles,
                              static_cast<int64_t>(k.ops.size())) +
                   ring + hotB;
        d.bound = boundOf(std::max(in / r.dma, in * tiles / r.dram), pt + epi + ring,
                          std::max(outBytes / r.dma, outBytes * tiles / r.dram),
                          static_cast<double>(tiles) * r.dma / r.dram);
        out.push_back(d);
      }
  if (out.empty())
    why = "no division of the " + (B > 1 ? std::to_string(B) + " x " : std::string()) +
          std::to_string(M) + " x " + std::to_string(N) + " x " + std::to_string(K) +
          " matmul fits the scratchpad" +
          (B > arch.chip.cores ? " with one matrix of the batch per core at most" : "");
  return out;
}

} // namespace

namespace {

std::vector<Division> allDivisions(const KernelGroup& k, const SpyreArch& arch,
                                   const KernelPlan& plan, std::string& why) {
  switch (k.kind) {
  case KernelGroup::Kind::Rows:
    return rowDivisions(k, arch, why);
  case KernelGroup::Kind::Matmul:
    return matmulDivisions(k, arch, plan, why);
  case KernelGroup::Kind::Relayout:
  case KernelGroup::Kind::Gather:
  case KernelGroup::Kind::Fill:
    return relayoutDivisions(k, arch, why);
  case KernelGroup::Kind::Window:
    return windowDivisions(k, arch, why);
  }
  return {};
}

/// Whether a matmul division's blocks of B (a span of K by a block of N) are boxes of B as
/// it lies. B read in place through a view whose K rows fold from several dimensions (a
/// convolution's filters, [F, C, KH, KW] read as [KH KW C, F]) takes spans and steps of K
/// that stay within one position of an outer dimension, or cover whole ones.
bool matmulBlocksFitB(const KernelGroup& k, const Division& d, const KernelPlan& plan) {
  if (k.kind != KernelGroup::Kind::Matmul || k.batch > 1) return true;
  auto it = plan.views.find(k.ops.front()->getOperand(1));
  if (it == plan.views.end()) return true;
  std::optional<TensorView> b =
      k.transposedB ? std::optional<TensorView>(it->second) : matrixView(it->second);
  if (!b || b->dims.size() != 2) return true;
  return blockFits(b->dims[0], k.depth / d.gridDepth) && blockFits(b->dims[0], d.stepDepth) &&
         blockFits(b->dims[1], d.blockCols);
}

} // namespace

std::vector<Division> candidateDivisions(const KernelGroup& k, const SpyreArch& arch,
                                         const KernelPlan& plan, std::string& why) {
  std::vector<Division> all = allDivisions(k, arch, plan, why), out;
  all.erase(std::remove_if(all.begin(), all.end(),
                           [&](const Division& d) { return !matmulBlocksFitB(k, d, plan); }),
            all.end());
  // A core addresses one span of at most dram.core_span_bytes.
  const int64_t limit = arch.dram.core_span_bytes;
  TileSpan narrowest;
  for (const Division& d : all) {
    TileSpan span = widestTileSpan(k, d, plan);
    if (span.bytes <= limit) {
      out.push_back(d);
    } else if (narrowest.bytes == 0 || span.bytes < narrowest.bytes) {
      narrowest = span;
    }
  }
  if (out.empty() && !all.empty()) {
    std::string name = "a tensor";
    if (auto arg = dyn_cast<BlockArgument>(narrowest.tensor))
      name = "argument " + std::to_string(arg.getArgNumber());
    else if (narrowest.tensor)
      name = "the result of '" + narrowest.tensor.getDefiningOp()->getName().getStringRef().str() +
             "'";
    why = "every division of the kernel has a tile that addresses " + name + " over " +
          std::to_string(narrowest.bytes) +
          " bytes, more than one core may (dram.core_span_bytes = " + std::to_string(limit) + ")";
  }
  return out;
}

size_t chooseDivision(const std::vector<Division>& c) {
  // Near-ties (estimates within kNearTie of the cheapest) go to more tiles: each then has
  // less to do after its start, which the estimate undercounts (measured with
  // bench/frontend/divisions.py over the bundled blocks: exact ties only, LLaMA's FFN
  // matmuls chose a division 1.25-1.28 from the fastest; within 5%, 1.00, at a cost of
  // 2% on GPT-2's 768-wide projections).
  size_t cheapest = 0;
  for (size_t i = 1; i < c.size(); ++i)
    if (c[i].cycles < c[cheapest].cycles) cheapest = i;
  size_t best = cheapest;
  for (size_t i = 0; i < c.size(); ++i) {
    if (c[i].cycles > c[cheapest].cycles * (1 + kNearTie)) continue;
    if (c[i].tiles() != c[best].tiles()) {
      if (c[i].tiles() > c[best].tiles()) best = i;
    } else if (c[i].dramBytes != c[best].dramBytes) {
      if (c[i].dramBytes < c[best].dramBytes) best = i;
    } else if (c[i].cycles < c[best].cycles) {
      best = i;
    }
  }
  return best;
}

} // namespace chipless::frontend
