//===- KernelBuilder.cpp - one kernel of the graph as KTIR ----------------===//
//
// Part of chipless. See KernelBuilder.h. The scaffolding (views, tiles, loads, loops,
// stores) is written as KTIR text and parsed; the kernel's ops are then rebuilt on the
// block's tensors between the loads and the stores, where placeholders stand for their
// results until they exist.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

#include "graph/GraphForm.h"
#include "ktir/Dialect/Ktdp/KtdpOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include "llvm/Support/raw_ostream.h"

#include <set>
#include <sstream>

using namespace mlir;

namespace chipless::frontend {

namespace {

constexpr const char* kOutputAttr = "frontend.output";

std::string typeText(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  t.print(os);
  return s;
}

std::string dimsText(const std::vector<int64_t>& shape, const char* sep = "x") {
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? sep : "") + std::to_string(shape[i]);
  return s;
}

/// affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, ...)>: the box [0, shape).
std::string boxSet(const std::vector<int64_t>& shape) {
  std::string dims, cons;
  for (size_t i = 0; i < shape.size(); ++i) {
    std::string d = "d" + std::to_string(i);
    dims += (i ? ", " : "") + d;
    cons += (i ? ", " : "") + d + " >= 0, -" + d + " + " + std::to_string(shape[i] - 1) + " >= 0";
  }
  return "affine_set<(" + dims + ") : (" + cons + ")>";
}

std::string identityMap(size_t rank) {
  std::string dims;
  for (size_t i = 0; i < rank; ++i) dims += (i ? ", " : "") + std::string("d") + std::to_string(i);
  return "affine_map<(" + dims + ") -> (" + dims + ")>";
}

/// Clones one op of a linalg body into a kernel. The SFU has no erf: math.erf becomes
/// Abramowitz and Stegun's 7.1.26 (|error| < 1.5e-7, far below f16 and bf16 rounding) in
/// ops it has: erf(x) = sign(x) (1 - t (a1 + t (a2 + t (a3 + t (a4 + t a5)))) e^(-x^2)),
/// t = 1 / (1 + p |x|).
void cloneBodyOp(OpBuilder& b, Operation& op, IRMapping& m) {
  if (auto pow = dyn_cast<math::PowFOp>(op)) {
    // A constant exponent (the front end's verifier admits 0.5, -0.5, -1, 1, 2, 3, 4) as
    // the SFU's products, square root and reciprocal square root.
    Location loc = op.getLoc();
    Value x = m.lookup(pow.getLhs());
    const double k = *graph::constantValue(pow.getRhs());
    Value r;
    if (k == 0.5)
      r = b.create<math::SqrtOp>(loc, x);
    else if (k == -0.5)
      r = b.create<math::RsqrtOp>(loc, x);
    else if (k == -1.0)
      r = b.create<arith::DivFOp>(
          loc, b.create<arith::ConstantOp>(loc, b.getFloatAttr(x.getType(), 1.0)), x);
    else {
      r = x;
      for (int i = 1; i < static_cast<int>(k); ++i) r = b.create<arith::MulFOp>(loc, r, x);
    }
    m.map(pow.getResult(), r);
    return;
  }
  auto erf = dyn_cast<math::ErfOp>(op);
  if (!erf) {
    b.clone(op, m);
    return;
  }
  Location loc = op.getLoc();
  Value x = m.lookup(erf.getOperand());
  Type t = x.getType();
  auto c = [&](double v) {
    return b.create<arith::ConstantOp>(loc, b.getFloatAttr(t, v)).getResult();
  };
  Value a = b.create<math::AbsFOp>(loc, x);
  Value one = c(1.0);
  Value den = b.create<arith::AddFOp>(loc, one, b.create<arith::MulFOp>(loc, c(0.3275911), a));
  Value tt = b.create<arith::DivFOp>(loc, one, den);
  Value poly = c(1.061405429);
  for (double k : {-1.453152027, 1.421413741, -0.284496736, 0.254829592})
    poly = b.create<arith::AddFOp>(loc, c(k), b.create<arith::MulFOp>(loc, tt, poly));
  poly = b.create<arith::MulFOp>(loc, tt, poly);
  Value negSq = b.create<arith::NegFOp>(loc, b.create<arith::MulFOp>(loc, a, a));
  Value y = b.create<arith::SubFOp>(
      loc, one, b.create<arith::MulFOp>(loc, poly, b.create<math::ExpOp>(loc, negSq)));
  // The sign as a select of two constants (one streamed operand, not three).
  Value neg = b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OLT, x, c(0.0));
  Value sign = b.create<arith::SelectOp>(loc, neg, c(-1.0), one);
  m.map(erf.getResult(), b.create<arith::MulFOp>(loc, sign, y));
}

/// The kernel as text and what its parts mean, then the rebuilt ops.
class Builder {
public:
  Builder(const KernelGroup& k, const Division& d, const KernelPlan& plan, const MemoryNames& names,
          MLIRContext* ctx)
      : k_(k), d_(d), plan_(plan), names_(names), ctx_(ctx) {}

  FailureOr<OwningOpRef<ModuleOp>> build();

private:
  const KernelGroup& k_;
  const Division& d_;
  const KernelPlan& plan_;
  const MemoryNames& names_;
  MLIRContext* ctx_;
  std::ostringstream text_;
  std::vector<std::string> args_;            ///< memory names, in argument order
  llvm::DenseMap<Value, std::string> views_; ///< graph tensor -> its view's SSA name
  std::vector<Value> loaded_;                ///< graph tensors in the order of their loads
  IRMapping map_;                            ///< graph values -> kernel values
  int repeats_ = 0;                          ///< repeated rows computed so far
  int shifts_ = 0;                           ///< slice offsets added so far

  bool matmul() const { return k_.kind == KernelGroup::Kind::Matmul; }
  bool splitK() const { return matmul() && d_.gridDepth > 1; }
  /// Rows of the matmul block a tile's epilogue works on: the slice the reduce-scatter
  /// leaves it when K is split.
  int64_t epilogueRows() const { return d_.blockRows / d_.gridDepth; }
  int64_t blockRows() const { return splitK() ? epilogueRows() : d_.stepRows; }
  /// A matmul tile that computes its block a few rows at a time (the whole block does not
  /// fit the scratchpad).
  bool subBlocks() const { return matmul() && !splitK() && d_.stepRows != d_.blockRows; }
  /// The first row of what a step of a matmul tile computes.
  std::string matmulRow() const { return splitK() ? "%kms" : subBlocks() ? "%kmr" : "%km0"; }

  /// The view shape of a graph tensor in form `f`.
  std::vector<int64_t> viewShape(Value v, Form f) const {
    // A slice is seen through a view of its source (the box starts at sliceStart()).
    if (plan_.slices.count(v)) v = plan_.memoryOf.lookup(v);
    ArrayRef<int64_t> s = cast<RankedTensorType>(v.getType()).getShape();
    if (f == Form::Matrix || f == Form::Repeated) return {rowsOf(s), s.back()};
    int64_t n = 1;
    for (int64_t x : s) n *= x;
    return {n};
  }
  /// The block of a graph tensor one step of one tile holds.
  std::vector<int64_t> blockShape(Value v, Form f) const {
    ArrayRef<int64_t> s = cast<RankedTensorType>(v.getType()).getShape();
    switch (f) {
    case Form::Matrix:
    case Form::Repeated:
      return {blockRows(), matmul() ? d_.blockCols : s.back()};
    case Form::PerRow:
      return {blockRows()};
    case Form::PerCol:
      return {matmul() ? d_.blockCols : viewShape(v, f)[0]};
    }
    return {};
  }
  RankedTensorType blockType(Value v) const {
    auto shape = blockShape(v, k_.formOf(v));
    return RankedTensorType::get(shape, cast<ShapedType>(v.getType()).getElementType());
  }
  /// Where a step's block of `v` starts in its view (a repeated matrix's row is computed
  /// first: its name in `repeatedRow`).
  std::string blockStart(Form f, const std::string& repeatedRow = "") const {
    const std::string row = matmul() ? matmulRow() : "%kr", col = matmul() ? "%kn0" : "%kc0";
    switch (f) {
    case Form::Matrix:
      return row + ", " + col;
    case Form::Repeated:
      return repeatedRow + ", " + col;
    case Form::PerRow:
      return row;
    case Form::PerCol:
      return col;
    }
    return "";
  }

  int argument(Value v) {
    const std::string& name = names_.lookup(memoryRoot(plan_, v));
    for (size_t i = 0; i < args_.size(); ++i)
      if (args_[i] == name) return static_cast<int>(i);
    args_.push_back(name);
    return static_cast<int>(args_.size()) - 1;
  }
  std::string elem(Value v) const {
    return typeText(cast<ShapedType>(v.getType()).getElementType());
  }
  /// Declares the view of graph tensor `v` (once).
  void view(Value v, Form f) {
    if (views_.count(v)) return;
    const std::string name = "%kv" + std::to_string(views_.size());
    views_[v] = name;
    auto shape = viewShape(v, f);
    std::vector<int64_t> strides(shape.size(), 1);
    for (size_t i = shape.size() - 1; i-- > 0;) strides[i] = strides[i + 1] * shape[i + 1];
    text_ << "    " << name << " = ktdp.construct_memory_view %"
          << names_.lookup(memoryRoot(plan_, v)) << "_ptr, sizes: [" << dimsText(shape, ", ")
          << "], strides: [" << dimsText(strides, ", ")
          << "] {\n      coordinate_set = " << boxSet(shape)
          << ", memory_space = #ktdp.memory_space<global>\n    } : memref<" << dimsText(shape)
          << "x" << elem(v) << ">\n";
  }
  std::string memrefOf(Value v, Form f) const {
    return "memref<" + dimsText(viewShape(v, f)) + "x" + elem(v) + ">";
  }
  /// An access tile of `shape` at `start` in the view of `v`, and its load or store.
  /// `start` moved to where slice `v`'s box lies in its source's view (unchanged for a
  /// tensor that is not a slice).
  std::string sliceStart(Value v, Form f, const std::string& start) {
    auto it = plan_.slices.find(v);
    if (it == plan_.slices.end()) return start;
    std::vector<std::string> coords;
    for (size_t from = 0;;) {
      size_t comma = start.find(", ", from);
      coords.push_back(start.substr(from, comma == std::string::npos ? comma : comma - from));
      if (comma == std::string::npos) break;
      from = comma + 2;
    }
    auto shift = [&](std::string& c, int64_t by) {
      if (by == 0) return;
      const std::string n = std::to_string(shifts_++);
      text_ << "    %koff" << n << " = arith.constant " << by << " : index\n    %kat" << n
            << " = arith.addi " << c << ", %koff" << n << " : index\n";
      c = "%kat" + n;
    };
    if (coords.size() == 2) {
      shift(coords[0], it->second.row);
      shift(coords[1], it->second.col);
    } else {
      shift(coords[0], f == Form::PerRow ? it->second.row : it->second.col);
    }
    std::string out;
    for (size_t i = 0; i < coords.size(); ++i) out += (i ? ", " : "") + coords[i];
    return out;
  }
  void tile(const std::string& name, Value v, Form f, const std::vector<int64_t>& shape,
            const std::string& given) {
    const std::string start = sliceStart(v, f, given);
    text_ << "    " << name << " = ktdp.construct_access_tile " << views_[v] << "[" << start
          << "] {\n      access_tile_set = " << boxSet(shape)
          << ", access_tile_order = " << identityMap(shape.size()) << "\n    } : " << memrefOf(v, f)
          << " -> !ktdp.access_tile<" << dimsText(shape) << "xindex>\n";
  }
  /// `row` modulo the rows of repeated matrix `v`: the row of `v` a kernel row reads.
  std::string repeatedRow(Value v, const std::string& row) {
    const std::string n = std::to_string(repeats_++);
    text_ << "    %kperiod" << n << " = arith.constant " << viewShape(v, Form::Repeated)[0]
          << " : index\n    %krep" << n << " = arith.remui " << row << ", %kperiod" << n
          << " : index\n";
    return "%krep" + n;
  }
  void load(Value v, Form f, const std::vector<int64_t>& shape, const std::string& start) {
    const std::string n = std::to_string(loaded_.size());
    tile("%kt" + n, v, f, shape, start);
    text_ << "    %kin" << n << " = ktdp.load %kt" << n << " : !ktdp.access_tile<"
          << dimsText(shape) << "xindex> -> tensor<" << dimsText(shape) << "x" << elem(v) << ">\n";
    loaded_.push_back(v);
  }

  void writeText();
  /// A permutation (linalg.transpose): blocks of output rows loaded through a view of the
  /// input whose strides are permuted, and stored.
  void writePermuteText();
  /// A window kernel (a convolution's unfold, a pooling): boxes of the image copied (or
  /// combined) a block of output rows at a time.
  void writeWindowText();
  std::set<int64_t> constants_; ///< index constants %kcN written so far
  LogicalResult rebuild(Operation* op, OpBuilder& b);
  FailureOr<Value> fresh(Value graphInit, RankedTensorType t, OpBuilder& b, Location loc);
  FailureOr<Value> mapped(Value v, Operation* user);
  LogicalResult cloneBody(Operation* op, Block& from, OpBuilder& outer, IRMapping& m);
};

void Builder::writePermuteText() {
  auto t = cast<linalg::TransposeOp>(k_.ops.front());
  Value in = t.getInput(), out = t->getResult(0);
  ArrayRef<int64_t> inShape = cast<RankedTensorType>(in.getType()).getShape();
  ArrayRef<int64_t> outShape = cast<RankedTensorType>(out.getType()).getShape();
  const auto perm = t.getPermutation();
  const size_t rank = outShape.size();
  std::vector<int64_t> inStrides(rank, 1), outStrides(rank, 1), viewStrides(rank);
  for (size_t i = rank - 1; i-- > 0;) {
    inStrides[i] = inStrides[i + 1] * inShape[i + 1];
    outStrides[i] = outStrides[i + 1] * outShape[i + 1];
  }
  for (size_t i = 0; i < rank; ++i) viewStrides[i] = inStrides[static_cast<size_t>(perm[i])];
  const std::string inName = names_.lookup(memoryRoot(plan_, in)),
                    outName = names_.lookup(memoryRoot(plan_, out));
  args_ = {inName, outName};
  const bool batched = rank == 3;
  const std::vector<int64_t> shape(outShape.begin(), outShape.end());
  std::vector<int64_t> block = batched ? std::vector<int64_t>{d_.blockBatch, d_.blockRows, k_.cols}
                                       : std::vector<int64_t>{d_.blockRows, k_.cols};
  const std::string start = batched ? "%kb0, %kr, %kc0" : "%kr, %kc0";
  const std::string mem = "memref<" + dimsText(shape) + "x" + elem(out) + ">";
  const std::string tileT = "!ktdp.access_tile<" + dimsText(block) + "xindex>";
  text_ << "module {\n  func.func @" << k_.name << "(%" << inName << "_ptr: index, %" << outName
        << "_ptr: index) attributes {grid = [";
  if (batched) text_ << d_.gridBatch << ", ";
  text_ << d_.gridRows << "]} {\n"
        << "    %kc0 = arith.constant 0 : index\n"
        << "    " << (batched ? "%kbi, " : "")
        << "%kpid = ktdp.get_compute_tile_id : " << (batched ? "index, " : "") << "index\n"
        << "    %krows = arith.constant " << d_.blockRows << " : index\n"
        << "    %kr = arith.muli %kpid, %krows : index\n";
  if (batched)
    text_ << "    %kbatch = arith.constant " << d_.blockBatch << " : index\n"
          << "    %kb0 = arith.muli %kbi, %kbatch : index\n";
  // The input seen in the output's order: its strides permuted.
  auto view = [&](const std::string& name, const std::string& ptr,
                  const std::vector<int64_t>& strides) {
    text_ << "    " << name << " = ktdp.construct_memory_view %" << ptr << "_ptr, sizes: ["
          << dimsText(shape, ", ") << "], strides: [" << dimsText(strides, ", ")
          << "] {\n      coordinate_set = " << boxSet(shape)
          << ", memory_space = #ktdp.memory_space<global>\n    } : " << mem << "\n";
  };
  view("%kvin", inName, viewStrides);
  view("%kvout", outName, outStrides);
  for (const char* side : {"in", "out"})
    text_ << "    %kt" << side << " = ktdp.construct_access_tile %kv" << side << "[" << start
          << "] {\n      access_tile_set = " << boxSet(block)
          << ", access_tile_order = " << identityMap(rank) << "\n    } : " << mem << " -> " << tileT
          << "\n";
  const std::string tensorT = "tensor<" + dimsText(block) + "x" + elem(out) + ">";
  text_ << "    %kblock = ktdp.load %ktin : " << tileT << " -> " << tensorT << "\n"
        << "    ktdp.store %kblock, %ktout : " << tensorT << ", " << tileT << "\n"
        << "    return\n  }\n}\n";
}

void Builder::writeWindowText() {
  Operation* op = k_.ops.front();
  Value in = op->getOperand(0), out = op->getResult(0);
  ArrayRef<int64_t> x = cast<RankedTensorType>(in.getType()).getShape();
  ArrayRef<int64_t> o = cast<RankedTensorType>(out.getType()).getShape();
  const bool unfold = o.size() == 6;
  const int64_t N = x[0], H = x[1], W = x[2], C = x[3], OH = o[1], OW = o[2];
  int64_t KH, KW;
  if (unfold) {
    KH = o[3];
    KW = o[4];
  } else {
    auto win = cast<RankedTensorType>(op->getOperand(1).getType()).getShape();
    KH = win[0];
    KW = win[1];
  }
  const std::string inName = names_.lookup(memoryRoot(plan_, in)),
                    outName = names_.lookup(memoryRoot(plan_, out));
  args_ = {inName, outName};
  const std::string e = elem(out);
  auto view = [&](const std::string& name, const std::string& ptr, std::vector<int64_t> shape,
                  std::vector<int64_t> strides) {
    text_ << "    " << name << " = ktdp.construct_memory_view %" << ptr << "_ptr, sizes: ["
          << dimsText(shape, ", ") << "], strides: [" << dimsText(strides, ", ")
          << "] {\n      coordinate_set = " << boxSet(shape)
          << ", memory_space = #ktdp.memory_space<global>\n    } : memref<" << dimsText(shape)
          << "x" << e << ">\n";
  };
  int boxes = 0;
  auto box = [&](const std::string& viewName, const std::vector<int64_t>& viewShape,
                 const std::vector<int64_t>& shape, const std::string& start) {
    const std::string n = "%kbox" + std::to_string(boxes++);
    text_ << "    " << n << "t = ktdp.construct_access_tile " << viewName << "[" << start
          << "] {\n      access_tile_set = " << boxSet(shape)
          << ", access_tile_order = " << identityMap(shape.size()) << "\n    } : memref<"
          << dimsText(viewShape) << "x" << e << "> -> !ktdp.access_tile<" << dimsText(shape)
          << "xindex>\n";
    return n;
  };
  auto constant = [&](int64_t v) {
    const std::string n = "%kc" + std::to_string(v);
    if (!constants_.insert(v).second) return n;
    if (v != 0) text_ << "    " << n << " = arith.constant " << v << " : index\n";
    return n;
  };
  constants_.insert(0);
  text_ << "module {\n  func.func @" << k_.name << "(%" << inName << "_ptr: index, %" << outName
        << "_ptr: index) attributes {grid = [" << d_.gridRows << "]} {\n"
        << "    %kc0 = arith.constant 0 : index\n"
        << "    %kpid = ktdp.get_compute_tile_id : index\n"
        << "    %krows = arith.constant " << d_.blockRows << " : index\n"
        << "    %kr = arith.muli %kpid, %krows : index\n";
  if (unfold) {
    // Rows [r, r + block) of image n = r / OH: for each window offset (kh, kw) the box of
    // the input at (oh + kh, kw) goes to columns (kh KW + kw) C of the unfolded rows.
    const std::vector<int64_t> xs{N, H, W, C}, us{N, OH, OW, KH * KW * C};
    view("%kvx", inName, xs, {H * W * C, W * C, C, 1});
    view("%kvu", outName, us, {OH * OW * KH * KW * C, OW * KH * KW * C, KH * KW * C, 1});
    text_ << "    %koh = arith.constant " << OH << " : index\n"
          << "    %kn = arith.divui %kr, %koh : index\n"
          << "    %kh0 = arith.remui %kr, %koh : index\n";
    const std::vector<int64_t> shape{1, d_.blockRows, OW, C};
    const std::string t = "tensor<" + dimsText(shape) + "x" + e + ">",
                      at = "!ktdp.access_tile<" + dimsText(shape) + "xindex>";
    for (int64_t kh = 0; kh < KH; ++kh)
      for (int64_t kw = 0; kw < KW; ++kw) {
        const std::string row = "%kxh" + std::to_string(kh);
        if (kw == 0)
          text_ << "    " << row << " = arith.addi %kh0, " << constant(kh) << " : index\n";
        const std::string src =
            box("%kvx", xs, shape, "%kn, " + row + ", " + constant(kw) + ", %kc0");
        const std::string dst =
            box("%kvu", us, shape, "%kn, %kh0, %kc0, " + constant((kh * KW + kw) * C));
        text_ << "    " << src << " = ktdp.load " << src << "t : " << at << " -> " << t << "\n"
              << "    ktdp.store " << src << ", " << dst << "t : " << t << ", " << at << "\n";
      }
  } else {
    // Output row r (image r / OH, row r mod OH) combines rows kh of the window band of the
    // input, the image seen as [N OH, KH, OW, KW C]: box (kh, kw) is columns kw C.
    const std::vector<int64_t> xs{N * OH, KH, OW, KW * C}, ys{N * OH, 1, OW, C};
    view("%kvx", inName, xs, {KH * W * C, W * C, KW * C, 1});
    view("%kvy", outName, ys, {OW * C, OW * C, C, 1});
    const std::vector<int64_t> shape{d_.blockRows, 1, OW, C};
    const std::string t = "tensor<" + dimsText(shape) + "x" + e + ">",
                      at = "!ktdp.access_tile<" + dimsText(shape) + "xindex>";
    const bool max = isa<linalg::PoolingNhwcMaxOp>(op);
    std::string acc;
    for (int64_t kh = 0; kh < KH; ++kh)
      for (int64_t kw = 0; kw < KW; ++kw) {
        const std::string src =
            box("%kvx", xs, shape, "%kr, " + constant(kh) + ", %kc0, " + constant(kw * C));
        text_ << "    " << src << " = ktdp.load " << src << "t : " << at << " -> " << t << "\n";
        if (acc.empty()) {
          acc = src;
          continue;
        }
        const std::string next = src + "c";
        text_ << "    " << next << " = " << (max ? "arith.maximumf " : "arith.addf ") << acc << ", "
              << src << " : " << t << "\n";
        acc = next;
      }
    const std::string dst = box("%kvy", ys, shape, "%kr, %kc0, %kc0, %kc0");
    text_ << "    ktdp.store " << acc << ", " << dst << "t : " << t << ", " << at << "\n";
  }
  text_ << "    return\n  }\n}\n";
}

void Builder::writeText() {
  if (k_.kind == KernelGroup::Kind::Transpose) return writePermuteText();
  if (k_.kind == KernelGroup::Kind::Window) return writeWindowText();
  // Arguments: every tensor the kernel reads or writes, by its memory.
  for (const Operand& o : k_.inputs) argument(o.value);
  for (const Operand& o : k_.outputs) argument(o.value);
  if (splitK())
    text_ << "#kgroups = affine_set<(g) : (g >= 0, -g + " << d_.tiles() / d_.gridDepth - 1
          << " >= 0)>\n";
  text_ << "module {\n  func.func @" << k_.name << "(";
  for (size_t i = 0; i < args_.size(); ++i)
    text_ << (i ? ", " : "") << "%" << args_[i] << "_ptr: index";
  const bool batched = d_.gridBatch > 1;
  text_ << ") attributes {grid = [";
  if (splitK()) {
    text_ << d_.tiles(); // flattened: tile = (block * gridDepth + k)
  } else {
    if (batched) text_ << d_.gridBatch << ", ";
    text_ << d_.gridRows;
    if (matmul()) text_ << ", " << d_.gridCols;
  }
  text_ << "]} {\n";
  text_ << "    %kc0 = arith.constant 0 : index\n";
  for (const Operand& o : k_.inputs) view(o.value, o.form);
  for (const Operand& o : k_.outputs) view(o.value, o.form);

  bool loop = false;
  // A batch: tile (b, ...) works on matrix b, whose rows follow the rows of matrix b - 1.
  const int64_t matrixRows = k_.rows / k_.batch;
  if (splitK()) {
    // Tile t multiplies span t mod gridDepth of K for output block t / gridDepth.
    text_ << "    %kpid = ktdp.get_compute_tile_id : index\n"
          << "    %kgk = arith.constant " << d_.gridDepth << " : index\n"
          << "    %kgn = arith.constant " << d_.gridCols << " : index\n"
          << "    %kki = arith.remui %kpid, %kgk : index\n"
          << "    %kblock = arith.divui %kpid, %kgk : index\n"
          << "    %ktj = arith.remui %kblock, %kgn : index\n"
          << "    %kti = arith.divui %kblock, %kgn : index\n"
          << "    %kbm = arith.constant " << d_.blockRows << " : index\n"
          << "    %kbn = arith.constant " << d_.blockCols << " : index\n"
          << "    %km0 = arith.muli %kti, %kbm : index\n"
          << "    %kn0 = arith.muli %ktj, %kbn : index\n"
          << "    %kspan = arith.constant " << k_.depth / d_.gridDepth << " : index\n"
          << "    %kk0 = arith.muli %kki, %kspan : index\n"
          << "    %kslice = arith.constant " << epilogueRows() << " : index\n"
          << "    %kmsl = arith.muli %kki, %kslice : index\n"
          << "    %kms = arith.addi %km0, %kmsl : index\n";
  } else if (matmul()) {
    text_ << "    " << (batched ? "%kbi, " : "")
          << "%kti, %ktj = ktdp.get_compute_tile_id : " << (batched ? "index, " : "")
          << "index, index\n"
          << "    %kbm = arith.constant " << d_.blockRows << " : index\n"
          << "    %kbn = arith.constant " << d_.blockCols << " : index\n"
          << "    %kn0 = arith.muli %ktj, %kbn : index\n";
    if (batched)
      text_ << "    %kmrows = arith.constant " << matrixRows << " : index\n"
            << "    %kbrow = arith.muli %kbi, %kmrows : index\n"
            << "    %kdepthrows = arith.constant " << k_.depth << " : index\n"
            << "    %kbk = arith.muli %kbi, %kdepthrows : index\n"
            << "    %kmi = arith.muli %kti, %kbm : index\n"
            << "    %km0 = arith.addi %kbrow, %kmi : index\n";
    else
      text_ << "    %km0 = arith.muli %kti, %kbm : index\n";
  } else {
    text_ << "    %kpid = ktdp.get_compute_tile_id : index\n"
          << "    %krows = arith.constant " << d_.blockRows << " : index\n";
    text_ << "    %krow0 = arith.muli %kpid, %krows : index\n";
  }
  // Vectors along the columns: one load per tile, before any loop.
  for (const Operand& o : k_.inputs)
    if (o.form == Form::PerCol)
      load(o.value, o.form, blockShape(o.value, o.form), blockStart(o.form));
  if (k_.kind == KernelGroup::Kind::Matmul) {
    Operation* mm = k_.ops.front();
    Value A = mm->getOperand(0), B = mm->getOperand(1), C = mm->getResult(0);
    const int64_t rows = splitK() ? d_.blockRows : d_.stepRows;
    const std::string acc =
        "tensor<" + std::to_string(rows) + "x" + std::to_string(d_.blockCols) + "x" + elem(C) + ">";
    const std::vector<int64_t> aShape{rows, d_.stepDepth}, bShape{d_.stepDepth, d_.blockCols};
    if (subBlocks()) {
      loop = true;
      text_ << "    %kmend = arith.addi %km0, %kbm : index\n"
            << "    %ksm = arith.constant " << d_.stepRows << " : index\n"
            << "    scf.for %kmr = %km0 to %kmend step %ksm {\n";
    }
    text_ << "    %kzero = arith.constant 0.0 : " << elem(C) << "\n"
          << "    %kempty = tensor.empty() : " << acc << "\n"
          << "    %kinit = linalg.fill ins(%kzero : " << elem(C) << ") outs(%kempty : " << acc
          << ") -> " << acc << "\n";
    const int64_t span = k_.depth / d_.gridDepth;
    const bool steps = d_.stepDepth != span;
    std::string kk = splitK() ? "%kk0" : "%kc0", part = "%kinit";
    if (steps) {
      if (splitK())
        text_ << "    %kdepth = arith.addi %kk0, %kspan : index\n";
      else
        text_ << "    %kdepth = arith.constant " << k_.depth << " : index\n";
      text_ << "    %kstep = arith.constant " << d_.stepDepth << " : index\n"
            << "    %kacc = scf.for %kk = " << kk
            << " to %kdepth step %kstep iter_args(%kpart = %kinit) -> (" << acc << ") {\n";
      kk = "%kk";
      part = "%kpart";
    }
    std::string kRow = kk;
    if (batched) {
      text_ << "    %kkrow = arith.addi %kbk, " << kk << " : index\n";
      kRow = "%kkrow";
    }
    tile("%kta", A, Form::Matrix, aShape,
         (splitK() ? std::string("%km0") : matmulRow()) + ", " + kk);
    tile("%ktb", B, Form::Matrix, bShape, kRow + ", %kn0");
    const std::string ta = "tensor<" + dimsText(aShape) + "x" + elem(A) + ">",
                      tb = "tensor<" + dimsText(bShape) + "x" + elem(B) + ">";
    text_ << "    %ka = ktdp.load %kta : !ktdp.access_tile<" << dimsText(aShape) << "xindex> -> "
          << ta << "\n    %kb = ktdp.load %ktb : !ktdp.access_tile<" << dimsText(bShape)
          << "xindex> -> " << tb << "\n    %kmm = linalg.matmul ins(%ka, %kb : " << ta << ", " << tb
          << ") outs(" << part << " : " << acc << ") -> " << acc << "\n";
    if (steps) text_ << "    scf.yield %kmm : " << acc << "\n    }\n";
    if (splitK()) {
      // The partials of the block's gridDepth tiles summed over the ring; each keeps a slice
      // of rows of the sum.
      const std::string partial = steps ? "%kacc" : "%kmm";
      const int64_t g = d_.gridDepth;
      const std::string tiles = "affine_set<(i)[g] : (i - " + std::to_string(g) + "*g >= 0, -i + " +
                                std::to_string(g) + "*g + " + std::to_string(g - 1) + " >= 0)>";
      // The groups are #kgroups, written before the module: its '>=' cannot sit inside a
      // type's angle brackets.
      const std::string future = "!ktdp.tile_future<" + acc + ", groups = #kgroups>";
      const std::string sliceT = "tensor<" + std::to_string(epilogueRows()) + "x" +
                                 std::to_string(d_.blockCols) + "x" + elem(C) + ">";
      text_ << "    %kfut = ktdp.inter_tile_produce producer_tiles_per_group = " << tiles << " : "
            << acc << " -> " << future << " {\n    ^bb0(%kgid: index):\n      ktdp.yield_partial "
            << partial << " : " << acc << "\n    }\n"
            << "    %kidempty = tensor.empty() : " << acc << "\n"
            << "    %kid = linalg.fill ins(%kzero : " << elem(C) << ") outs(%kidempty : " << acc
            << ") -> " << acc << "\n"
            << "    %ksum = ktdp.inter_tile_reduce_scatter(%kfut) consumer_tiles_per_group = "
            << tiles << ", scatter_dimensions = [0], identity(%kid : " << acc << ") : " << future
            << " -> " << sliceT << " {\n    ^bb0(%klhs: " << acc << ", %krhs: " << acc
            << "):\n      %ks = arith.addf %klhs, %krhs : " << acc
            << "\n      ktdp.yield_reduced %ks : " << acc << "\n    }\n";
    }
  } else if (d_.stepRows != d_.blockRows) {
    loop = true;
    text_ << "    %krowend = arith.addi %krow0, %krows : index\n"
          << "    %kstep = arith.constant " << d_.stepRows << " : index\n"
          << "    scf.for %kr = %krow0 to %krowend step %kstep {\n";
  } else {
    text_ << "    %kr = arith.addi %krow0, %kc0 : index\n";
  }
  // In a matmul kernel, A and B stream in slices for the matmul; the epilogue loads its own
  // blocks of what it reads (A itself, when the epilogue reads it).
  llvm::DenseSet<Value> epilogueReads;
  for (size_t i = 1; matmul() && i < k_.ops.size(); ++i)
    for (Value v : k_.ops[i]->getOperands()) epilogueReads.insert(v);
  for (const Operand& o : k_.inputs)
    if (o.form != Form::PerCol && (!matmul() || epilogueReads.contains(o.value))) {
      std::string rep;
      if (o.form == Form::Repeated) rep = repeatedRow(o.value, matmul() ? matmulRow() : "%kr");
      load(o.value, o.form, blockShape(o.value, o.form), blockStart(o.form, rep));
    }
  for (size_t i = 0; i < k_.outputs.size(); ++i) {
    Value v = k_.outputs[i].value;
    std::vector<int64_t> shape = blockShape(v, k_.outputs[i].form);
    std::string start = blockStart(k_.outputs[i].form);
    const std::string t = "tensor<" + dimsText(shape) + "x" + elem(v) + ">";
    text_ << "    %kout" << i << " = tensor.empty() {" << kOutputAttr << " = " << i << "} : " << t
          << "\n";
    tile("%kto" + std::to_string(i), v, k_.outputs[i].form, shape, start);
    text_ << "    ktdp.store %kout" << i << ", %kto" << i << " : " << t << ", !ktdp.access_tile<"
          << dimsText(shape) << "xindex>\n";
  }
  if (loop) text_ << "    }\n";
  text_ << "    return\n  }\n}\n";
}

FailureOr<Value> Builder::mapped(Value v, Operation* user) {
  if (Value m = map_.lookupOrNull(v)) return m;
  return user->emitError("internal error: the Spyre front end lost an operand of this op"),
         failure();
}

FailureOr<Value> Builder::fresh(Value graphInit, RankedTensorType t, OpBuilder& b, Location loc) {
  Value empty = b.create<tensor::EmptyOp>(loc, t.getShape(), t.getElementType());
  if (auto fill = graphInit ? graphInit.getDefiningOp<linalg::FillOp>() : nullptr) {
    auto c = fill.getInputs()[0].getDefiningOp<arith::ConstantOp>();
    Value scalar = b.create<arith::ConstantOp>(loc, cast<TypedAttr>(c.getValue()));
    return b.create<linalg::FillOp>(loc, scalar, empty).getResult(0);
  }
  return empty;
}

LogicalResult Builder::cloneBody(Operation* op, Block& from, OpBuilder& outer, IRMapping& m) {
  // Constants the body captures from the graph are re-made in the kernel.
  for (Operation& inner : from)
    for (Value v : inner.getOperands()) {
      if (m.contains(v) || v.getParentBlock() == &from) continue;
      auto c = v.getDefiningOp<arith::ConstantOp>();
      if (!c)
        return op->emitError("its body uses a value from outside other than a constant"), failure();
      m.map(v, outer.clone(*c)->getResult(0));
    }
  return success();
}

LogicalResult Builder::rebuild(Operation* op, OpBuilder& b) {
  Location loc = op->getLoc();
  MLIRContext* ctx = b.getContext();
  auto mapOf = [&](Form f) {
    AffineExpr d0 = getAffineDimExpr(0, ctx), d1 = getAffineDimExpr(1, ctx);
    switch (f) {
    case Form::Matrix:
    case Form::Repeated:
      return AffineMap::get(2, 0, {d0, d1}, ctx);
    case Form::PerRow:
      return AffineMap::get(2, 0, {d0}, ctx);
    case Form::PerCol:
      return AffineMap::get(2, 0, {d1}, ctx);
    }
    return AffineMap();
  };
  auto par = utils::IteratorType::parallel;

  if (auto g = dyn_cast<linalg::GenericOp>(op)) {
    Block& body = g.getRegion().front();
    IRMapping outerConsts;
    if (failed(cloneBody(op, body, b, outerConsts))) return failure();
    const bool reduces = g.getIteratorTypesArray().back() == utils::IteratorType::reduction;
    SmallVector<Value> ins;
    SmallVector<AffineMap> maps;
    for (Value in : g.getDpsInputs()) {
      auto m = mapped(in, op);
      if (failed(m)) return failure();
      ins.push_back(*m);
      maps.push_back(mapOf(k_.formOf(in)));
    }
    if (!reduces) {
      SmallVector<Value> outs;
      SmallVector<Type> types;
      for (OpOperand& init : g.getDpsInitsMutable()) {
        RankedTensorType t = blockType(g.getTiedOpResult(&init));
        types.push_back(t);
        maps.push_back(mapOf(Form::Matrix));
        if (g.payloadUsesValueFromOperand(&init)) {
          auto m = mapped(init.get(), op);
          if (failed(m)) return failure();
          outs.push_back(*m);
        } else {
          outs.push_back(*fresh(Value(), t, b, loc));
        }
      }
      auto n = b.create<linalg::GenericOp>(
          loc, types, ins, outs, maps, SmallVector<utils::IteratorType>{par, par},
          [&](OpBuilder& nb, Location, ValueRange args) {
            IRMapping m = outerConsts;
            for (auto [from, to] : llvm::zip(body.getArguments(), args)) m.map(from, to);
            for (Operation& inner : body) cloneBodyOp(nb, inner, m);
          });
      for (auto [from, to] : llvm::zip(g->getResults(), n->getResults())) map_.map(from, to);
      return success();
    }
    // A reduction along the rows: the element-wise part as a parallel generic, then a
    // linalg.reduce with the combiner.
    if (g.getNumDpsInits() != 1)
      return g.emitError("the Spyre front end reduces into one output per linalg.generic");
    OpOperand& init = g.getDpsInitsMutable()[0];
    BlockArgument acc = g.getMatchingBlockArgument(&init);
    auto yield = cast<linalg::YieldOp>(body.getTerminator());
    Operation* combiner = yield.getOperand(0).getDefiningOp();
    if (!combiner || combiner->getNumOperands() != 2 || combiner->getNumResults() != 1 ||
        !isa<arith::AddFOp, arith::MaximumFOp, arith::MaxNumFOp, arith::MinimumFOp,
             arith::MinNumFOp>(combiner) ||
        (combiner->getOperand(0) != acc && combiner->getOperand(1) != acc))
      return g.emitError("a reduction must yield add, max or min of a value and the "
                         "accumulator");
    Value value =
        combiner->getOperand(0) == acc ? combiner->getOperand(1) : combiner->getOperand(0);
    Value reduced;
    if (auto arg = dyn_cast<BlockArgument>(value);
        arg && arg.getOwner() == &body &&
        k_.formOf(g.getDpsInputs()[arg.getArgNumber()]) == Form::Matrix) {
      reduced = ins[arg.getArgNumber()];
    } else {
      Value in0 = g.getDpsInputs()[0];
      auto matrixType =
          RankedTensorType::get({blockRows(), blockShape(in0, Form::Matrix)[1]}, value.getType());
      for (Value in : g.getDpsInputs())
        if (k_.formOf(in) == Form::Matrix)
          matrixType = RankedTensorType::get(blockType(in).getShape(), value.getType());
      SmallVector<AffineMap> pmaps = maps;
      pmaps.push_back(mapOf(Form::Matrix));
      Value out = *fresh(Value(), matrixType, b, loc);
      auto p =
          b.create<linalg::GenericOp>(loc, TypeRange{matrixType}, ins, ValueRange{out}, pmaps,
                                      SmallVector<utils::IteratorType>{par, par},
                                      [&](OpBuilder& nb, Location l, ValueRange args) {
                                        IRMapping m = outerConsts;
                                        for (unsigned i = 0; i < g.getNumDpsInputs(); ++i)
                                          m.map(body.getArgument(i), args[i]);
                                        for (Operation& inner : body) {
                                          if (&inner == combiner || &inner == yield.getOperation())
                                            continue;
                                          cloneBodyOp(nb, inner, m);
                                        }
                                        nb.create<linalg::YieldOp>(l, m.lookup(value));
                                      });
      reduced = p->getResult(0);
    }
    RankedTensorType rowType = blockType(g->getResult(0));
    auto initValue = fresh(init.get(), rowType, b, loc);
    auto r = b.create<linalg::ReduceOp>(loc, ValueRange{reduced}, ValueRange{*initValue},
                                        ArrayRef<int64_t>{1},
                                        [&](OpBuilder& nb, Location l, ValueRange args) {
                                          IRMapping m;
                                          m.map(value, args[0]);
                                          m.map(acc, args[1]);
                                          Operation* c = nb.clone(*combiner, m);
                                          nb.create<linalg::YieldOp>(l, c->getResult(0));
                                        });
    map_.map(g->getResult(0), r->getResult(0));
    return success();
  }
  if (isa<linalg::AddOp, linalg::SubOp, linalg::MulOp, linalg::DivOp>(op)) {
    auto lin = cast<linalg::LinalgOp>(op);
    auto a = mapped(lin.getDpsInputs()[0], op), c = mapped(lin.getDpsInputs()[1], op);
    if (failed(a) || failed(c)) return failure();
    if (!getElementTypeOrSelf(*a).isa<FloatType>())
      return op->emitError("the Spyre front end computes element-wise ops on floats only");
    Value r;
    if (isa<linalg::AddOp>(op)) r = b.create<arith::AddFOp>(loc, *a, *c);
    if (isa<linalg::SubOp>(op)) r = b.create<arith::SubFOp>(loc, *a, *c);
    if (isa<linalg::MulOp>(op)) r = b.create<arith::MulFOp>(loc, *a, *c);
    if (isa<linalg::DivOp>(op)) r = b.create<arith::DivFOp>(loc, *a, *c);
    map_.map(op->getResult(0), r);
    return success();
  }
  if (auto red = dyn_cast<linalg::ReduceOp>(op)) {
    auto in = mapped(red.getInputs()[0], op);
    if (failed(in)) return failure();
    auto init = fresh(red.getInits()[0], blockType(red->getResult(0)), b, loc);
    Block& body = red.getRegion().front();
    IRMapping outerConsts;
    if (failed(cloneBody(op, body, b, outerConsts))) return failure();
    auto n =
        b.create<linalg::ReduceOp>(loc, ValueRange{*in}, ValueRange{*init}, ArrayRef<int64_t>{1},
                                   [&](OpBuilder& nb, Location, ValueRange args) {
                                     IRMapping m = outerConsts;
                                     for (auto [f, t] : llvm::zip(body.getArguments(), args))
                                       m.map(f, t);
                                     for (Operation& inner : body) nb.clone(inner, m);
                                   });
    map_.map(red->getResult(0), n->getResult(0));
    return success();
  }
  if (auto bc = dyn_cast<linalg::BroadcastOp>(op)) {
    auto in = mapped(bc.getInput(), op);
    if (failed(in)) return failure();
    Value out = *fresh(Value(), blockType(bc->getResult(0)), b, loc);
    const int64_t dim = k_.formOf(bc.getInput()) == Form::PerRow ? 1 : 0;
    auto n = b.create<linalg::BroadcastOp>(loc, *in, out, ArrayRef<int64_t>{dim});
    map_.map(bc->getResult(0), n->getResult(0));
    return success();
  }
  if (auto sm = dyn_cast<linalg::SoftmaxOp>(op)) {
    auto x = mapped(sm.getInput(), op);
    if (failed(x)) return failure();
    auto t = cast<RankedTensorType>(x->getType());
    auto et = cast<FloatType>(t.getElementType());
    auto rowT = RankedTensorType::get({t.getShape()[0]}, et);
    auto fillRow = [&](double v, bool negInf) {
      APFloat f = negInf ? APFloat::getInf(et.getFloatSemantics(), true) : APFloat(v);
      bool lost = false;
      if (!negInf) f.convert(et.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
      Value c = b.create<arith::ConstantOp>(loc, b.getFloatAttr(et, f));
      Value e = b.create<tensor::EmptyOp>(loc, rowT.getShape(), et);
      return b.create<linalg::FillOp>(loc, c, e).getResult(0);
    };
    auto reduce = [&](Value in, Value init, bool max) {
      return b
          .create<linalg::ReduceOp>(
              loc, ValueRange{in}, ValueRange{init}, ArrayRef<int64_t>{1},
              [&](OpBuilder& nb, Location l, ValueRange a) {
                Value c = max ? nb.create<arith::MaxNumFOp>(l, a[0], a[1]).getResult()
                              : nb.create<arith::AddFOp>(l, a[0], a[1]).getResult();
                nb.create<linalg::YieldOp>(l, c);
              })
          ->getResult(0);
    };
    auto rowwise = [&](Value m, Value r, bool divide) {
      Value out = b.create<tensor::EmptyOp>(loc, t.getShape(), et);
      return b
          .create<linalg::GenericOp>(
              loc, TypeRange{t}, ValueRange{m, r}, ValueRange{out},
              SmallVector<AffineMap>{mapOf(Form::Matrix), mapOf(Form::PerRow), mapOf(Form::Matrix)},
              SmallVector<utils::IteratorType>{par, par},
              [&](OpBuilder& nb, Location l, ValueRange a) {
                Value v = divide ? nb.create<arith::DivFOp>(l, a[0], a[1]).getResult()
                                 : nb.create<math::ExpOp>(
                                         l, nb.create<arith::SubFOp>(l, a[0], a[1]).getResult())
                                       .getResult();
                nb.create<linalg::YieldOp>(l, v);
              })
          ->getResult(0);
    };
    Value mx = reduce(*x, fillRow(0, true), true);
    Value e = rowwise(*x, mx, false);
    Value sum = reduce(e, fillRow(0.0, false), false);
    map_.map(sm->getResult(0), rowwise(e, sum, true));
    return success();
  }
  if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op))
    return success(); // written with the scaffolding
  return op->emitError("internal error: the Spyre front end cannot rebuild this op"), failure();
}

FailureOr<OwningOpRef<ModuleOp>> Builder::build() {
  writeText();
  ParserConfig config(ctx_);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text_.str(), config, k_.name);
  if (!module) {
    k_.ops.front()->emitError("internal error: the Spyre front end wrote KTIR it cannot parse "
                              "for this kernel:\n")
        << text_.str();
    return failure();
  }
  auto f = *module->getOps<func::FuncOp>().begin();
  // Arguments are named by their locations (the KTIR compiler names the plan's arguments so).
  for (size_t i = 0; i < args_.size(); ++i)
    f.getArgument(static_cast<unsigned>(i))
        .setLoc(NameLoc::get(StringAttr::get(ctx_, args_[i] + "_ptr")));
  if (k_.kind == KernelGroup::Kind::Transpose || k_.kind == KernelGroup::Kind::Window) {
    if (failed(verify(*module))) return failure();
    return module;
  }
  // The graph tensors the loads stand for, the matmul's accumulator, the placeholders.
  size_t next = 0;
  SmallVector<Operation*> placeholders;
  Operation* firstUse = nullptr;
  f.walk([&](Operation* op) {
    if (auto l = dyn_cast<ktdp::LoadOp>(op)) {
      // The matmul's own operands (%ka, %kb) feed the scaffolding's matmul only.
      if (!l->getResult(0).hasOneUse() ||
          !isa<linalg::MatmulOp>(*l->getResult(0).getUsers().begin())) {
        if (next < loaded_.size()) map_.map(loaded_[next++], l->getResult(0));
      }
    }
    if (auto m = dyn_cast<linalg::MatmulOp>(op); m && !splitK()) {
      Value acc = m->getResult(0);
      // The K loop carries the accumulator (a loop over a tile's rows carries nothing).
      if (auto loop = dyn_cast<scf::ForOp>(m->getParentOp()); loop && loop.getNumResults() == 1)
        acc = loop->getResult(0);
      map_.map(k_.ops.front()->getResult(0), acc);
    }
    if (auto r = dyn_cast<ktdp::InterTileReduceScatterOp>(op))
      map_.map(k_.ops.front()->getResult(0), r->getResult(0));
    if (op->hasAttr(kOutputAttr)) {
      placeholders.push_back(op);
      if (!firstUse) firstUse = op;
    }
  });
  if (next != loaded_.size() || placeholders.size() != k_.outputs.size()) {
    k_.ops.front()->emitError("internal error: the Spyre front end lost track of its loads");
    return failure();
  }
  // The kernel's ops, rebuilt on the blocks just before the first store.
  OpBuilder b(firstUse);
  for (Operation* op : k_.ops)
    if (failed(rebuild(op, b))) return failure();
  for (size_t i = 0; i < placeholders.size(); ++i) {
    Value v = map_.lookupOrNull(k_.outputs[i].value);
    if (!v || v.getType() != placeholders[i]->getResult(0).getType()) {
      k_.outputs[i].value.getDefiningOp()->emitError(
          "internal error: the Spyre front end built a block of the wrong type for this result");
      return failure();
    }
    placeholders[i]->getResult(0).replaceAllUsesWith(v);
    placeholders[i]->erase();
  }
  if (failed(verify(*module))) return failure();
  return module;
}

} // namespace

FailureOr<OwningOpRef<ModuleOp>> buildKernel(const KernelGroup& k, const Division& d,
                                             const KernelPlan& plan, const MemoryNames& names,
                                             MLIRContext* context) {
  Builder b(k, d, plan, names, context);
  return b.build();
}

} // namespace chipless::frontend
