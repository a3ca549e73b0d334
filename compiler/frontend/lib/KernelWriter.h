//===- KernelWriter.h - the writer of one kernel's KTIR -----------*- C++ -*-===//
//
// Part of chipless. Internal to compiler/frontend/lib: the class buildKernel
// (KernelBuilder.h) uses, its members defined in KernelBuilder.cpp (the scaffolding of rows
// and matmul kernels, parsing, placeholders), KernelOps.cpp (the graph's ops rebuilt on a
// tile's blocks) and CopyKernels.cpp (permutations and windows: DMA copies of boxes).
//
//===----------------------------------------------------------------------===//

#ifndef FRONTEND_KERNELWRITER_H
#define FRONTEND_KERNELWRITER_H

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
#include <string>
#include <vector>

namespace chipless::frontend {

// The writer's files are MLIR code through and through (internal to the library).
using namespace mlir;

/// Marks the placeholder that stands for output i until the kernel's ops are rebuilt.
constexpr const char* kOutputAttr = "frontend.output";

inline std::string typeText(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  t.print(os);
  return s;
}

inline std::string dimsText(const std::vector<int64_t>& shape, const char* sep = "x") {
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? sep : "") + std::to_string(shape[i]);
  return s;
}

/// affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, ...)>: the box [0, shape).
inline std::string boxSet(const std::vector<int64_t>& shape) {
  std::string dims, cons;
  for (size_t i = 0; i < shape.size(); ++i) {
    std::string d = "d" + std::to_string(i);
    dims += (i ? ", " : "") + d;
    cons += (i ? ", " : "") + d + " >= 0, -" + d + " + " + std::to_string(shape[i] - 1) + " >= 0";
  }
  return "affine_set<(" + dims + ") : (" + cons + ")>";
}

inline std::string identityMap(size_t rank) {
  std::string dims;
  for (size_t i = 0; i < rank; ++i) dims += (i ? ", " : "") + std::string("d") + std::to_string(i);
  return "affine_map<(" + dims + ") -> (" + dims + ")>";
}

/// Clones one op of a linalg body into a kernel. The SFU has no erf: math.erf becomes
/// Abramowitz and Stegun's 7.1.26 (|error| < 1.5e-7, far below f16 and bf16 rounding) in
/// ops it has: erf(x) = sign(x) (1 - t (a1 + t (a2 + t (a3 + t (a4 + t a5)))) e^(-x^2)),
/// t = 1 / (1 + p |x|).
void cloneBodyOp(OpBuilder& b, Operation& op, IRMapping& m);

/// Writes one kernel: the scaffolding as KTIR text (KernelBuilder.cpp; the DMA-only kernels in
/// CopyKernels.cpp), parsed, then the kernel's ops rebuilt on the blocks (KernelOps.cpp).
class KernelWriter {
public:
  KernelWriter(const KernelGroup& k, const Division& d, const KernelPlan& plan,
               const MemoryNames& names, MLIRContext* ctx)
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

} // namespace chipless::frontend

#endif // FRONTEND_KERNELWRITER_H
