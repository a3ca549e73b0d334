//===- RowForm.h - each op of a graph in row form ---------------*- C++ -*-===//
//
// Part of chipless. Internal to compiler/frontend/lib: the kind of kernel an op of the
// graph needs, its domain (rows x columns, a matmul's depth, a batch) and the form in which
// it reads and writes each tensor (Kernels.h), from which formKernels groups the ops.
//
//===----------------------------------------------------------------------===//

#ifndef FRONTEND_ROWFORM_H
#define FRONTEND_ROWFORM_H

#include "Kernels.h"

#include "mlir/IR/Operation.h"

#include <vector>

namespace chipless::frontend {

/// One op in row form: its kind of kernel, its domain and the form of each tensor it reads
/// and writes.
struct RowForm {
  KernelGroup::Kind kind = KernelGroup::Kind::Rows;
  int64_t rows = 1, cols = 1, depth = 0, batch = 1;
  bool elementwise = true; ///< no reduction along the rows (fuses after a matmul)
  std::vector<Operand> reads, writes;
};

/// The row form of `op`; an error at the op (naming it and why) when the front end cannot
/// lower it.
mlir::FailureOr<RowForm> rowFormOf(mlir::Operation* op);

/// The word a kernel started by `op` is named after ("matmul", "softmax", "unfold", ...).
const char* kindWord(mlir::Operation* op);

/// The shape of ranked tensor `v`.
inline llvm::ArrayRef<int64_t> shapeOf(mlir::Value v) {
  return mlir::cast<mlir::RankedTensorType>(v.getType()).getShape();
}

} // namespace chipless::frontend

#endif // FRONTEND_ROWFORM_H
