//===- CopyDivisions.cpp - dividing the kernels that move data over the cores ---===//
//
// Part of chipless. See DivisionCost.h. Re-layouts (through DMA runs, or transposed on the
// SFU), gathers, fills and window kernels: their candidate divisions and estimates.
//
//===----------------------------------------------------------------------===//

#include "DivisionCost.h"
#include "mlir/IR/BuiltinTypes.h"

#include <algorithm>

using namespace mlir;

namespace chipless::frontend {

namespace {

/// The DRAM rate at which reads of every element of `v`, each a DMA run of its own (a stick
/// each), are served: at the pace of the channel holding the most of them. They need not
/// spread evenly: of [100, 96] in sticks, the stick column of the first 64 columns is twice
/// as dense as the next, and its channels take twice as long. Views of over 2^20 elements
/// are taken as spread evenly over their span.
double elementRunDram(const Rates& r, const TensorView& v, int64_t e) {
  int64_t n = 1;
  for (const DimLayout& d : v.dims) n *= d.size;
  if (n > (int64_t{1} << 20)) return r.within(spanBytes(v, e)).dram;
  std::vector<int64_t> offsets = {v.offset};
  for (const DimLayout& d : v.dims) {
    std::vector<int64_t> own(static_cast<size_t>(d.size));
    for (int64_t i = 0; i < d.size; ++i) {
      int64_t rest = i, off = 0;
      for (size_t f = d.factors.size(); f-- > 0;) {
        off += (rest % d.factors[f].size) * d.factors[f].stride;
        rest /= d.factors[f].size;
      }
      own[static_cast<size_t>(i)] = off;
    }
    std::vector<int64_t> next;
    next.reserve(offsets.size() * own.size());
    for (int64_t o : offsets)
      for (int64_t x : own) next.push_back(o + x);
    offsets.swap(next);
  }
  std::vector<int64_t> perChannel(static_cast<size_t>(r.channels), 0);
  for (int64_t o : offsets) ++perChannel[static_cast<size_t>(o * e / r.interleave % r.channels)];
  const int64_t most = *std::max_element(perChannel.begin(), perChannel.end());
  return r.dram * static_cast<double>(n) / static_cast<double>(most * r.channels);
}

} // namespace

/// A re-layout: blocks of rows of one matrix of the result, or runs of whole matrices along
/// the dimension before them, each a box of the source as it lies.
std::vector<Division> relayoutDivisions(const KernelGroup& k, const SpyreArch& arch,
                                        std::string& why) {
  const Rates all(arch);
  // A gather and a fill are divided by blocks of rows of their (rank-2) result.
  const bool gather = k.kind == KernelGroup::Kind::Gather || k.kind == KernelGroup::Kind::Fill;
  Value copied = k.kind == KernelGroup::Kind::Gather ? k.ops.front()->getResult(0) : k.copyFrom;
  const int64_t e = elementBytes(copied);
  const size_t rank = gather ? 2 : cast<RankedTensorType>(copied.getType()).getRank();
  const TensorView& src = k.source;
  // When the source's values are not contiguous along its last dimension (a permutation
  // moved it), every element is a DMA run of its own, charged a whole stick; otherwise rows
  // move whole (a gather: one row per index).
  const bool elementRuns = !gather && src.dims.back().factors.back().stride != 1;
  // Every tile reads within the source's span (a gather: anywhere in its table).
  const Rates r = gather ? all : all.within(spanBytes(src, e));
  const double elementRate = elementRuns ? elementRunDram(all, src, e) : r.dram;
  const int64_t half = r.budget / 2;
  std::vector<Division> out;
  const int64_t rows = k.rows / k.batch; // of one matrix of the result
  const std::vector<int64_t> shape =
      gather ? std::vector<int64_t>{} : cast<RankedTensorType>(copied.getType()).getShape().vec();
  const llvm::ArrayRef<int64_t> batchDims =
      rank > 2 ? llvm::ArrayRef<int64_t>(shape).drop_back(2) : llvm::ArrayRef<int64_t>();
  // Whether a tile's box of batch positions is a box of the source's and the result's
  // factors.
  auto batchBoxFits = [&](const std::vector<int64_t>& box) {
    for (size_t i = 0; i < box.size(); ++i)
      if (box[i] > 1 && (!blockFits(src.dims[i], box[i]) || !blockFits(k.dest.dims[i], box[i])))
        return false;
    return true;
  };
  auto add = [&](int64_t perBatch, int64_t perTile) {
    const int64_t tiles = (k.batch / perBatch) * (rows / perTile);
    const int64_t bytes = perBatch * perTile * roundUp(k.cols * e, r.stick);
    if (tiles > arch.chip.cores || bytes > half) return;
    // The block must be a box of the source's factors.
    if (!gather) {
      if (rank >= 2 &&
          (!blockFits(src.dims[rank - 2], perTile) || !blockFits(k.dest.dims[rank - 2], perTile)))
        return;
      const std::vector<int64_t> box = batchBox(batchDims, perBatch);
      if (perBatch > 1 && (box.empty() || !batchBoxFits(box))) return;
    }
    Division d;
    d.gridBatch = k.batch / perBatch;
    d.blockBatch = perBatch;
    d.gridRows = rows / perTile;
    d.blockRows = perTile;
    d.blockCols = k.cols;
    d.stepRows = perTile;
    d.stepDepth = 0;
    d.residentBytes = bytes;
    const double elements = static_cast<double>(perBatch * perTile * k.cols);
    const double in = elementRuns ? elements * static_cast<double>(r.stick) : elements * e;
    Rates runs = r;
    runs.dram = elementRate;
    d.cycles = tileCycles(runs, in, elements * e, 0, 1, tiles, 1);
    d.bound = elementRuns ? "dma" : "dram";
    out.push_back(d);
  };
  // Blocks of rows of one matrix each, or whole matrices, several per tile: a run of the
  // innermost dimension before the matrix (of a rank-4 result [N, C, H, W]: C).
  for (int64_t perTile : divisors(rows)) add(1, perTile);
  // Of a rank-4 (or more) result only where blocks of rows do not fit: those runs are boxes
  // of one more dimension, which the estimate does not charge (measured: chosen for GPT-2's
  // eager re-layouts, the same modelled time and 1.5x the host time to simulate).
  if (rank == 3 || (rank > 3 && !gather && out.empty()))
    for (int64_t perBatch : divisors(shape[rank - 3]))
      if (perBatch > 1) add(perBatch, rows);
  // Boxes of several batch dimensions (the inner ones whole, a run of the next: the
  // 64 x 64 matrices of [F, C, KH, KW] as 2 x 64 per tile), only where a run of one does
  // not fit: a box of more dimensions is more access tile coordinates per transfer, which
  // the estimate does not charge.
  if (rank > 3 && !gather && out.empty())
    for (int64_t perBatch : divisors(k.batch))
      if (perBatch > shape[rank - 3]) add(perBatch, rows);
  // A swap of the last two dimensions can instead load the source's rows as they lie and
  // transpose them on the SFU (the KTIR compiler's on-chip transpose: one select per source
  // row over the block's result rows, the source rows at most a stick's lanes). Tiles take
  // a block of result rows (of one matrix) and a block of result columns: whole columns, or
  // whole sticks of them; a tile transposes its columns a stick at a time. Where there are
  // more matrices than cores, a tile takes a run of them along one batch dimension, one
  // after the other (the fewest that fit the cores).
  if (!gather && swapsLastTwo(k, r.stick / e)) {
    const TensorView natural = swapLastTwo(src);
    const int64_t lanes = r.stick / e, cols = k.cols;
    // Columns: all in one tile, or blocks of whole sticks of them.
    std::vector<int64_t> colTiles = {1};
    if (cols > lanes && cols % lanes == 0) colTiles = divisors(cols / lanes);
    int64_t perBatch = 1;
    for (int64_t b : divisors(k.batch)) {
      perBatch = b;
      if (k.batch / b <= arch.chip.cores) break;
    }
    // The run is one box along one batch dimension (the loop's), a box of source and result.
    const std::vector<int64_t> box = batchBox(batchDims, perBatch);
    const bool runFits = perBatch == 1 || (!box.empty() && batchBoxFits(box) &&
                                           std::count_if(box.begin(), box.end(),
                                                         [](int64_t n) { return n > 1; }) == 1);
    const double sfuOne = r.sfu / static_cast<double>(r.corelets);
    for (int64_t perTile : divisors(rows))
      for (int64_t gridCols : runFits ? colTiles : std::vector<int64_t>{}) {
        const int64_t blockCols = cols / gridCols, R = std::min(blockCols, lanes);
        const int64_t chunks = perBatch * ((blockCols + R - 1) / R);
        const int64_t tiles = (k.batch / perBatch) * (rows / perTile) * gridCols;
        const int64_t rowBytes = roundUp(perTile * e, r.stick);
        // The source rows, the transposed block, the identity (Lowering::transposeOnChip).
        const int64_t bytes = R * rowBytes + perTile * r.stick + 2 * R * r.stick;
        if (tiles > arch.chip.cores || bytes > half) continue;
        if (!blockFits(natural.dims[rank - 1], perTile) ||
            !blockFits(natural.dims[rank - 2], blockCols) ||
            !blockFits(k.dest.dims[rank - 2], perTile) ||
            !blockFits(k.dest.dims[rank - 1], blockCols))
          continue;
        Division d;
        d.gridBatch = k.batch / perBatch;
        d.blockBatch = perBatch;
        d.gridRows = rows / perTile;
        d.gridCols = gridCols;
        d.blockRows = perTile;
        d.blockCols = blockCols;
        d.stepRows = perTile;
        d.stepDepth = 0;
        d.transposeRows = R;
        d.residentBytes = bytes;
        // Per transpose: each source row spread over the result rows, then selected into
        // them, on one corelet's SFU; one select op per source row, back to back.
        const double in = static_cast<double>(perBatch * blockCols * rowBytes);
        const double outBytes = static_cast<double>(perBatch * perTile * blockCols * e);
        const double work = static_cast<double>(perBatch * 2 * blockCols * perTile) / sfuOne +
                            static_cast<double>(perBatch * blockCols) * r.opChained;
        d.cycles = tileCycles(r, in, outBytes, work, chunks, tiles, 1);
        d.bound = "sfu";
        out.push_back(d);
      }
  }
  if (out.empty()) why = "no division of the re-layout fits the scratchpad";
  return out;
}

/// A window kernel: tiles of whole output rows of one image, each a box per window offset
/// (an unfold stores KH KW boxes of the input; a pooling combines them).
std::vector<Division> windowDivisions(const KernelGroup& k, const SpyreArch& arch,
                                      std::string& why) {
  Rates r(arch);
  Operation* op = k.ops.front();
  auto out = cast<RankedTensorType>(op->getResult(0).getType()).getShape();
  Value in = op->getOperand(0);
  const int64_t e = elementBytes(in);
  const int64_t OH = out[1], OW = out[2];
  int64_t boxes = 1, C = out[3];
  if (out.size() == 6) { // unfold [N, OH, OW, KH, KW, C]
    boxes = out[3] * out[4];
    C = out[5];
  } else { // pooling: its window operand
    auto win = cast<RankedTensorType>(op->getOperand(1).getType()).getShape();
    boxes = win[0] * win[1];
  }
  // A box's rows are runs of C elements: whole sticks when C is, byte runs otherwise.
  const int64_t run = roundUp(C * e, r.stick);
  const int64_t half = r.budget / 2;
  std::vector<Division> outDivs;
  for (int64_t perTile : divisors(OH)) {
    const int64_t tiles = k.rows / perTile;
    if (tiles > arch.chip.cores) continue;
    const int64_t bytes = (boxes + 1) * perTile * OW * run;
    if (bytes > half) continue;
    Division d;
    d.gridRows = tiles;
    d.blockRows = perTile;
    d.blockCols = k.cols;
    d.stepRows = perTile;
    d.residentBytes = bytes;
    const double moved = static_cast<double>(boxes * perTile * OW * run);
    const double outBytes =
        static_cast<double>(perTile * OW * (out.size() == 6 ? boxes : 1) * C * e);
    d.cycles = tileCycles(r, moved, outBytes, 0, 1, tiles, static_cast<int64_t>(boxes));
    d.bound = "dma";
    outDivs.push_back(d);
  }
  if (outDivs.empty()) why = "no division of the window kernel fits the scratchpad";
  return outDivs;
}

} // namespace chipless::frontend
