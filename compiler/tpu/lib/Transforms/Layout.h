//===- Layout.h - tensors as they lie in HBM --------------------*- C++ -*-===//
//
// Part of chipless. Internal to compiler/tpu/lib.
//
// Every tensor the graph keeps in HBM (function arguments and kernel results) is stored in the
// canonical layout: row-major with the last dimension padded up to a multiple of vpu.lanes
// (the plan's tile=1x<lanes>). View ops (expand_shape, collapse_shape, extract_slice,
// transpose) read such a tensor in place through strides; a kernel result can also be written
// through the inverse of the views that consume it, and into its slice of a concatenation
// (tpu-alloc-hbm).
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_TRANSFORMS_LAYOUT_H
#define TPUC_TRANSFORMS_LAYOUT_H

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LogicalResult.h"
#include "support/dtype.h"
#include "support/tpu_arch.h"

#include "llvm/ADT/SmallVector.h"

#include <string>

namespace chipless::tpuc {

/// Element (i0, ..., ik) of the tensor is at element `offset + sum_j i_j * strides[j]` of the
/// HBM storage named `symbol` (a tensor argument or the scratch buffer).
struct View {
  std::string symbol;
  int64_t offset = 0; ///< elements
  llvm::SmallVector<int64_t> shape, strides;
  DType dtype = DType::F32;
  /// Elements that may be read from the start of a run along the unit-stride dimension
  /// (its length plus the padding after it that belongs to no other data).
  int64_t contiguous = 0;
  /// Whether the elements after each run (up to `contiguous`) are padding no one else uses,
  /// so a write may spill into them.
  bool padTail = true;
  int64_t esize() const { return static_cast<int64_t>(dtypeSize(dtype)); }
};

/// The canonical layout of a tensor of type `type` stored at `symbol` + `offset` elements.
View canonicalView(const std::string& symbol, mlir::Type type, int64_t lanes, int64_t offset = 0);

/// Bytes of the canonical layout of `type`.
int64_t canonicalBytes(mlir::Type type, int64_t lanes);

/// How `v` (a function argument, a kernel result, or a view op of one) lies in HBM, after
/// tpu-alloc-hbm. On failure `why` says which view cannot be expressed with strides.
mlir::FailureOr<View> viewOf(mlir::Value v, int64_t lanes, std::string& why);

/// The view of `op`'s result given its source's view (a view op), or failure with `why`.
mlir::FailureOr<View> forwardView(mlir::Operation* op, const View& source, std::string& why);
/// The view of `op`'s source that makes its result lie as `result` (expand_shape,
/// collapse_shape, transpose), or failure.
mlir::FailureOr<View> backwardView(mlir::Operation* op, const View& result, std::string& why);

/// Where operand `part` of a concatenation lies when its result lies as `result`: a slice of
/// it along the concatenated dimension (the part is written there in place).
View concatPart(mlir::tensor::ConcatOp concat, unsigned part, const View& result);

/// A placement as the attribute tpu-alloc-hbm records (on kernels, per result, and on
/// concatenations), and back: the view of a value of type `type` placed by `placement`.
mlir::DictionaryAttr placementAttr(mlir::Builder& b, const View& v);
View placedView(mlir::DictionaryAttr placement, mlir::Type type);

} // namespace chipless::tpuc

#endif // TPUC_TRANSFORMS_LAYOUT_H
