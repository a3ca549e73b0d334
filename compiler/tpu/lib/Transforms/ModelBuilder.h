//===- ModelBuilder.h - the KernelSpec of a tpu.kernel --------*- C++ -*-===//
//
// Part of chipless. Internal to compiler/tpu/lib. Builds the plain-C++ KernelSpec of a
// tpu.kernel (tpuc/KernelSpec.h): the matmul's operands in HBM, the inputs the vector program
// loads and the outputs it writes (ModelBuilder.cpp), and the vector program translated from
// the linalg bodies (ModelBody.cpp: arith and math ops to VPU operations; math.erf as a
// polynomial). The decisions of tpu-tile-mxu, tpu-alloc-vmem and tpu-split-cores are read
// back from the kernel's attributes, as far as the stage asks.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_TRANSFORMS_MODELBUILDER_H
#define TPUC_TRANSFORMS_MODELBUILDER_H

#include "Common.h"
#include "Layout.h"
#include "support/tpu_arch.h"
#include "tpuc/KernelSpec.h"

#include "llvm/ADT/DenseMap.h"

#include <map>
#include <string>

namespace chipless::tpuc {

/// Which attributes the model reads (each pass needs the ones before it).
enum class Stage { Tile, Vmem, Cores, Emit };

/// The KernelSpec of `k` with the decisions of the passes before `stage`; errors are reported
/// at the op. `places`, when given, maps each location string the spec names to its op (so
/// a CompileError naming one can be reported there).
mlir::FailureOr<KernelSpec> buildSpec(KernelOp k, const TpuArch& arch, Stage stage,
                                      std::map<std::string, mlir::Operation*>* places = nullptr);

/// Builds one KernelSpec (buildSpec).
class ModelBuilder {
public:
  ModelBuilder(KernelOp k, const TpuArch& arch, Stage stage,
               std::map<std::string, mlir::Operation*>* places)
      : kernel_(k), arch_(arch), stage_(stage), places_(places) {}

  mlir::FailureOr<KernelSpec> build();

private:
  // ---- the kernel's operands and results (ModelBuilder.cpp) ------------------------------------

  /// The location string of `op` (recorded in places_).
  std::string where(mlir::Operation* op);
  /// Appends a vector value; returns its index.
  int add(VOp o);
  int constant(double v, bool isInt);
  bool isColumn(int id) const;
  bool isConst(int id) const { return spec_.ops[static_cast<size_t>(id)].kind == VKind::Const; }
  /// A value node; column when every non-constant operand is (or the op is per-row).
  int node(VKind kind, tpuprog::Opcode opc, int a, int b, int c, bool isInt, mlir::Operation* at);
  /// The access of `v` with element strides `dims` over the kernel's space dimensions.
  mlir::FailureOr<HbmAccess> access(const View& v, mlir::ArrayRef<int64_t> dims, int64_t n,
                                    bool write, mlir::Operation* at, const std::string& what);
  /// An error at `at` naming `what` unless the access's offset, batch strides and (with
  /// `rows`) row stride are multiples of dma.alignment_bytes.
  mlir::LogicalResult checkAligned(const HbmAccess& a, bool rows, mlir::Operation* at,
                                   const std::string& what) const;
  /// The HBM view of `v`; an error at `at` naming `what` when it has none.
  mlir::FailureOr<View> view(mlir::Value v, mlir::Operation* at, const std::string& what);
  /// The MatmulSpec of a linalg.matmul / batch_matmul (and its init as a vector value).
  mlir::LogicalResult matmul(mlir::Operation& op);
  /// The rows of a tensor.gather (rank-reduced, tpu-decompose): a Load of the table by index.
  mlir::LogicalResult gather(mlir::tensor::GatherOp g);
  /// A Load of external tensor `x` whose element strides over the kernel's dimensions are `dims`.
  mlir::FailureOr<int> load(mlir::Value x, const View& v, mlir::SmallVector<int64_t> dims,
                            mlir::Operation* at, const std::string& what);
  /// A Load of input `in` (an identical input already read is read again, not twice).
  int addLoad(const VInput& in, mlir::Operation* at);
  /// A column Load of `v`, a per-row vector (packed [batch..., M], or a [batch..., M, 1]
  /// column in its padded layout) read broadcast along N; `dims` as for load(). Errors name
  /// `what`.
  mlir::FailureOr<int> loadColumn(const View& v, mlir::ArrayRef<int64_t> dims, mlir::Operation* at,
                                  const std::string& what);
  /// The kernel's results: the values they take and their HBM accesses.
  mlir::LogicalResult outputs(YieldOp y);
  /// The decisions of tpu-tile-mxu, tpu-alloc-vmem and tpu-split-cores.
  mlir::LogicalResult readTiling();
  mlir::LogicalResult readMemory();
  mlir::LogicalResult readCores();

  // ---- the linalg bodies (ModelBody.cpp) -------------------------------------------------------

  /// The vector values of a linalg.generic: its operands, its body, its results (reductions
  /// over N become Reduce values).
  mlir::LogicalResult generic(mlir::linalg::GenericOp g);
  /// The vector value of `v` in a body: a value computed there or a constant.
  mlir::LogicalResult operandOf(mlir::Value v, llvm::DenseMap<mlir::Value, int>& scalar, int& id,
                                mlir::Operation* at);
  /// The erf polynomial of Abramowitz and Stegun 7.1.26 (|error| <= 1.5e-7).
  int erf(int x, mlir::Operation* at);
  /// The vector value(s) of one arith or math op of a body.
  mlir::LogicalResult bodyOp(mlir::Operation& op, llvm::DenseMap<mlir::Value, int>& scalar);

  KernelOp kernel_;
  const TpuArch& arch_;
  Stage stage_;
  std::map<std::string, mlir::Operation*>* places_;
  KernelSpec spec_;
  mlir::SmallVector<int64_t> space_;
  llvm::DenseMap<mlir::Value, int> tensor_;
  bool columnPlace_ = false;
};

} // namespace chipless::tpuc

#endif // TPUC_TRANSFORMS_MODELBUILDER_H
