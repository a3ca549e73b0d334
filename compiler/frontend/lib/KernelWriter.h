//===- KernelWriter.h - the writer of one kernel's KTIR -----------*- C++ -*-===//
//
// Part of chipless. Internal to compiler/frontend/lib: the class buildKernel
// (KernelBuilder.h) uses, its members defined in KernelBuilder.cpp (the scaffolding of rows
// and matmul kernels, parsing, placeholders), KernelOps.cpp (the graph's ops rebuilt on a
// tile's blocks), ViewAccess.cpp (loads and stores of boxes of a tensor as it lies) and
// CopyKernels.cpp (re-layouts, gathers, fills and windows: DMA copies of boxes).
//
//===----------------------------------------------------------------------===//

#ifndef FRONTEND_KERNELWRITER_H
#define FRONTEND_KERNELWRITER_H

#include "KernelBuilder.h"
#include "Layout.h"
#include "Residency.h"
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

#include <algorithm>
#include <map>
#include <optional>
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
               const MemoryNames& names, const ResidentTensors& resident, MLIRContext* ctx)
      : k_(k), d_(d), plan_(plan), names_(names), resident_(resident), ctx_(ctx) {}

  FailureOr<OwningOpRef<ModuleOp>> build();

private:
  const KernelGroup& k_;
  const Division& d_;
  const KernelPlan& plan_;
  const MemoryNames& names_;
  const ResidentTensors& resident_;
  MLIRContext* ctx_;
  std::ostringstream text_;
  std::vector<std::string> args_;            ///< memory names, in argument order
  std::map<std::string, std::string> views_;   ///< a view's text -> its SSA name
  std::map<std::string, std::string> memrefs_; ///< a view's SSA name -> its memref type
  std::vector<Value> loaded_;                ///< graph tensors in the order of their loads
  IRMapping map_;                            ///< graph values -> kernel values
  int repeats_ = 0;                          ///< repeated rows computed so far
  int fresh_ = 0;                            ///< constants and index values written so far

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
    case Form::Spread:
      return {matmul() ? d_.blockCols : s.back()};
    }
    return {};
  }
  RankedTensorType blockType(Value v) const {
    auto shape = blockShape(v, k_.formOf(v));
    return RankedTensorType::get(shape, cast<ShapedType>(v.getType()).getElementType());
  }
  /// Where a step's block of `v` starts (a repeated matrix's row, or the row of a matrix
  /// broadcast along middle dimensions, is computed first: its name in `repeatedRow`).
  std::vector<std::string> blockStart(Form f, const std::string& repeatedRow = "") const {
    const std::string row = matmul() ? matmulRow() : "%kr", col = matmul() ? "%kn0" : "%kc0";
    switch (f) {
    case Form::Matrix:
      return {row, col};
    case Form::Repeated:
      return {repeatedRow, col};
    case Form::PerRow:
      return {row};
    case Form::PerCol:
      return {col};
    case Form::Spread:
      return {repeatedRow, col};
    }
    return {};
  }

  /// The block of `v` this kernel's tiles keep in, or read from, their own scratchpad
  /// (Residency.h); null when `v` goes through device memory.
  const ResidentBlock* residentBlock(Value v) const {
    auto it = resident_.find(memoryRoot(plan_, v));
    return it == resident_.end() ? nullptr : &it->second;
  }
  /// An access tile over the whole of resident block `r` in the tile's own scratchpad
  /// (`ct_local`); returns its name and type.
  std::pair<std::string, std::string> ownTile(const ResidentBlock& r, Value v);
  /// Loads resident block `r` of `v`; returns the loaded tensor's name.
  std::string loadOwn(const ResidentBlock& r, Value v);
  /// Stores `value` (the tile's block of `v`) as resident block `r`.
  void storeOwn(const std::string& value, const ResidentBlock& r, Value v);
  /// Makes the memory `name` an argument of the kernel (once).
  void argumentNamed(const std::string& name) {
    if (std::find(args_.begin(), args_.end(), name) == args_.end()) args_.push_back(name);
  }
  void argument(Value v) { argumentNamed(names_.lookup(memoryRoot(plan_, v))); }
  std::string elem(Value v) const {
    return typeText(cast<ShapedType>(v.getType()).getElementType());
  }
  /// How a kernel of this kind reads or writes `v` in form `f` (Layout.h): a matrix of rows
  /// or a vector. Kernels are formed so that it exists (Kernels.cpp inserts re-layouts).
  std::optional<TensorView> accessView(Value v, Form f) const;
  /// Declares the global memory view of `tv` (once per distinct view) and returns its name.
  std::string memView(const TensorView& tv, const std::string& elemType);
  /// A fresh index constant.
  std::string constant(int64_t value);
  /// One dimension of a box in a view's factors: each factor's start and extent, and the
  /// positions the factors cover (the box's, or more: the padding of a last stick).
  struct BoxDim {
    std::vector<std::string> starts;
    std::vector<int64_t> sizes;
    int64_t covered = 1;
  };
  FailureOr<BoxDim> boxDim(const DimLayout& d, const std::string& start, int64_t n);
  /// Loads the box of `tv` at `start` (one SSA index per logical dimension) of `box`
  /// elements per dimension: an access tile over the view's factors, a collapse to the
  /// logical dimensions and a slice of the padding. Returns the name of the loaded tensor
  /// (of shape `box`).
  FailureOr<std::string> loadBox(const TensorView& tv, const std::string& elemType,
                                 const std::vector<std::string>& start,
                                 const std::vector<int64_t>& box);
  /// Stores tensor `value` (of shape `box`) into `tv` at `start`: whole sticks in one store,
  /// the values of a last partial stick in a second.
  LogicalResult storeBox(const std::string& value, const TensorView& tv,
                         const std::string& elemType, const std::vector<std::string>& start,
                         const std::vector<int64_t>& box);
  /// `row` modulo the rows of repeated matrix `v`: the row of `v` a kernel row reads.
  std::string repeatedRow(Value v, const std::string& row) {
    const std::string n = std::to_string(repeats_++);
    auto s = cast<RankedTensorType>(v.getType()).getShape();
    text_ << "    %kperiod" << n << " = arith.constant " << rowsOf(s)
          << " : index\n    %krep" << n << " = arith.remui " << row << ", %kperiod" << n
          << " : index\n";
    return "%krep" + n;
  }
  /// `row` divided by the kernel rows that read one row of `v` (Form::Spread): the row of
  /// `v` a step starting at kernel row `row` reads.
  std::string spreadRow(Value v, const std::string& row) {
    const std::string n = std::to_string(repeats_++);
    text_ << "    %kperiod" << n << " = arith.constant " << spreadPeriod(k_, v)
          << " : index\n    %krep" << n << " = arith.divui " << row << ", %kperiod" << n
          << " : index\n";
    return "%krep" + n;
  }
  /// Loads a block of graph tensor `v` for the kernel's ops.
  LogicalResult load(Value v, Form f, const std::vector<int64_t>& shape,
                     const std::vector<std::string>& start) {
    if (const ResidentBlock* r = residentBlock(v)) {
      loadOwn(*r, v);
      loaded_.push_back(v);
      return success();
    }
    std::optional<TensorView> tv = accessView(v, f);
    // A matrix broadcast along middle dimensions: one row of it, as a vector.
    std::vector<int64_t> box = shape;
    if (f == Form::Spread) box.insert(box.begin(), 1);
    FailureOr<std::string> t =
        tv ? loadBox(*tv, elem(v), start, box) : FailureOr<std::string>(failure());
    if (succeeded(t) && f == Form::Spread) {
      const std::string row = "%kspread" + std::to_string(fresh_++);
      text_ << "    " << row << " = tensor.collapse_shape " << *t << " [[0, 1]] : tensor<1x"
            << shape.back() << "x" << elem(v) << "> into tensor<" << shape.back() << "x" << elem(v)
            << ">\n";
    }
    if (failed(t))
      return fail("internal error: the Spyre front end cannot load a block of a tensor that "
                  "lies as " +
                  (plan_.views.count(v) ? plan_.views.lookup(v).describe() : std::string("?")));
    loaded_.push_back(v);
    return success();
  }
  /// An error at the kernel's first op.
  LogicalResult fail(const std::string& why) {
    k_.ops.front()->emitError(why);
    return failure();
  }

  LogicalResult writeText();
  /// The module, the function with its arguments and `grid`, the constant 0 (%kc0).
  void header(const std::vector<int64_t>& grid);
  /// A re-layout (linalg.copy): blocks of the result loaded through the view of the source
  /// as it lies, and stored in the result's own layout.
  LogicalResult writeRelayoutText();
  /// The on-chip form of a re-layout that swaps the last two dimensions
  /// (Division::transposeRows): the tile's block of result rows and columns, a stick of
  /// columns at a time (and a last partial stick), loaded as the source's rows lie,
  /// transposed and stored; a run of matrices (Division::blockBatch) one after the other. `start`
  /// and `box` are the tile's box of the result, its batch positions and rows set.
  LogicalResult writeTransposedBlocks(const TensorView& src, const TensorView& dst,
                                      const std::string& e, const std::vector<std::string>& start,
                                      const std::vector<int64_t>& box);
  /// A window kernel (a convolution's unfold, a pooling): boxes of the image copied (or
  /// combined) a block of output rows at a time.
  LogicalResult writeWindowText();
  /// An embedding lookup (tensor.gather of rows): a block of indices, the rows they name
  /// loaded through an indirect access tile, and stored.
  LogicalResult writeGatherText();
  /// A fill: blocks of rows of the result set to one value (a padded tensor's border).
  LogicalResult writeFillText();
  LogicalResult rebuild(Operation* op, OpBuilder& b);
  FailureOr<Value> fresh(Value graphInit, RankedTensorType t, OpBuilder& b, Location loc);
  FailureOr<Value> mapped(Value v, Operation* user);
  LogicalResult cloneBody(Operation* op, Block& from, OpBuilder& outer, IRMapping& m);
};

} // namespace chipless::frontend

#endif // FRONTEND_KERNELWRITER_H
