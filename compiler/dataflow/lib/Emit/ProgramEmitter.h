//===- ProgramEmitter.h - one dfir.program to one SpyreCode program -*- C++ -*-===//
//
// Part of chipless. Private to the emitter. A program is emitted in three phases:
//
//  1. analysis (ScalarCode.cpp): every scalar value becomes either an operand expression
//     (constant + at most one register + at most one symbol, which costs no instruction:
//     constants, dfir.symbol, dfir.core_id, sums that still fit one operand), a fused
//     condition (an arith.cmpi that only steers branches), or a register value. Every op
//     gets a position; register values get live intervals, extended through every loop
//     that uses a value defined outside it, so it survives the back edge.
//  2. register allocation (ScalarCode.cpp): linear scan over the intervals onto r0..r15;
//     loop-carried values and scf.if results share one register with the value yielded
//     to them when their lifetimes allow it, so no copy is needed.
//  3. emission (ProgramEmitter.cpp): instructions in program order, loops as
//     loop/endloop, branches with labels, parallel copies at yields.
//
//===----------------------------------------------------------------------===//

#ifndef DATAFLOW_LIB_EMIT_PROGRAMEMITTER_H
#define DATAFLOW_LIB_EMIT_PROGRAMEMITTER_H

#include "dataflow/Dialect/Dfir/DfirIsa.h"
#include "dataflow/Dialect/Dfir/DfirOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "support/spyre_arch.h"
#include "support/spyrecode/program.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace chipless::dataflow::detail {

/// An integer operand as the ISA encodes it: a constant plus at most one register (a
/// value held in r0..r15, or a read-only register) plus at most one launch-bound symbol.
struct Expr {
  int64_t imm = 0;
  mlir::Value reg;  ///< a register value, or null
  int special = -1; ///< spyrecode::kRegCore, kRegCorelet, kRegNumCores, or -1
  std::string sym;  ///< symbol name, or ""
  bool hasRegister() const { return static_cast<bool>(reg) || special >= 0; }
  bool isConstant() const { return !hasRegister() && sym.empty(); }
};

/// Sum of two expressions when it is still one operand.
std::optional<Expr> addExprs(const Expr& a, const Expr& b);
/// The ISA opcode of a binary arith op the emitter supports (addi -> add, ...).
std::optional<spyrecode::Opcode> scalarOpcode(mlir::Operation* op);
/// The result of a scalar instruction on constants, as the simulator computes it.
std::optional<int64_t> foldScalar(spyrecode::Opcode op, int64_t a, int64_t b);
/// True for the comparisons branches can test: eq, ne and the signed orders.
bool supportedPredicate(mlir::arith::CmpIPredicate p);
bool evaluatePredicate(mlir::arith::CmpIPredicate p, int64_t a, int64_t b);

/// The job-wide symbol table of the binary: names in order of first use.
struct SymbolTable {
  std::vector<std::string> names;
  llvm::StringMap<int32_t> ids;
  int32_t idOf(llvm::StringRef name);
};

/// A register's live range: one or more values that share one register.
struct LiveGroup {
  int start = 0;                    ///< first position the register holds the value
  int end = 0;                      ///< last position it is read
  int reg = -1;                     ///< r0..r15 once allocated
  mlir::Operation* owner = nullptr; ///< where an allocation failure is reported
  int mergedInto = -1;              ///< >= 0: shares the register of that group
};

/// Positions and registers of one scf.for.
struct LoopRecord {
  mlir::Operation* op = nullptr; ///< the scf.for
  int parent = -1;               ///< enclosing loop, or -1
  int initPos = 0;               ///< iter_args and induction variable initialised
  int countPos = 0;              ///< trip count computed, `loop`
  int endPos = 0;                ///< yield copies, induction variable step, `endloop`
  int bodyStart = 0;             ///< first position inside the body
  std::vector<int> slots;        ///< group of each iter_arg (= its result)
  int ivGroup = -1;              ///< group of the induction variable when it is used
  int countGroup = -1;           ///< group of a computed trip count
};

/// Positions and registers of one scf.if.
struct IfRecord {
  int branchPos = 0, thenEndPos = 0, elseEndPos = 0;
  std::vector<int> slots;     ///< group of each result
  std::optional<bool> folded; ///< the condition's constant value: only that region is emitted
};

/// Emits one program. Diagnostics go to the ops' locations.
class ProgramEmitter {
public:
  ProgramEmitter(mlir::dfir::ProgramOp program, const SpyreArch& arch, SymbolTable& symbols)
      : program_(program), arch_(arch), symbols_(symbols) {}

  /// Runs the three phases; false after reporting an error.
  mlir::LogicalResult run(spyrecode::Program& out);

private:
  // ---- analysis (ScalarCode.cpp) ------------------------------------------------------
  mlir::LogicalResult analyzeBlock(mlir::Block& block);
  mlir::LogicalResult analyzeOp(mlir::Operation* op);
  mlir::LogicalResult analyzeArith(mlir::Operation* op, int pos);
  mlir::LogicalResult analyzeFor(mlir::scf::ForOp op);
  mlir::LogicalResult analyzeIf(mlir::scf::IfOp op);
  mlir::LogicalResult analyzeInstruction(mlir::dfir::InstructionOpInterface op, int pos);
  mlir::LogicalResult checkScalarType(mlir::Operation* op, mlir::Type type);
  void findDeadOps(mlir::Block& block);
  int newGroup(int start, mlir::Operation* owner);
  void defineValue(mlir::Value value, int group, int defPos);
  void use(mlir::Value value, int pos);
  std::optional<Expr> exprOf(mlir::Value value) const;
  void computeIntervals();
  void coalesceYields();
  mlir::LogicalResult allocate();

  // ---- emission (ProgramEmitter.cpp) --------------------------------------------------
  void emitBlock(mlir::Block& block);
  void emitArith(mlir::Operation* op);
  void emitFor(mlir::scf::ForOp op);
  void emitIf(mlir::scf::IfOp op);
  void emitInstruction(mlir::dfir::InstructionOpInterface op);
  void emitBranchIf(mlir::Value cond, bool whenTrue, int label);
  void emitCompareBranch(mlir::arith::CmpIPredicate pred, const Expr& a, const Expr& b, int label);
  void emitParallelCopy(std::vector<std::pair<int, spyrecode::Operand>> moves, int pos,
                        mlir::Operation* at);
  void emit(spyrecode::Opcode op, std::vector<spyrecode::Operand> operands);
  void emitBranch(spyrecode::Opcode op, std::vector<spyrecode::Operand> operands, int label);
  int newLabel();
  void placeLabel(int label);
  int regOf(mlir::Value value) const;
  int groupReg(int group) const;
  spyrecode::Operand operandOf(const Expr& e);
  spyrecode::Operand registerOperand(int reg) const;

  mlir::dfir::ProgramOp program_;
  const SpyreArch& arch_;
  SymbolTable& symbols_;
  bool failed_ = false; ///< an error was reported during emission

  // Analysis results.
  llvm::DenseSet<mlir::Operation*> dead_;
  llvm::DenseMap<mlir::Value, Expr> exprs_;  ///< values that are operand expressions
  llvm::DenseSet<mlir::Value> conditions_;   ///< fused arith.cmpi results
  llvm::DenseMap<mlir::Value, int> groupOf_; ///< register values
  llvm::DenseMap<mlir::Value, int> defPos_;  ///< where a register value starts
  struct Use {
    mlir::Value value;
    int pos;
    int loop;
  };
  std::vector<Use> uses_;
  llvm::DenseMap<mlir::Value, int> lastUse_; ///< after loop extension
  std::vector<LiveGroup> groups_;
  std::vector<LoopRecord> loops_;
  llvm::DenseMap<mlir::Operation*, int> loopOf_;
  std::map<mlir::Operation*, IfRecord> ifs_; ///< stable references while nested ifs are added
  std::vector<mlir::Operation*> ifOrder_;    ///< scf.if ops in program order
  int nextPos_ = 0;
  int currentLoop_ = -1;
  int loopDepth_ = 0;

  // Emission state.
  std::vector<spyrecode::Instruction> code_;
  std::vector<int> labelPc_;
  struct Fixup {
    size_t pc;
    size_t operand;
    int label;
  };
  std::vector<Fixup> fixups_;
};

} // namespace chipless::dataflow::detail

#endif // DATAFLOW_LIB_EMIT_PROGRAMEMITTER_H
