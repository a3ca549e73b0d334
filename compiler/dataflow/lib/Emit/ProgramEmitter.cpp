//===- ProgramEmitter.cpp - one dfir.program to one SpyreCode program -----===//
//
// Part of chipless. Phase 3 of ProgramEmitter (see ProgramEmitter.h): instructions in
// program order. Scalar ops become one ALU instruction (or nothing, when their value is
// an operand expression); scf.for becomes `loop COUNT ... endloop` with the trip count
// computed when the bounds need it; scf.if becomes a conditional branch over the then
// region and a jump over the else region; yields become parallel copies.
//
//===----------------------------------------------------------------------===//

#include "ProgramEmitter.h"

#include <cstring>

using namespace mlir;
using namespace chipless::dataflow::detail;
namespace sc = chipless::spyrecode;

namespace {

/// Index of operand `name` in the opcode's table entry.
size_t operandIndex(sc::Opcode op, llvm::StringRef name) {
  const auto& operands = sc::opcodeInfo(op).operands;
  for (size_t i = 0; i < operands.size(); ++i)
    if (name == operands[i].name) return i;
  return operands.size();
}

sc::Operand immediate(int64_t value) {
  sc::Operand o;
  o.imm = value;
  return o;
}

} // namespace

LogicalResult ProgramEmitter::run(sc::Program& out) {
  Block& body = program_.getBody().front();
  const int cores = arch_.chip.cores;
  if (program_.getLastCore() != sc::kAllCores && program_.getLastCore() >= cores)
    return program_.emitError() << "runs on cores " << program_.getFirstCore() << ".."
                                << program_.getLastCore() << ", but the chip has " << cores
                                << " cores (chip.cores)";
  if (program_.getFirstCore() >= cores)
    return program_.emitError() << "first core " << program_.getFirstCore()
                                << " does not exist: the chip has " << cores
                                << " cores (chip.cores)";
  if (program_.getCoreletIndex() >= arch_.chip.corelets_per_core)
    return program_.emitError() << "runs on corelet " << program_.getCoreletIndex()
                                << ", but a core has " << arch_.chip.corelets_per_core
                                << " corelets (chip.corelets_per_core)";

  findDeadOps(body);
  if (failed(analyzeBlock(body))) return failure();
  computeIntervals();
  coalesceYields();
  if (failed(allocate())) return failure();

  emitBlock(body);
  if (failed_) return failure();
  for (const Fixup& f : fixups_)
    code_[f.pc].operands[f.operand].imm = labelPc_[static_cast<size_t>(f.label)];

  out.unit = program_.getUnitKind();
  out.corelet = program_.getCoreletIndex();
  out.coreFirst = program_.getFirstCore();
  out.coreLast = program_.getLastCore();
  out.code = std::move(code_);
  return success();
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

int ProgramEmitter::groupReg(int group) const {
  while (groups_[static_cast<size_t>(group)].mergedInto >= 0)
    group = groups_[static_cast<size_t>(group)].mergedInto;
  return groups_[static_cast<size_t>(group)].reg;
}

int ProgramEmitter::regOf(Value value) const {
  return groupReg(groupOf_.lookup(value));
}

sc::Operand ProgramEmitter::registerOperand(int reg) const {
  sc::Operand o;
  o.reg = static_cast<int8_t>(reg);
  return o;
}

sc::Operand ProgramEmitter::operandOf(const Expr& e) {
  sc::Operand o;
  o.imm = e.imm;
  if (e.reg)
    o.reg = static_cast<int8_t>(regOf(e.reg));
  else if (e.special >= 0)
    o.reg = static_cast<int8_t>(e.special);
  if (!e.sym.empty()) o.sym = symbols_.idOf(e.sym);
  return o;
}

void ProgramEmitter::emit(sc::Opcode op, std::vector<sc::Operand> operands) {
  sc::Instruction ins;
  ins.op = op;
  ins.operands = std::move(operands);
  code_.push_back(std::move(ins));
}

void ProgramEmitter::emitBranch(sc::Opcode op, std::vector<sc::Operand> operands, int label) {
  size_t target = operandIndex(op, "target");
  operands.resize(sc::opcodeInfo(op).operands.size());
  fixups_.push_back({code_.size(), target, label});
  emit(op, std::move(operands));
}

int ProgramEmitter::newLabel() {
  labelPc_.push_back(-1);
  return static_cast<int>(labelPc_.size()) - 1;
}

void ProgramEmitter::placeLabel(int label) {
  labelPc_[static_cast<size_t>(label)] = static_cast<int>(code_.size());
}

//===----------------------------------------------------------------------===//
// Blocks and scalar ops
//===----------------------------------------------------------------------===//

void ProgramEmitter::emitBlock(Block& block) {
  for (Operation& op : block) {
    if (failed_) return;
    if (isa<scf::YieldOp>(op)) continue;
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      emitFor(loop);
    } else if (auto branch = dyn_cast<scf::IfOp>(op)) {
      emitIf(branch);
    } else if (auto ins = dyn_cast<dfir::InstructionOpInterface>(op)) {
      emitInstruction(ins);
    } else if (!dead_.contains(&op) && op.getNumResults() == 1 && groupOf_.count(op.getResult(0))) {
      emitArith(&op); // a value that lives in a register
    }
  }
}

void ProgramEmitter::emitArith(Operation* op) {
  const int rd = regOf(op->getResult(0));
  if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
    // rd = 1; if (a pred b) skip; rd = 0
    int done = newLabel();
    emit(sc::Opcode::Li, {registerOperand(rd), immediate(1)});
    emitCompareBranch(cmp.getPredicate(), *exprOf(cmp.getLhs()), *exprOf(cmp.getRhs()), done);
    emit(sc::Opcode::Li, {registerOperand(rd), immediate(0)});
    placeLabel(done);
    return;
  }
  if (auto select = dyn_cast<arith::SelectOp>(op)) {
    // rd = t; if (cond) skip; rd = f
    int done = newLabel();
    emit(sc::Opcode::Li, {registerOperand(rd), operandOf(*exprOf(select.getTrueValue()))});
    emitBranchIf(select.getCondition(), /*whenTrue=*/true, done);
    emit(sc::Opcode::Li, {registerOperand(rd), operandOf(*exprOf(select.getFalseValue()))});
    placeLabel(done);
    return;
  }
  sc::Opcode opcode = *scalarOpcode(op);
  emit(opcode, {registerOperand(rd), operandOf(*exprOf(op->getOperand(0))),
                operandOf(*exprOf(op->getOperand(1)))});
}

void ProgramEmitter::emitCompareBranch(arith::CmpIPredicate pred, const Expr& a, const Expr& b,
                                       int label) {
  using P = arith::CmpIPredicate;
  sc::Operand x = operandOf(a), y = operandOf(b);
  switch (pred) {
  case P::eq:
    return emitBranch(sc::Opcode::Beq, {x, y}, label);
  case P::ne:
    return emitBranch(sc::Opcode::Bne, {x, y}, label);
  case P::slt:
    return emitBranch(sc::Opcode::Blt, {x, y}, label);
  case P::sge:
    return emitBranch(sc::Opcode::Bge, {x, y}, label);
  case P::sgt: // a > b  <=>  b < a
    return emitBranch(sc::Opcode::Blt, {y, x}, label);
  case P::sle: // a <= b  <=>  b >= a
    return emitBranch(sc::Opcode::Bge, {y, x}, label);
  default:
    failed_ = true; // analysis rejects the others
  }
}

void ProgramEmitter::emitBranchIf(Value cond, bool whenTrue, int label) {
  if (conditions_.contains(cond)) {
    auto cmp = cond.getDefiningOp<arith::CmpIOp>();
    arith::CmpIPredicate pred =
        whenTrue ? cmp.getPredicate() : arith::invertPredicate(cmp.getPredicate());
    emitCompareBranch(pred, *exprOf(cmp.getLhs()), *exprOf(cmp.getRhs()), label);
    return;
  }
  emitBranch(whenTrue ? sc::Opcode::Bne : sc::Opcode::Beq, {operandOf(*exprOf(cond)), immediate(0)},
             label);
}

void ProgramEmitter::emitParallelCopy(std::vector<std::pair<int, sc::Operand>> moves, int pos,
                                      Operation* at) {
  // Copies that already hold their value cost nothing.
  llvm::erase_if(moves, [](const std::pair<int, sc::Operand>& m) {
    return m.second.reg == m.first && m.second.imm == 0 && m.second.sym < 0;
  });
  while (!moves.empty()) {
    // A copy whose destination no other pending copy reads can go now.
    auto ready = llvm::find_if(moves, [&](const std::pair<int, sc::Operand>& m) {
      return llvm::none_of(moves, [&](const std::pair<int, sc::Operand>& other) {
        return &other != &m && other.second.reg == m.first;
      });
    });
    if (ready != moves.end()) {
      // `add rd, r, c` reads better than the equivalent `li rd, r+c`; both are one
      // instruction.
      const sc::Operand& src = ready->second;
      if (src.reg >= 0 && (src.imm != 0 || src.sym >= 0)) {
        sc::Operand rest = src;
        rest.reg = -1;
        emit(sc::Opcode::Add, {registerOperand(ready->first), registerOperand(src.reg), rest});
      } else {
        emit(sc::Opcode::Li, {registerOperand(ready->first), src});
      }
      moves.erase(ready);
      continue;
    }
    // Only cycles are left: move one destination's old value to a free register.
    const int numRegisters = std::min(arch_.scalar.registers, sc::kNumGeneralRegs);
    int temp = -1;
    for (int r = 0; r < numRegisters && temp < 0; ++r) {
      bool busy = llvm::any_of(groups_, [&](const LiveGroup& g) {
        return g.mergedInto < 0 && g.reg == r && g.start <= 2 * pos + 1 && g.end >= 2 * pos;
      });
      if (!busy) temp = r;
    }
    if (temp < 0) {
      at->emitError() << "no free scalar register to exchange loop-carried values (all "
                      << numRegisters << " are live here)";
      failed_ = true;
      return;
    }
    const int saved = moves.front().first;
    emit(sc::Opcode::Li, {registerOperand(temp), registerOperand(saved)});
    for (auto& m : moves)
      if (m.second.reg == saved) m.second.reg = static_cast<int8_t>(temp);
  }
}

//===----------------------------------------------------------------------===//
// Loops and branches
//===----------------------------------------------------------------------===//

void ProgramEmitter::emitFor(scf::ForOp op) {
  const LoopRecord& loop = loops_[static_cast<size_t>(loopOf_.lookup(op))];
  const Expr lb = *exprOf(op.getLowerBound()), ub = *exprOf(op.getUpperBound()),
             step = *exprOf(op.getStep());

  // Initial values of the loop-carried registers and the induction variable.
  std::vector<std::pair<int, sc::Operand>> moves;
  for (auto [init, slot] : llvm::zip(op.getInitArgs(), loop.slots))
    moves.push_back({groupReg(slot), operandOf(*exprOf(init))});
  if (loop.ivGroup >= 0) moves.push_back({groupReg(loop.ivGroup), operandOf(lb)});
  emitParallelCopy(moves, loop.initPos, op);

  // Trip count: ceil((ub - lb) / step); `loop` skips the body when it is <= 0.
  sc::Operand count;
  if (loop.countGroup < 0) {
    if (ub.isConstant()) {
      int64_t span = ub.imm - lb.imm;
      count = immediate(span <= 0 ? 0 : (span + step.imm - 1) / step.imm);
    } else {
      Expr c = ub;
      c.imm -= lb.imm; // step is 1
      count = operandOf(c);
    }
  } else {
    const int t = groupReg(loop.countGroup);
    sc::Operand span; // ub - lb, as one operand when lb is a constant
    if (lb.isConstant()) {
      Expr difference = ub;
      difference.imm -= lb.imm;
      span = operandOf(difference);
    } else {
      emit(sc::Opcode::Sub, {registerOperand(t), operandOf(ub), operandOf(lb)});
      span = registerOperand(t);
    }
    if (step.isConstant() && step.imm == 1) {
      if (lb.isConstant()) emit(sc::Opcode::Li, {registerOperand(t), span});
    } else if (step.isConstant()) {
      span.imm += step.imm - 1;
      emit(sc::Opcode::Div, {registerOperand(t), span, immediate(step.imm)});
    } else {
      span.imm -= 1;
      emit(sc::Opcode::Add, {registerOperand(t), span, operandOf(step)});
      emit(sc::Opcode::Div, {registerOperand(t), registerOperand(t), operandOf(step)});
    }
    count = registerOperand(t);
  }
  const size_t loopPc = code_.size();
  emit(sc::Opcode::Loop, {count, immediate(0)});

  emitBlock(*op.getBody());
  if (failed_) return;

  moves.clear();
  for (auto [yielded, slot] : llvm::zip(op.getBody()->getTerminator()->getOperands(), loop.slots))
    moves.push_back({groupReg(slot), operandOf(*exprOf(yielded))});
  emitParallelCopy(moves, loop.endPos, op);
  if (loop.ivGroup >= 0) {
    const int iv = groupReg(loop.ivGroup);
    emit(sc::Opcode::Add, {registerOperand(iv), registerOperand(iv), operandOf(step)});
  }
  const size_t endPc = code_.size();
  emit(sc::Opcode::EndLoop, {immediate(static_cast<int64_t>(loopPc))});
  code_[loopPc].operands[operandIndex(sc::Opcode::Loop, "end")].imm =
      static_cast<int64_t>(endPc + 1);
}

void ProgramEmitter::emitIf(scf::IfOp op) {
  const IfRecord& record = ifs_[op];
  if (record.folded) {
    Block* taken = *record.folded ? op.thenBlock() : op.elseBlock();
    if (taken) emitBlock(*taken);
    return;
  }
  // The else region is emitted when it yields results or does anything.
  Block* elseBlock = op.elseBlock();
  const bool hasElse =
      elseBlock && (op.getNumResults() > 0 || !elseBlock->without_terminator().empty());
  const int elseLabel = newLabel(), endLabel = newLabel();
  emitBranchIf(op.getCondition(), /*whenTrue=*/false, hasElse ? elseLabel : endLabel);

  auto copyResults = [&](Block* block, int pos) {
    std::vector<std::pair<int, sc::Operand>> moves;
    for (auto [yielded, slot] : llvm::zip(block->getTerminator()->getOperands(), record.slots))
      moves.push_back({groupReg(slot), operandOf(*exprOf(yielded))});
    emitParallelCopy(moves, pos, op);
  };
  emitBlock(*op.thenBlock());
  copyResults(op.thenBlock(), record.thenEndPos);
  if (hasElse) {
    emitBranch(sc::Opcode::Jmp, {}, endLabel);
    placeLabel(elseLabel);
    emitBlock(*elseBlock);
    copyResults(elseBlock, record.elseEndPos);
  }
  placeLabel(endLabel);
}

//===----------------------------------------------------------------------===//
// Instructions
//===----------------------------------------------------------------------===//

void ProgramEmitter::emitInstruction(dfir::InstructionOpInterface op) {
  const sc::OpcodeInfo& info = sc::opcodeInfo(op.getOpcode());
  sc::Instruction ins;
  ins.op = info.op;
  if (auto dtype = op->getAttrOfType<TypeAttr>("dtype"))
    ins.dtype = dfir::dtypeOf(dtype.getValue());
  else if (info.dtype == sc::DtypeRule::Optional)
    ins.dtype = chipless::DType::F16; // as the assembler: ring.send without suffix is f16

  SmallVector<dfir::IsaOperand> given = dfir::getIsaOperands(op);
  for (const sc::OperandDecl& decl : info.operands) {
    const dfir::IsaOperand* operand = nullptr;
    for (const dfir::IsaOperand& g : given)
      if (g.decl == &decl) operand = &g;
    sc::Operand value = immediate(
        decl.optional ? *chipless::progformat::operandDefault(decl, &arch_.description) : 0);
    if (operand && operand->present()) {
      switch (decl.kind) {
      case sc::OperandKind::Reg:
        value = registerOperand(regOf(operand->value));
        break;
      case sc::OperandKind::Expr:
        value = operandOf(*exprOf(operand->value));
        break;
      case sc::OperandKind::Port:
        value = immediate(dfir::portOf(operand->attr).value_or(sc::kPortNone));
        break;
      case sc::OperandKind::Enum:
        value = immediate(dfir::enumIndex(decl, cast<StringAttr>(operand->attr).getValue()));
        break;
      case sc::OperandKind::Float: {
        if (auto symbol = dyn_cast<FlatSymbolRefAttr>(operand->attr)) {
          value = sc::Operand{};
          value.sym = symbols_.idOf(symbol.getValue().str());
          break;
        }
        double d = cast<FloatAttr>(operand->attr).getValueAsDouble();
        int64_t bits;
        std::memcpy(&bits, &d, sizeof bits);
        value = immediate(bits);
        break;
      }
      default:
        break;
      }
    }
    ins.operands.push_back(value);
  }
  code_.push_back(std::move(ins));
}
