//===- Kernel.h - a KTIR kernel's arguments and index values ---*- C++ -*-===//
//
// Part of chipless. Private to the Dataflow Scheduler. What the scheduler knows about the
// kernel as a whole: its tensor arguments (recovered from the memory views: pointer
// arguments and constant addresses), its launch scalars, and how `index` values of the
// KTIR function become schedule expressions.
//
// Binding convention (docs/ktir.md): KTIR pointers count elements of their view's type.
// A pointer argument binds to tensor argument X, and the pointer value is X's device
// address divided by the element size; a view at pointer + k reads byte @X + k * esize.
// Kernels that address global memory with constants get one tensor argument per disjoint
// footprint of one element type; a constant c of the argument whose lowest address is L
// is byte @X + (c - L) * esize.
//
//===----------------------------------------------------------------------===//

#ifndef DATAFLOW_LIB_SCHEDULER_KERNEL_H
#define DATAFLOW_LIB_SCHEDULER_KERNEL_H

#include "Expr.h"
#include "SourceNames.h"
#include "dataflow/Scheduler/Scheduler.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Value.h"
#include "support/dtype.h"

#include "llvm/ADT/DenseMap.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace chipless::sched {

/// A tensor argument of the compiled job.
struct TensorArgument {
  std::string name;
  DType dtype = DType::F16;
  mlir::Type elemType;
  std::vector<int64_t> shape;
  /// Dimensions sized at launch: dimension -> the runtime argument (function argument)
  /// whose value it is; `shape` holds its upperbound there.
  std::map<size_t, int> dynamicDims;
  /// Per dimension: the launch scalar it is, or "" (filled with the scalars' names).
  std::vector<std::string> dimNames;
  bool read = false, written = false;
  int funcArg = -1;    ///< the pointer argument it binds, or -1 (constant addresses)
  int64_t constLo = 0; ///< constant addresses: the element address of byte 0
  int64_t constHi = 0; ///< one past the footprint
  /// -1: global memory. >= 0: the contents of tile N's scratchpad view (ct_local), which
  /// the host provides like any input (docs/ktir.md).
  int space = -1;
  int64_t elements() const;
};

/// A launch scalar: a non-pointer integer argument, or a float argument (a real scalar
/// such as `%eps: f16`), not fixed with --const.
struct ScalarArgument {
  std::string name;
  int funcArg = -1;
  /// A real scalar: its float type (the runtime rounds the launch value to it; SFU
  /// registers are filled from it with `sfu.splat.T v, @name`). Absent: an integer.
  std::optional<DType> real;
  /// The values the program handles (a runtime_arg's granularity, 0 and upperbound),
  /// checked by the runtime at launch.
  int64_t multipleOf = 1;
  std::optional<int64_t> min, max;
};

/// The kernel's arguments.
struct KernelArgs {
  std::vector<TensorArgument> tensors;
  std::vector<ScalarArgument> scalars;
  /// Function argument index -> tensor (pointer arguments) or scalar name.
  std::map<int, int> pointerArg;
  std::map<int, std::string> scalarArg;

  /// The tensor argument holding constant element address `c` of type `elemType`.
  const TensorArgument* constantTensor(mlir::Type elemType, int64_t c, int space = -1) const;
};

/// Evaluates `index` and integer values of a KTIR function as schedule expressions:
/// constants, loop variables of the enclosing scf.for ops, launch symbols, arith.
class IndexEval {
public:
  /// The expression of function argument `i` (a pointer symbol or a scalar symbol).
  std::function<Expr(unsigned i)> funcArg;
  /// Loop id of an scf.for whose induction variable is in scope; -1 if unknown.
  llvm::DenseMap<mlir::Operation*, int> loopIds;
  /// Region arguments with a known value (the group id of inter_tile_produce).
  llvm::DenseMap<mlir::Value, Expr> fixed;

  /// The expression of `v`, or failure after an error at the op that defines it.
  mlir::FailureOr<Expr> eval(mlir::Value v);
  void forget() { cache_.clear(); }

private:
  llvm::DenseMap<mlir::Value, Expr> cache_;
};

/// The symbol of function argument `i` while arguments are being discovered.
std::string pointerSymbol(unsigned i);

/// The bounds of a launch scalar: a runtime_arg's granularity and upperbound, or what
/// `spyre-compile --bound` gave.
using ScalarBounds = dataflow::ArgumentBounds;

/// Discovers the kernel's arguments from its specialised functions (one per tile):
/// pointer arguments and constant addresses that are the base of global memory views,
/// their element types, shapes and roles; every other integer argument is a launch scalar
/// unless `constants` fixes it, with its `bounds` (a view sized by a scalar with a maximum
/// is planned for that maximum; a scalar used as a loop step must be at least 1). Errors
/// are reported at the ops.
mlir::LogicalResult discoverArguments(mlir::func::FuncOp original,
                                      llvm::ArrayRef<mlir::func::FuncOp> tiles,
                                      const std::map<int, ScalarBounds>& bounds,
                                      SourceNames& sourceNames, KernelArgs& out);

} // namespace chipless::sched

#endif // DATAFLOW_LIB_SCHEDULER_KERNEL_H
