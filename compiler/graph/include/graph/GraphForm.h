//===- GraphForm.h - the tensor-graph form both compilers take --*- C++ -*-===//
//
// Part of chipless. docs/graph-ir.md: one func.func whose arguments and results are tensors
// of static shape, a straight-line body of linalg, tensor, arith and math ops. tpu-compile
// and spyre-compile (its front end) take the same form and check it with one verifier; what
// differs per chip (its element types, the ops a linalg body may use, the types a matmul
// takes) is its GraphTarget.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPH_GRAPHFORM_H
#define GRAPH_GRAPHFORM_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <functional>
#include <optional>
#include <string>

namespace chipless::graph {

/// The attribute naming a graph argument or result (`{graph.name = "x"}`).
constexpr const char* kNameAttr = "graph.name";

/// The graph's function: the module's only func.func (null if there is not exactly one).
mlir::func::FuncOp graphFunction(mlir::ModuleOp module);

/// The name of argument i / result i: its `graph.name` attribute, else "arg<i>" /
/// "result<i>".
std::string argumentName(mlir::func::FuncOp f, unsigned i);
std::string resultName(mlir::func::FuncOp f, unsigned i);

/// Whether `s` is an identifier (letters, digits, '_', not starting with a digit).
bool isIdentifier(const std::string& s);

/// The constant a value is (arith.constant scalar or splat tensor, linalg.fill of one), or
/// nullopt.
std::optional<double> constantValue(mlir::Value v);

/// How a reduction combines: the op yielding `combine(x, acc)` in a reduction's body.
struct Combiner {
  enum class Kind { Add, Max, Min };
  Kind kind = Kind::Add;
  mlir::Value operand; ///< the value combined into the accumulator
  mlir::Operation* combineOp = nullptr;
};
/// The combiner of a reduction body yielding `yielded`, accumulating into block argument
/// `acc`; nullopt (with `why`) when the body is not `yield combine(f(inputs), acc)`.
std::optional<Combiner> reductionCombiner(mlir::Value yielded, mlir::BlockArgument acc,
                                          std::string& why);

/// Whether an arith.cmpf in a linalg body compares with a predicate both compilers
/// evaluate (oeq, une, olt, ole, ogt, oge); false with the reason in `why`.
bool supportedFloatCompare(mlir::Operation* cmpf, std::string& why);

/// What one compiler takes beyond the common form.
struct GraphTarget {
  /// Whether arguments, results and tensors may have this element type, and the list for
  /// messages ("bf16, f32, i8 or i32").
  std::function<bool(mlir::Type)> tensorElement;
  std::string tensorElements;
  /// Its floating-point tensor types, for messages ("bf16 and f32").
  std::string floatElements;
  /// Whether an op of a linalg body may produce this scalar type, and the list ("bf16, f32,
  /// i8, i32, i1").
  std::function<bool(mlir::Type)> scalarElement;
  std::string scalarElements;
  /// Whether an op may appear in a linalg body (false with the reason in `why`).
  std::function<bool(mlir::Operation*, std::string& why)> bodyOp;
  /// Why a matmul of operands `a`, `b` into `c` is not supported ("" when it is).
  std::function<std::string(mlir::Type a, mlir::Type b, mlir::Type c)> matmulTypes;
  /// Ops the compiler takes beyond the common form (it checks them itself); may be empty.
  std::function<bool(mlir::Operation*)> extraOps = {};
};

/// Checks the graph form of docs/graph-ir.md for `target`: every violation is an error at
/// the op, argument or result concerned. Fails when there is one.
mlir::LogicalResult verifyGraph(mlir::ModuleOp module, const GraphTarget& target);

} // namespace chipless::graph

#endif // GRAPH_GRAPHFORM_H
