//===- Common.h - helpers shared by the TPU compiler's passes ---*- C++ -*-===//
//
// Part of chipless. Internal to compiler/tpu/lib.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_TRANSFORMS_COMMON_H
#define TPUC_TRANSFORMS_COMMON_H

#include "graph/GraphForm.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "support/dtype.h"
#include "support/tpuprog/isa.h"
#include "tpuc/Dialect/TpuOps.h"

#include <optional>
#include <string>

namespace chipless::tpuc {

/// The graph form's helpers (compiler/graph): the graph's function, argument and result
/// names, the constant a value is.
using graph::argumentName;
using graph::constantValue;
using graph::graphFunction;
using graph::resultName;

/// The DType of a tensor element type (bf16, f32, i8, i32), or nullopt.
std::optional<DType> dtypeOf(mlir::Type elementType);

/// "file:line:col" of a location (or its printed form).
std::string locString(mlir::Location loc);

/// Ops that only describe a tensor's layout (a view of their source): tensor.expand_shape,
/// tensor.collapse_shape, tensor.extract_slice, linalg.transpose.
bool isViewOp(mlir::Operation* op);
/// Ops that only provide initial or constant values: tensor.empty, arith.constant,
/// linalg.fill of a constant.
bool isInitOp(mlir::Operation* op);
/// Ops that compute: linalg.matmul, linalg.batch_matmul, linalg.generic, tensor.gather (rows
/// by index, a kernel of its own).
bool isComputeOp(mlir::Operation* op);
/// A matmul: linalg.matmul, linalg.batch_matmul or a contraction (isContraction).
bool isMatmul(mlir::Operation* op);
/// A linalg.generic that is a matmul with batch dimensions [b...] (one or more): loops
/// (b..., m, n, k), `acc + lhs * rhs` of LHS (b..., m, k) or (m, k) and RHS (k, n) or
/// (b..., k, n), each of rank 2 broadcast over the batch; float operands of the result's type or
/// extended to it. tpu-decompose makes them for convolutions (Windows.cpp) and for transposes with
/// several batch dimensions (Transposes.cpp): linalg.batch_matmul has one batch dimension and a
/// per-batch RHS.
bool isContraction(mlir::Operation* op);
/// The contraction (isContraction) acc + lhs x rhs: `acc` [b..., M, N] (one batch dimension
/// or more), `lhs` [b..., M, K] or [M, K] and `rhs` [b..., K, N] or [K, N] (shared by the
/// batch); narrower
/// float operands are extended to the accumulator's type.
mlir::Value buildContraction(mlir::OpBuilder& b, mlir::Location loc, mlir::Value lhs,
                             mlir::Value rhs, mlir::Value acc);
/// An element-wise linalg.generic over `ins` (all of one shape, identity maps, every loop
/// parallel) giving a tensor of element type `et`: its yielded value is `body` of the
/// elements of `ins`.
mlir::Value buildElementwise(
    mlir::OpBuilder& b, mlir::Location loc, mlir::ValueRange ins, mlir::Type et,
    llvm::function_ref<mlir::Value(mlir::OpBuilder&, mlir::Location, mlir::ValueRange)> body);
/// A tensor.concat along the innermost dimension read only as matmuls' LHS: the matmuls read
/// its parts in place, side by side along K (MatmulSpec::lhs), and it is never written (a
/// convolution's taps, Windows.cpp).
bool isLhsConcat(mlir::Operation* op);

/// How a reduction combines (the op yielding `combine(x, acc)` in a reduction's body).
struct Combiner {
  tpuprog::Opcode op = tpuprog::Opcode::VAdd; ///< VAdd, VMax or VMin
  mlir::Value operand;                        ///< the value combined into the accumulator
  mlir::Operation* combineOp = nullptr;
};
/// The combiner of a reduction body yielding `yielded`, accumulating into block argument
/// `acc`; nullopt (with `why`) when the body is not `yield combine(f(inputs), acc)`.
std::optional<Combiner> reductionCombiner(mlir::Value yielded, mlir::BlockArgument acc,
                                          std::string& why);

/// Part of tpu-decompose (Transposes.cpp): every linalg.transpose that moves the innermost
/// dimension and is read other than in place (as a matmul's RHS) gets a real transpose on the
/// MXU for those readers. Errors are reported at the transpose.
mlir::LogicalResult materializeTransposes(mlir::ModuleOp module);

/// A per-row value `r` ([batch..., M], one value per row of a kernel whose rows are `n` long,
/// as reductions over the innermost loop give) made a contiguous vector that kernels after it
/// can read: broadcast along the rows by its own kernel, column 0 viewed as [batch, M, 1]
/// (leading dimensions folded into one batch) and transposed to [batch, 1, M] (the transpose
/// is left to materialise), reshaped to r's shape; the ops are inserted after `after`. The uses
/// `replace` accepts read the vector instead, except reshapes that append a dimension of one
/// ([..., M, 1], a `keepdim`), which read column 0 in place (exact, no transpose). Returns the
/// last value made. Fails (changing nothing) unless r is bf16 or f32, or only such reshapes
/// read it.
mlir::FailureOr<mlir::Value> columnAsVector(mlir::Value r, int64_t n, mlir::Operation* after,
                                            mlir::IRRewriter& rw,
                                            llvm::function_ref<bool(mlir::OpOperand&)> replace);

/// The transposes that `v` is a view of (through reshapes and slices) and that cannot be read
/// in place, materialised on the MXU as tpu-decompose does; errors at the transpose.
mlir::LogicalResult materializeTransposesOf(mlir::Value v);

/// Part of tpu-decompose (Transposes.cpp): a linalg.reduce over the dimension before the
/// innermost one becomes a reduction over the innermost dimension of its transposed input.
void transposeReductions(mlir::ModuleOp module);

/// Part of tpu-decompose (TransposeSinking.cpp), first: each element-wise linalg.generic whose
/// full-size inputs are all transposes by one permutation, read by it alone, runs on their
/// sources with its result transposed instead, and a transpose that the next one undoes goes,
/// so that layout changes on either side of element-wise ops cancel.
void sinkTransposes(mlir::ModuleOp module);

/// Part of tpu-decompose (Windows.cpp): tensor.pad by a constant becomes concatenations with
/// constant fills; linalg.pooling_nhwc_max / _sum a chain of element-wise maxima / sums over
/// the window's strided slices of the input; linalg.conv_2d_nhwc_hwcf one matmul over the
/// concatenated slices (rows of whole `alignBytes` DMA runs; else one per tap). Errors at the
/// op.
mlir::LogicalResult decomposeWindows(mlir::ModuleOp module, int64_t alignBytes);
/// Part of tpu-decompose (Gathers.cpp): checks each tensor.gather is rows of a matrix by i32
/// indices [K, 1] (an error at the gather otherwise) and makes its result rank-reduced [K, D].
mlir::LogicalResult decomposeGathers(mlir::ModuleOp module);

/// The attribute names the passes write.
constexpr const char* kTargetAttr = "tpu.target";
constexpr const char* kNameAttr = graph::kNameAttr;
constexpr const char* kResultsAttr = "tpu.results";
constexpr const char* kMxuAttr = "tpu.mxu";
constexpr const char* kVmemAttr = "tpu.vmem";
constexpr const char* kCoresAttr = "tpu.cores";
constexpr const char* kScratchAttr = "tpu.scratch_bytes";

} // namespace chipless::tpuc

#endif // TPUC_TRANSFORMS_COMMON_H
