//===- Kernels.h - grouping a graph's ops into Spyre kernels ----*- C++ -*-===//
//
// Part of chipless. Every compute op of a tensor graph is seen in *row form*: its tensors are
// matrices of rows (all leading dimensions folded together) by columns (the last dimension,
// the stick dimension), vectors with one value per
// row (a reduction's result) or vectors with one value per column (a bias broadcast along
// the rows). Ops whose rows are independent fuse into one kernel divided over the cores by
// rows; a matmul fuses with the element-wise ops after it (its epilogue) into a kernel
// divided by output blocks.
//
//===----------------------------------------------------------------------===//

#ifndef FRONTEND_KERNELS_H
#define FRONTEND_KERNELS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"

#include "Layout.h"

#include "llvm/ADT/DenseMap.h"

#include <map>
#include <string>
#include <vector>

namespace chipless::frontend {

/// How a kernel sees one tensor: a matrix (rows x cols), one value per row, one value per
/// column broadcast along the rows, a matrix repeated along the leading dimensions (a
/// mask [S, S] read by scores [H, S, S]: row r of the kernel reads row r mod S), or a matrix
/// broadcast along middle dimensions (a per-batch row [B, D] read by [B, S, D]: row r of
/// the kernel reads row r / S; a step of rows reads one row of it, a vector along the
/// columns as PerCol).
enum class Form { Matrix, PerRow, PerCol, Repeated, Spread };

/// A tensor of the graph as a kernel reads or writes it.
struct Operand {
  mlir::Value value;
  Form form = Form::Matrix;
};

/// One kernel: a group of graph ops run as one KTIR kernel.
struct KernelGroup {
  enum class Kind {
    Rows,      ///< element-wise ops, reductions along the rows, normalisations
    Matmul,    ///< one (batch) matmul [B, M, K] x [B, K, N] and its element-wise epilogue
    Relayout,  ///< a copy into the result's own layout (restickify), through the source's view
    Window,    ///< boxes of an image: a convolution's unfold, a pooling (DMA copies)
    Gather,    ///< rows of a matrix selected by a vector of indices (an embedding lookup)
    Fill       ///< a tensor set to one value (a padded tensor's border, before its interior)
  };
  Kind kind = Kind::Rows;
  std::string name;                  ///< k1_softmax, ...
  std::vector<mlir::Operation*> ops; ///< the compute ops, in graph order
  int64_t rows = 1;                  ///< rows of the domain (B x M for a (batch) matmul)
  int64_t cols = 1;                  ///< columns of the domain (N for a matmul)
  int64_t depth = 0;                 ///< K of a matmul
  int64_t batch = 1;                 ///< matrices of a batch matmul or a re-layout of rank 3 or more
  /// A matmul whose epilogue works along whole rows of its output (a softmax, a
  /// normalisation): its tiles take whole rows (no split of N or K).
  bool wholeRows = false;
  /// A matmul that reads B as it lies, through a transposed view (one DMA run per element),
  /// where that is cheaper than restickifying it first (TransposedAccess.h).
  bool transposedB = false;
  /// A re-layout's source as it lies in memory, the tensor it copies and where it writes
  /// (the result as it lies; for one input of a concatenation, its box of the result).
  TensorView source, dest;
  mlir::Value copyFrom;
  /// A fill's value.
  mlir::Attribute fillValue;
  std::vector<Operand> inputs;  ///< read from device memory, in first-use order
  std::vector<Operand> outputs; ///< written to device memory
  /// The form of every tensor value the kernel computes or reads.
  llvm::DenseMap<mlir::Value, Form> forms;
  /// The form of `v` in this kernel (Matrix when it has none).
  Form formOf(mlir::Value v) const {
    auto it = forms.find(v);
    return it == forms.end() ? Form::Matrix : it->second;
  }
};

/// The rows of a tensor of `shape` in row form (product of the leading dimensions; 1 for a
/// vector).
int64_t rowsOf(llvm::ArrayRef<int64_t> shape);

/// The kernel rows that read one row of `v`, which `k` reads in Form::Spread.
int64_t spreadPeriod(const KernelGroup& k, mlir::Value v);

/// How a root's memory is laid out: as a tensor of `shape` (its own, or a reshape of it) in
/// `layout`.
struct RootInfo {
  RootLayout layout = RootLayout::Stick;
  std::vector<int64_t> shape;
  int64_t paddedRows = 0; ///< rows per stick column (0: the rows; Layout.h paddedRows)
};

/// The graph's kernels and the tensors they exchange through device memory.
struct KernelPlan {
  std::vector<KernelGroup> kernels;
  /// Where every tensor kernels read or write lies: a root (a graph argument or a tensor a
  /// kernel writes) in its own layout; a view (reshape, transpose, slice) as a strided view
  /// of its root.
  llvm::DenseMap<mlir::Value, TensorView> views;
  /// The layout of every root.
  llvm::DenseMap<mlir::Value, RootInfo> roots;
};

/// The tensor whose device memory holds `v` (itself unless it is a view).
mlir::Value memoryRoot(const KernelPlan& plan, mlir::Value v);

/// Groups the ops of `f` into kernels in graph order and records the form of every value and
/// where every tensor lies in `memory`. Inserts a re-layout (a `linalg.copy`)
/// where a kernel cannot read a tensor as it lies, and before every graph result that is not
/// a tensor of its own in the stick layout. Emits an error at any op the front end cannot
/// lower (naming the op and why) and fails.
mlir::FailureOr<KernelPlan> formKernels(mlir::func::FuncOp f, const MemoryParams& memory);

/// The windows of a window kernel's op (an unfold or a pooling): their size, strides and
/// dilations.
struct Window {
  int64_t KH = 1, KW = 1, strideH = 1, strideW = 1, dilationH = 1, dilationW = 1;
};
Window windowOf(mlir::Operation* op);

/// Whether `op` only gives a kernel an initial value (tensor.empty, a constant, a fill of a
/// constant): it is re-created in each kernel that needs it, never stored.
bool isInitOp(mlir::Operation* op);

} // namespace chipless::frontend

#endif // FRONTEND_KERNELS_H
