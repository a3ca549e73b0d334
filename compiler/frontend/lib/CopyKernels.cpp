//===- CopyKernels.cpp - kernels that move data: re-layouts, gathers, fills, windows ---===//
//
// Part of chipless. Kernels without compute ops (KernelWriter.h): a re-layout, blocks of the
// result's rows loaded through the view of the source as it lies (a permutation, a padded
// reshape, a part of a concatenation) and stored in the result's own layout; a gather of
// table rows by index; a fill (a padded tensor's border); a window kernel (a convolution's
// unfold, a pooling), boxes of the image copied or combined.
//
//===----------------------------------------------------------------------===//

#include "KernelWriter.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"

#include <iomanip>

namespace chipless::frontend {

namespace {

/// `v` as an MLIR float literal: decimal, or its bit pattern in hex where it is not finite
/// (MLIR's only spelling of an infinity or a NaN: a max pooling's padding is -inf).
std::string floatLiteral(const llvm::APFloat& v) {
  if (v.isFinite()) {
    std::ostringstream os;
    os << std::scientific << std::setprecision(17) << v.convertToDouble();
    return os.str();
  }
  llvm::SmallString<16> hex;
  v.bitcastToAPInt().toString(hex, 16, /*Signed=*/false);
  return "0x" + llvm::StringRef(hex).upper();
}

} // namespace

void KernelWriter::header(const std::vector<int64_t>& grid) {
  text_ << "module {\n  func.func @" << k_.name << "(";
  for (size_t i = 0; i < args_.size(); ++i)
    text_ << (i ? ", " : "") << "%" << args_[i] << "_ptr: index";
  text_ << ") attributes {grid = [" << dimsText(grid, ", ") << "]} {\n"
        << "    %kc0 = arith.constant 0 : index\n";
}

LogicalResult KernelWriter::writeRelayoutText() {
  Value in = k_.copyFrom;
  TensorView src = k_.source, dst = k_.dest;
  std::vector<int64_t> shape = src.shape();
  if (shape.size() == 1) {
    // A vector is one row.
    const std::vector<SmallVector<int64_t, 2>> groups{{0, 1}};
    auto s = reshapeView(src, {1, shape[0]}, groups, true);
    auto d = reshapeView(dst, {1, shape[0]}, groups, true);
    if (!s || !d) return fail("internal error: the Spyre front end cannot view a vector as a row");
    src = *s;
    dst = *d;
    shape = {1, shape[0]};
  }
  const size_t rank = shape.size();
  argumentNamed(names_.lookup(src.root));
  argumentNamed(names_.lookup(dst.root));
  std::vector<int64_t> grid;
  if (d_.gridBatch > 1) grid.push_back(d_.gridBatch);
  grid.push_back(d_.gridRows);
  if (d_.gridCols > 1) grid.push_back(d_.gridCols);
  header(grid);
  const std::string e = elem(in);
  const bool transposing = d_.transposeRows > 0;
  memView(transposing ? swapLastTwo(src) : src, e);
  memView(dst, e);
  text_ << "    " << (d_.gridBatch > 1 ? "%kbi, " : "") << "%kpid"
        << (d_.gridCols > 1 ? ", %kcid" : "")
        << " = ktdp.get_compute_tile_id : " << (d_.gridBatch > 1 ? "index, " : "") << "index"
        << (d_.gridCols > 1 ? ", index" : "") << "\n    %krows = arith.constant " << d_.blockRows
        << " : index\n"
        << "    %kr = arith.muli %kpid, %krows : index\n";
  // The box: one position of each outer dimension (or a run of matrices of a rank-3 tensor),
  // a block of rows, every column.
  std::vector<std::string> start(rank, "%kc0");
  std::vector<int64_t> box(rank, 1);
  start[rank - 2] = "%kr";
  box[rank - 2] = d_.blockRows;
  box[rank - 1] = shape[rank - 1];
  if (rank == 3 && d_.gridBatch > 1 && d_.blockBatch > 1) {
    text_ << "    %kbatch = arith.constant " << d_.blockBatch << " : index\n"
          << "    %kb0 = arith.muli %kbi, %kbatch : index\n";
    start[0] = "%kb0";
    box[0] = d_.blockBatch;
  } else if (rank > 2) {
    // The batch index counts the tile's box of batch positions (Division.h, batchBox):
    // blocks of its run of the dimension it runs along, then the positions of the
    // dimensions before it. A dimension the box covers whole starts at 0 with no index
    // arithmetic, except the one before the matrix, which keeps its arithmetic (by a count
    // of 1) as before boxes spanned several dimensions.
    const std::vector<int64_t> batch =
        batchBox(llvm::ArrayRef<int64_t>(shape).drop_back(2), d_.blockBatch);
    if (batch.empty())
      return fail("internal error: the Spyre front end divides a re-layout in runs of " +
                  std::to_string(d_.blockBatch) + " matrices, which are not a box");
    std::string pos = "%kbi";
    for (size_t i = rank - 2; d_.gridBatch > 1 && i-- > 0;) {
      if (i + 3 != rank && batch[i] > 1 && batch[i] == shape[i]) continue;
      const int64_t count = shape[i] / batch[i];
      std::string at = pos;
      if (i > 0) {
        const std::string m = "%kx" + std::to_string(fresh_++),
                          q = "%kx" + std::to_string(fresh_++), c = constant(count);
        text_ << "    " << m << " = arith.remui " << pos << ", " << c << " : index\n"
              << "    " << q << " = arith.divui " << pos << ", " << c << " : index\n";
        at = m;
        pos = q;
      }
      if (batch[i] > 1) {
        const std::string b = "%kx" + std::to_string(fresh_++), c = constant(batch[i]);
        text_ << "    " << b << " = arith.muli " << at << ", " << c << " : index\n";
        at = b;
      }
      start[i] = at;
      if (i == 0) break;
    }
    std::copy(batch.begin(), batch.end(), box.begin());
  }
  if (transposing) return writeTransposedBlocks(src, dst, e, start, box);
  FailureOr<std::string> block = loadBox(src, e, start, box);
  if (failed(block) || failed(storeBox(*block, dst, e, start, box)))
    return fail("internal error: the Spyre front end cannot copy a block of a tensor that lies "
                "as " +
                src.describe());
  text_ << "    return\n  }\n}\n";
  return success();
}

LogicalResult KernelWriter::writeTransposedBlocks(const TensorView& src, const TensorView& dst,
                                                  const std::string& e,
                                                  const std::vector<std::string>& start,
                                                  const std::vector<int64_t>& box) {
  const size_t rank = box.size();
  const int64_t R = d_.transposeRows, C = d_.blockRows;
  // A run of matrices along one batch dimension (Division::blockBatch): one at a time.
  std::vector<std::string> at = start;
  std::vector<int64_t> one = box;
  const auto run = std::find_if(box.begin(), box.end() - 2, [](int64_t n) { return n > 1; });
  const size_t runDim = static_cast<size_t>(run - box.begin());
  if (run != box.end() - 2) {
    const std::string n = constant(*run), step = constant(1),
                      end = "%kx" + std::to_string(fresh_++);
    text_ << "    " << end << " = arith.addi " << start[runDim] << ", " << n
          << " : index\n    scf.for %km = " << start[runDim] << " to " << end << " step " << step
          << " {\n";
    at[runDim] = "%km";
    one[runDim] = 1;
  }
  auto tensorType = [&](const std::vector<int64_t>& shape) {
    return "tensor<" + dimsText(shape) + "x" + e + ">";
  };
  // The batch positions folded away around the transpose of one matrix.
  std::string outer = "[";
  for (size_t i = 0; i + 1 < rank; ++i) outer += (i ? ", " : "") + std::to_string(i);
  outer += "], [" + std::to_string(rank - 1) + "]";
  // Result columns [col, col + n): the source's rows as they lie ([.., n, C]), transposed,
  // stored.
  auto transposeColumns = [&](const std::string& col, int64_t n) -> LogicalResult {
    std::vector<std::string> from = at;
    std::vector<int64_t> fromBox = one;
    from[rank - 2] = col;
    from[rank - 1] = at[rank - 2];
    fromBox[rank - 2] = n;
    fromBox[rank - 1] = C;
    FailureOr<std::string> rows = loadBox(swapLastTwo(src), e, from, fromBox);
    if (failed(rows))
      return fail("internal error: the Spyre front end cannot load the rows of a tensor that "
                  "lies as " +
                  src.describe());
    std::string matrix = *rows;
    if (rank > 2) {
      matrix = "%kx" + std::to_string(fresh_++);
      text_ << "    " << matrix << " = tensor.collapse_shape " << *rows << " [" << outer
            << "] : " << tensorType(fromBox) << " into " << tensorType({n, C}) << "\n";
    }
    const std::string empty = "%kx" + std::to_string(fresh_++),
                      t = "%kx" + std::to_string(fresh_++);
    text_ << "    " << empty << " = tensor.empty() : " << tensorType({C, n}) << "\n    " << t
          << " = linalg.transpose ins(" << matrix << " : " << tensorType({n, C}) << ") outs("
          << empty << " : " << tensorType({C, n}) << ") permutation = [1, 0]\n";
    std::vector<std::string> to = at;
    std::vector<int64_t> toBox = one;
    to[rank - 1] = col;
    toBox[rank - 1] = n;
    std::string block = t;
    if (rank > 2) {
      block = "%kx" + std::to_string(fresh_++);
      text_ << "    " << block << " = tensor.expand_shape " << t << " [" << outer
            << "] output_shape [" << dimsText(toBox, ", ") << "] : " << tensorType({C, n})
            << " into " << tensorType(toBox) << "\n";
    }
    if (failed(storeBox(block, dst, e, to, toBox)))
      return fail("internal error: the Spyre front end cannot store a block of a tensor that "
                  "lies as " +
                  dst.describe());
    return success();
  };
  // The tile's columns: a block of whole sticks of them, or all; R at a time (a loop when
  // there are several runs of R), then the rest.
  std::string col = "%kc0";
  if (d_.gridCols > 1) {
    const std::string width = constant(d_.blockCols);
    text_ << "    %kc1 = arith.muli %kcid, " << width << " : index\n";
    col = "%kc1";
  }
  const int64_t runs = d_.blockCols / R, rest = d_.blockCols % R;
  if (runs > 1) {
    const std::string width = constant(runs * R), step = constant(R),
                      end = "%kx" + std::to_string(fresh_++);
    text_ << "    " << end << " = arith.addi " << col << ", " << width
          << " : index\n    scf.for %kt = " << col << " to " << end << " step " << step << " {\n";
    if (failed(transposeColumns("%kt", R))) return failure();
    text_ << "    }\n";
  } else if (runs == 1 && failed(transposeColumns(col, R))) {
    return failure();
  }
  if (rest > 0) {
    std::string last = col;
    if (runs > 0) {
      const std::string width = constant(runs * R);
      last = "%kx" + std::to_string(fresh_++);
      text_ << "    " << last << " = arith.addi " << col << ", " << width << " : index\n";
    }
    if (failed(transposeColumns(last, rest))) return failure();
  }
  if (run != box.end() - 2) text_ << "    }\n";
  text_ << "    return\n  }\n}\n";
  return success();
}

LogicalResult KernelWriter::writeGatherText() {
  auto g = cast<tensor::GatherOp>(k_.ops.front());
  Value table = g.getSource(), ids = g.getIndices(), out = g->getResult(0);
  std::optional<TensorView> tv = accessView(table, Form::Matrix),
                            iv = accessView(ids, Form::PerRow), ov = accessView(out, Form::Matrix);
  if (!tv || !iv || !ov)
    return fail("internal error: the Spyre front end cannot read the gather's operands as "
                "they lie");
  argument(table);
  argument(ids);
  argument(out);
  header({d_.gridRows});
  const std::string e = elem(table);
  const std::string tableView = memView(*tv, e), idsView = memView(*iv, elem(ids));
  memView(*ov, e);
  text_ << "    %kpid = ktdp.get_compute_tile_id : index\n"
        << "    %krows = arith.constant " << d_.blockRows << " : index\n"
        << "    %kr = arith.muli %kpid, %krows : index\n";
  // rows[m, ...] = table[ids[r + m], ...]: the row subscript read from the ids, one
  // variable per factor of the columns, each a direct subscript.
  const DimLayout& cols = tv->dims[1];
  std::vector<int64_t> box{d_.blockRows}, covered{d_.blockRows};
  std::string vars = "%km", subs = "ind(" + idsView + "[%km + %kr])";
  for (size_t i = 0; i < cols.factors.size(); ++i) {
    const std::string v = "%kv" + std::to_string(i) + "f";
    vars += ", " + v;
    subs += ", (" + v + ")";
    box.push_back(cols.factors[i].size);
  }
  covered.push_back(cols.covered());
  const std::string tileT = "!ktdp.access_tile<" + dimsText(box) + "xindex>",
                    loadT = "tensor<" + dimsText(box) + "x" + e + ">";
  text_ << "    %ktg = ktdp.construct_indirect_access_tile intermediate_variables(" << vars << ") "
        << tableView << "[" << subs << "] {\n      variables_space_set = " << boxSet(box)
        << ", variables_space_order = " << identityMap(box.size())
        << "\n    } : " << memrefs_[tableView] << ", " << memrefs_[idsView] << " -> " << tileT
        << "\n    %kgather = ktdp.load %ktg : " << tileT << " -> " << loadT << "\n";
  std::string value = "%kgather";
  const int64_t D = cast<RankedTensorType>(table.getType()).getShape().back();
  const std::vector<int64_t> block{d_.blockRows, D};
  if (cols.factors.size() > 1) {
    std::string groups = "[0], [";
    for (size_t i = 0; i < cols.factors.size(); ++i)
      groups += (i ? ", " : "") + std::to_string(i + 1);
    const std::string t = "tensor<" + dimsText(covered) + "x" + e + ">";
    text_ << "    %kgcol = tensor.collapse_shape %kgather [" << groups << "]] : " << loadT
          << " into " << t << "\n";
    value = "%kgcol";
    if (covered[1] != D) {
      text_ << "    %kgrows = tensor.extract_slice %kgcol[0, 0] [" << dimsText(block, ", ")
            << "] [1, 1] : " << t << " to tensor<" << dimsText(block) << "x" << e << ">\n";
      value = "%kgrows";
    }
  }
  if (failed(storeBox(value, *ov, e, {"%kr", "%kc0"}, block)))
    return fail("internal error: the Spyre front end cannot store the gathered rows");
  text_ << "    return\n  }\n}\n";
  return success();
}

LogicalResult KernelWriter::writeFillText() {
  Value out = k_.copyFrom;
  std::optional<TensorView> ov = accessView(out, Form::Matrix);
  if (!ov) return fail("internal error: the Spyre front end cannot write the padded tensor");
  argument(out);
  header({d_.gridRows});
  const std::string e = elem(out);
  memView(*ov, e);
  const int64_t C = ov->shape()[1];
  const std::string t =
      "tensor<" + std::to_string(d_.blockRows) + "x" + std::to_string(C) + "x" + e + ">";
  const std::string value = floatLiteral(cast<FloatAttr>(k_.fillValue).getValue());
  text_ << "    %kpid = ktdp.get_compute_tile_id : index\n"
        << "    %krows = arith.constant " << d_.blockRows << " : index\n"
        << "    %kr = arith.muli %kpid, %krows : index\n"
        << "    %kvalue = arith.constant " << value << " : " << e << "\n"
        << "    %kempty = tensor.empty() : " << t << "\n"
        << "    %kfill = linalg.fill ins(%kvalue : " << e << ") outs(%kempty : " << t << ") -> "
        << t << "\n";
  if (failed(storeBox("%kfill", *ov, e, {"%kr", "%kc0"}, {d_.blockRows, C})))
    return fail("internal error: the Spyre front end cannot store the padding");
  text_ << "    return\n  }\n}\n";
  return success();
}

LogicalResult KernelWriter::writeWindowText() {
  Operation* op = k_.ops.front();
  Value in = op->getOperand(0), out = op->getResult(0);
  ArrayRef<int64_t> o = cast<RankedTensorType>(out.getType()).getShape();
  const bool unfold = o.size() == 6;
  const int64_t N = o[0], OH = o[1], OW = o[2], C = o.back();
  const Window w = windowOf(op);
  TensorView image = plan_.views.lookup(in), result = plan_.views.lookup(out);
  argument(in);
  argument(out);
  header({d_.gridRows});
  const std::string e = elem(out);
  // Window offset (kh, kw) of every output pixel: the image's rows from kh dh every sh,
  // its columns from kw dw every sw, a strided view of its own.
  std::vector<TensorView> offsets;
  for (int64_t kh = 0; kh < w.KH; ++kh)
    for (int64_t kw = 0; kw < w.KW; ++kw) {
      auto v = sliceView(image, {0, kh * w.dilationH, kw * w.dilationW, 0}, {N, OH, OW, C},
                         {1, w.strideH, w.strideW, 1});
      if (!v) return fail("internal error: the Spyre front end cannot view a window offset");
      offsets.push_back(*v);
      memView(*v, e);
    }
  memView(result, e);
  text_ << "    %kpid = ktdp.get_compute_tile_id : index\n"
        << "    %krows = arith.constant " << d_.blockRows << " : index\n"
        << "    %kr = arith.muli %kpid, %krows : index\n"
        << "    %koh = arith.constant " << OH << " : index\n"
        << "    %kn = arith.divui %kr, %koh : index\n"
        << "    %kh0 = arith.remui %kr, %koh : index\n";
  const int64_t b = d_.blockRows;
  auto boxType = [&](const std::vector<int64_t>& s) {
    return "tensor<" + dimsText(s) + "x" + e + ">";
  };
  const std::string failed_ =
      "internal error: the Spyre front end cannot copy a window of the image";
  const std::vector<int64_t> box{1, b, OW, C};
  const std::vector<std::string> at{"%kn", "%kh0", "%kc0", "%kc0"};
  if (unfold) {
    // Offset (kh, kw) of the block's pixels goes to that offset's columns of their rows.
    const std::vector<int64_t> outBox{1, b, OW, 1, 1, C};
    size_t i = 0;
    for (int64_t kh = 0; kh < w.KH; ++kh)
      for (int64_t kw = 0; kw < w.KW; ++kw) {
        FailureOr<std::string> v = loadBox(offsets[i++], e, at, box);
        if (failed(v)) return fail(failed_);
        const std::string x6 = "%kx" + std::to_string(fresh_++);
        text_ << "    " << x6 << " = tensor.expand_shape " << *v
              << " [[0], [1], [2, 3, 4], [5]] output_shape [" << dimsText(outBox, ", ")
              << "] : " << boxType(box) << " into " << boxType(outBox) << "\n";
        const std::string ch = constant(kh), cw = constant(kw);
        if (failed(storeBox(x6, result, e, {"%kn", "%kh0", "%kc0", ch, cw, "%kc0"}, outBox)))
          return fail(failed_);
      }
  } else {
    // A pooling combines the offsets (max or add) of each output pixel.
    const bool max = isa<linalg::PoolingNhwcMaxOp>(op);
    std::string acc;
    for (const TensorView& view : offsets) {
      FailureOr<std::string> v = loadBox(view, e, at, box);
      if (failed(v)) return fail(failed_);
      if (acc.empty()) {
        acc = *v;
        continue;
      }
      const std::string next = "%kx" + std::to_string(fresh_++);
      text_ << "    " << next << " = " << (max ? "arith.maximumf " : "arith.addf ") << acc << ", "
            << *v << " : " << boxType(box) << "\n";
      acc = next;
    }
    if (failed(storeBox(acc, result, e, at, box))) return fail(failed_);
  }
  text_ << "    return\n  }\n}\n";
  return success();
}

} // namespace chipless::frontend
