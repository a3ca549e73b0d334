//===- ScalarCode.cpp - scalar values, live intervals, registers ----------===//
//
// Part of chipless. Phases 1 and 2 of ProgramEmitter (see ProgramEmitter.h): which
// scalar values cost no instruction, where every value lives, and which of r0..r15 holds
// it.
//
// Positions: every op gets one position p (an scf.for three: init, count and end; an
// scf.if three: branch, end of then, end of else). An instruction at p reads its operands
// at 2p and writes its result at 2p+1; sequences that write their result before reading
// every operand (select, a materialised compare, a computed trip count) write at 2p so
// that the result never shares a register with an operand.
//
//===----------------------------------------------------------------------===//

#include "ProgramEmitter.h"

#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>

using namespace mlir;
using namespace chipless::dataflow::detail;
namespace sc = chipless::spyrecode;

namespace chipless::dataflow::detail {

std::optional<Expr> addExprs(const Expr& a, const Expr& b) {
  if (a.hasRegister() && b.hasRegister()) return std::nullopt;
  if (!a.sym.empty() && !b.sym.empty()) return std::nullopt;
  Expr sum = a.hasRegister() ? a : b;
  sum.imm = static_cast<int64_t>(static_cast<uint64_t>(a.imm) + static_cast<uint64_t>(b.imm));
  sum.sym = a.sym.empty() ? b.sym : a.sym;
  return sum;
}

int32_t SymbolTable::idOf(llvm::StringRef name) {
  auto [it, inserted] = ids.try_emplace(name, static_cast<int32_t>(names.size()));
  if (inserted) names.push_back(name.str());
  return it->second;
}

/// The ISA opcode of a binary arith op the emitter supports, or nullopt.
std::optional<sc::Opcode> scalarOpcode(Operation* op) {
  return llvm::TypeSwitch<Operation*, std::optional<sc::Opcode>>(op)
      .Case([](arith::AddIOp) { return sc::Opcode::Add; })
      .Case([](arith::SubIOp) { return sc::Opcode::Sub; })
      .Case([](arith::MulIOp) { return sc::Opcode::Mul; })
      .Case([](arith::DivSIOp) { return sc::Opcode::Div; })
      .Case([](arith::RemSIOp) { return sc::Opcode::Rem; })
      .Case([](arith::ShLIOp) { return sc::Opcode::Shl; })
      .Case([](arith::ShRSIOp) { return sc::Opcode::Shr; })
      .Case([](arith::AndIOp) { return sc::Opcode::And; })
      .Case([](arith::OrIOp) { return sc::Opcode::Or; })
      .Case([](arith::XOrIOp) { return sc::Opcode::Xor; })
      .Case([](arith::MinSIOp) { return sc::Opcode::Min; })
      .Case([](arith::MaxSIOp) { return sc::Opcode::Max; })
      .Default([](Operation*) { return std::nullopt; });
}

/// What the simulator computes for a scalar instruction on constants; nullopt where it
/// would fault (division by zero) or C++ would overflow.
std::optional<int64_t> foldScalar(sc::Opcode op, int64_t a, int64_t b) {
  const uint64_t ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
  switch (op) {
  case sc::Opcode::Add:
    return static_cast<int64_t>(ua + ub);
  case sc::Opcode::Sub:
    return static_cast<int64_t>(ua - ub);
  case sc::Opcode::Mul:
    return static_cast<int64_t>(ua * ub);
  case sc::Opcode::Div:
  case sc::Opcode::Rem:
    if (b == 0 || (a == INT64_MIN && b == -1)) return std::nullopt;
    return op == sc::Opcode::Div ? a / b : a % b;
  case sc::Opcode::Shl:
    return static_cast<int64_t>(ua << (b & 63));
  case sc::Opcode::Shr:
    return a >> (b & 63);
  case sc::Opcode::And:
    return a & b;
  case sc::Opcode::Or:
    return a | b;
  case sc::Opcode::Xor:
    return a ^ b;
  case sc::Opcode::Min:
    return std::min(a, b);
  case sc::Opcode::Max:
    return std::max(a, b);
  default:
    return std::nullopt;
  }
}

/// True for the comparisons the branches can test: eq, ne and the signed orders.
bool supportedPredicate(arith::CmpIPredicate p) {
  using P = arith::CmpIPredicate;
  return p == P::eq || p == P::ne || p == P::slt || p == P::sle || p == P::sgt || p == P::sge;
}

bool evaluatePredicate(arith::CmpIPredicate p, int64_t a, int64_t b) {
  using P = arith::CmpIPredicate;
  switch (p) {
  case P::eq:
    return a == b;
  case P::ne:
    return a != b;
  case P::slt:
    return a < b;
  case P::sle:
    return a <= b;
  case P::sgt:
    return a > b;
  default:
    return a >= b;
  }
}

} // namespace chipless::dataflow::detail

namespace {

/// Ops without effects that the emitter may drop when nothing uses their result.
bool isPureScalar(Operation* op) {
  return isa<arith::ConstantOp, arith::CmpIOp, arith::SelectOp, dfir::SymbolOp, dfir::CoreIdOp,
             dfir::CoreletIdOp, dfir::NumCoresOp>(op) ||
         scalarOpcode(op).has_value();
}

} // namespace

//===----------------------------------------------------------------------===//
// Analysis
//===----------------------------------------------------------------------===//

void ProgramEmitter::findDeadOps(Block& block) {
  for (Operation& op : llvm::reverse(block)) {
    for (Region& region : op.getRegions())
      for (Block& nested : region) findDeadOps(nested);
    if (isPureScalar(&op) &&
        llvm::all_of(op.getUsers(), [&](Operation* user) { return dead_.contains(user); }))
      dead_.insert(&op);
  }
}

int ProgramEmitter::newGroup(int start, Operation* owner) {
  LiveGroup g;
  g.start = start;
  g.end = start;
  g.owner = owner;
  groups_.push_back(g);
  return static_cast<int>(groups_.size()) - 1;
}

void ProgramEmitter::defineValue(Value value, int group, int defPos) {
  groupOf_[value] = group;
  defPos_[value] = defPos;
}

std::optional<Expr> ProgramEmitter::exprOf(Value value) const {
  auto e = exprs_.find(value);
  if (e != exprs_.end()) return e->second;
  if (groupOf_.count(value)) {
    Expr r;
    r.reg = value;
    return r;
  }
  return std::nullopt;
}

void ProgramEmitter::use(Value value, int pos) {
  if (conditions_.contains(value)) {
    auto cmp = value.getDefiningOp<arith::CmpIOp>();
    use(cmp.getLhs(), pos);
    use(cmp.getRhs(), pos);
    return;
  }
  std::optional<Expr> e = exprOf(value);
  if (e && e->reg) uses_.push_back({e->reg, pos, currentLoop_});
}

LogicalResult ProgramEmitter::checkScalarType(Operation* op, Type type) {
  if (type.isIndex() || type.isInteger(1)) return success();
  return op->emitError() << "scalar values in a DataflowIR program are index (and i1 "
                            "conditions), got "
                         << type;
}

LogicalResult ProgramEmitter::analyzeBlock(Block& block) {
  for (Operation& op : block) {
    if (isa<scf::YieldOp>(op)) continue; // read by its parent
    if (failed(analyzeOp(&op))) return failure();
  }
  return success();
}

LogicalResult ProgramEmitter::analyzeOp(Operation* op) {
  if (auto loop = dyn_cast<scf::ForOp>(op)) return analyzeFor(loop);
  if (auto branch = dyn_cast<scf::IfOp>(op)) return analyzeIf(branch);
  const int pos = nextPos_++;
  if (auto ins = dyn_cast<dfir::InstructionOpInterface>(op)) return analyzeInstruction(ins, pos);
  if (dead_.contains(op)) return success();
  Expr leaf;
  if (auto symbol = dyn_cast<dfir::SymbolOp>(op)) {
    leaf.sym = symbol.getName().str();
  } else if (isa<dfir::CoreIdOp>(op)) {
    leaf.special = sc::kRegCore;
  } else if (isa<dfir::CoreletIdOp>(op)) {
    leaf.special = sc::kRegCorelet;
  } else if (isa<dfir::NumCoresOp>(op)) {
    leaf.special = sc::kRegNumCores;
  } else if (isa<arith::ArithDialect>(op->getDialect())) {
    return analyzeArith(op, pos);
  } else {
    return op->emitError() << "'" << op->getName()
                           << "' is not supported in a DataflowIR program (scalar code uses "
                              "arith constant, addi, subi, muli, divsi, remsi, shli, shrsi, "
                              "andi, ori, xori, minsi, maxsi, cmpi, select and scf.for, scf.if)";
  }
  exprs_[op->getResult(0)] = leaf;
  return success();
}

LogicalResult ProgramEmitter::analyzeArith(Operation* op, int pos) {
  if (op->getNumResults() == 1 && failed(checkScalarType(op, op->getResult(0).getType())))
    return failure();
  for (Value operand : op->getOperands())
    if (failed(checkScalarType(op, operand.getType()))) return failure();

  if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
    auto value = dyn_cast<IntegerAttr>(constant.getValue());
    if (!value) return op->emitError("constant is not an integer");
    Expr e;
    e.imm = value.getType().isInteger(1) ? static_cast<int64_t>(value.getValue().getZExtValue())
                                         : value.getValue().getSExtValue();
    exprs_[constant.getResult()] = e;
    return success();
  }

  auto materialize = [&](bool earlyClobber) {
    int def = earlyClobber ? 2 * pos : 2 * pos + 1;
    defineValue(op->getResult(0), newGroup(def, op), def);
    for (Value operand : op->getOperands()) use(operand, 2 * pos);
    return success();
  };

  if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
    if (!supportedPredicate(cmp.getPredicate()))
      return op->emitError() << "comparison '" << arith::stringifyCmpIPredicate(cmp.getPredicate())
                             << "' is not supported: scalars are signed (use eq, ne, slt, "
                                "sle, sgt or sge)";
    std::optional<Expr> a = exprOf(cmp.getLhs()), b = exprOf(cmp.getRhs());
    if (!a || !b) return op->emitError("operand is not a scalar value the emitter knows");
    if (a->isConstant() && b->isConstant()) {
      Expr e;
      e.imm = evaluatePredicate(cmp.getPredicate(), a->imm, b->imm);
      exprs_[cmp.getResult()] = e;
      return success();
    }
    // Only steering branches: no register, the branch compares directly.
    bool onlyBranches = llvm::all_of(cmp->getUses(), [&](OpOperand& u) {
      Operation* user = u.getOwner();
      if (dead_.contains(user)) return true;
      if (isa<scf::IfOp>(user)) return true;
      return isa<arith::SelectOp>(user) && u.getOperandNumber() == 0;
    });
    if (onlyBranches) {
      conditions_.insert(cmp.getResult());
      return success();
    }
    return materialize(/*earlyClobber=*/true);
  }

  if (auto select = dyn_cast<arith::SelectOp>(op)) {
    auto cond = exprs_.find(select.getCondition());
    if (cond != exprs_.end() && cond->second.isConstant()) {
      std::optional<Expr> chosen =
          exprOf(cond->second.imm ? select.getTrueValue() : select.getFalseValue());
      if (!chosen) return op->emitError("operand is not a scalar value the emitter knows");
      exprs_[select.getResult()] = *chosen;
      return success();
    }
    return materialize(/*earlyClobber=*/true);
  }

  std::optional<sc::Opcode> opcode = scalarOpcode(op);
  if (!opcode)
    return op->emitError() << "'" << op->getName()
                           << "' is not supported in a DataflowIR program (scalar code uses "
                              "arith constant, addi, subi, muli, divsi, remsi, shli, shrsi, "
                              "andi, ori, xori, minsi, maxsi, cmpi, select)";
  Type type = op->getResult(0).getType();
  if (type.isInteger(1) && !isa<arith::AndIOp, arith::OrIOp, arith::XOrIOp>(op))
    return op->emitError() << "'" << op->getName() << "' on i1 is not supported (only andi, "
                           << "ori and xori combine conditions)";
  std::optional<Expr> a = exprOf(op->getOperand(0)), b = exprOf(op->getOperand(1));
  if (!a || !b) return op->emitError("operand is not a scalar value the emitter knows");
  if (*opcode == sc::Opcode::Add) {
    if (std::optional<Expr> sum = addExprs(*a, *b)) {
      exprs_[op->getResult(0)] = *sum;
      return success();
    }
  } else if (*opcode == sc::Opcode::Sub && b->isConstant()) {
    Expr difference = *a;
    difference.imm =
        static_cast<int64_t>(static_cast<uint64_t>(a->imm) - static_cast<uint64_t>(b->imm));
    exprs_[op->getResult(0)] = difference;
    return success();
  } else if (b->isConstant() &&
             ((b->imm == 1 && (*opcode == sc::Opcode::Mul || *opcode == sc::Opcode::Div)) ||
              (b->imm == 0 && (*opcode == sc::Opcode::Shl || *opcode == sc::Opcode::Shr ||
                               *opcode == sc::Opcode::Or || *opcode == sc::Opcode::Xor)))) {
    exprs_[op->getResult(0)] = *a; // x*1, x/1, x<<0, x>>0, x|0, x^0 are x
    return success();
  } else if (a->isConstant() && b->isConstant()) {
    if (std::optional<int64_t> folded = foldScalar(*opcode, a->imm, b->imm)) {
      Expr e;
      e.imm = *folded;
      exprs_[op->getResult(0)] = e;
      return success();
    }
    if ((*opcode == sc::Opcode::Div || *opcode == sc::Opcode::Rem) && b->imm == 0)
      return op->emitError("division by zero");
  }
  return materialize(/*earlyClobber=*/false);
}

LogicalResult ProgramEmitter::analyzeFor(scf::ForOp op) {
  if (++loopDepth_ > 16)
    return op->emitError("loops nest at most 16 deep in SpyreCode (loop/endloop)");
  for (Value v : {op.getLowerBound(), op.getUpperBound(), op.getStep()})
    if (!v.getType().isIndex())
      return op->emitError() << "loop bounds must be index, got " << v.getType();
  for (Value v : op.getInitArgs())
    if (!v.getType().isIndex())
      return op->emitError() << "loop-carried values must be index, got " << v.getType();
  std::optional<Expr> lb = exprOf(op.getLowerBound()), ub = exprOf(op.getUpperBound()),
                      step = exprOf(op.getStep());
  if (!lb || !ub || !step) return op->emitError("bound is not a scalar value the emitter knows");
  if (step->isConstant() && step->imm <= 0)
    return op->emitError() << "scf.for step must be positive, got " << step->imm;

  const int id = static_cast<int>(loops_.size());
  loops_.emplace_back();
  loopOf_[op] = id;
  loops_[id].op = op;
  loops_[id].parent = currentLoop_;
  const int p0 = nextPos_++, p1 = nextPos_++;
  loops_[id].initPos = p0;
  loops_[id].countPos = p1;
  loops_[id].bodyStart = 2 * p1 + 2;

  // Initial copies (outside the loop).
  for (Value init : op.getInitArgs()) use(init, 2 * p0);
  const bool ivUsed = !op.getInductionVar().use_empty();
  if (ivUsed) use(op.getLowerBound(), 2 * p0);
  for (BlockArgument arg : op.getRegionIterArgs()) {
    int g = newGroup(2 * p0 + 1, op);
    loops_[id].slots.push_back(g);
    defineValue(arg, g, loops_[id].bodyStart);
  }
  if (ivUsed) {
    int g = newGroup(2 * p0 + 1, op);
    loops_[id].ivGroup = g;
    defineValue(op.getInductionVar(), g, loops_[id].bodyStart);
  }

  // Trip count: `loop ub` when lb is a constant and step 1; otherwise computed.
  const bool direct =
      lb->isConstant() && step->isConstant() && (step->imm == 1 || (ub->isConstant()));
  if (!direct) {
    int g = newGroup(2 * p1, op);
    groups_[g].end = 2 * p1 + 1;
    loops_[id].countGroup = g;
  }
  use(op.getUpperBound(), 2 * p1);
  use(op.getLowerBound(), 2 * p1);
  use(op.getStep(), 2 * p1);

  currentLoop_ = id;
  if (failed(analyzeBlock(*op.getBody()))) return failure();
  const int pe = nextPos_++;
  loops_[id].endPos = pe;
  for (Value yielded : op.getBody()->getTerminator()->getOperands()) use(yielded, 2 * pe);
  if (ivUsed) use(op.getStep(), 2 * pe);
  currentLoop_ = loops_[id].parent;
  --loopDepth_;

  for (int g : loops_[id].slots) groups_[g].end = std::max(groups_[g].end, 2 * pe + 1);
  if (ivUsed) groups_[loops_[id].ivGroup].end = 2 * pe + 1;
  for (auto [result, g] : llvm::zip(op.getResults(), loops_[id].slots))
    defineValue(result, g, 2 * pe + 1);
  return success();
}

LogicalResult ProgramEmitter::analyzeIf(scf::IfOp op) {
  for (Type t : op.getResultTypes())
    if (!t.isIndex()) return op->emitError() << "scf.if results must be index, got " << t;
  ifOrder_.push_back(op);
  auto cond = exprs_.find(op.getCondition());
  if (cond != exprs_.end() && cond->second.isConstant()) {
    // A constant condition: only the region that runs is emitted; the results are the
    // values it yields.
    const bool value = cond->second.imm != 0;
    ifs_[op].folded = value;
    Block* taken = value ? op.thenBlock() : op.elseBlock();
    if (!taken) return success();
    if (failed(analyzeBlock(*taken))) return failure();
    for (auto [result, yielded] :
         llvm::zip(op.getResults(), taken->getTerminator()->getOperands())) {
      std::optional<Expr> e = exprOf(yielded);
      if (!e) return op->emitError("yields a value the emitter does not know");
      exprs_[result] = *e;
    }
    return success();
  }

  const int pb = nextPos_++;
  ifs_[op].branchPos = pb;
  use(op.getCondition(), 2 * pb);
  std::vector<int> slots;
  for (size_t i = 0; i < op.getNumResults(); ++i) slots.push_back(newGroup(2 * pb + 1, op));
  if (failed(analyzeBlock(*op.thenBlock()))) return failure();
  const int pt = nextPos_++;
  for (Value yielded : op.thenBlock()->getTerminator()->getOperands()) use(yielded, 2 * pt);
  if (op.elseBlock()) {
    if (failed(analyzeBlock(*op.elseBlock()))) return failure();
  }
  const int pe = nextPos_++;
  if (op.elseBlock())
    for (Value yielded : op.elseBlock()->getTerminator()->getOperands()) use(yielded, 2 * pe);
  for (int g : slots) groups_[g].end = 2 * pe + 1;
  for (auto [result, g] : llvm::zip(op.getResults(), slots)) defineValue(result, g, 2 * pe + 1);
  IfRecord& r = ifs_[op];
  r.thenEndPos = pt;
  r.elseEndPos = pe;
  r.slots = slots;
  return success();
}

LogicalResult ProgramEmitter::analyzeInstruction(dfir::InstructionOpInterface op, int pos) {
  for (const dfir::IsaOperand& operand : dfir::getIsaOperands(op)) {
    const sc::OperandDecl& decl = *operand.decl;
    if (decl.kind == sc::OperandKind::Reg) {
      // A register the instruction writes: a register value from here on.
      if (operand.value) defineValue(operand.value, newGroup(2 * pos + 1, op), 2 * pos + 1);
      continue;
    }
    if (operand.value) {
      if (!exprOf(operand.value) && !conditions_.contains(operand.value))
        return op->emitError() << "operand '" << decl.name
                               << "' is not a scalar value the emitter knows";
      if (conditions_.contains(operand.value))
        return op->emitError() << "operand '" << decl.name << "' is a condition (i1)";
      use(operand.value, 2 * pos);
      // Constant token ids and cores must exist on this chip.
      std::optional<Expr> e = exprOf(operand.value);
      llvm::StringRef name = decl.name;
      if (e->isConstant() && (name == "token" || name == "done") &&
          e->imm >= arch_.sync.tokens_per_core)
        return op->emitError() << "operand '" << name << "' is token " << e->imm
                               << ", but a core has " << arch_.sync.tokens_per_core
                               << " tokens (sync.tokens_per_core)";
      if (e->isConstant() && name == "core" && e->imm >= arch_.chip.cores)
        return op->emitError() << "operand 'core' is core " << e->imm << ", but the chip has "
                               << arch_.chip.cores << " cores (chip.cores)";
      continue;
    }
    if (decl.kind != sc::OperandKind::Port || !operand.attr) continue;
    std::optional<int64_t> port = dfir::portOf(operand.attr);
    if (!port || *port == sc::kPortNone) continue; // the verifier reports bad ports
    int64_t index = 0;
    int count = 0;
    const char *what = "", *key = "";
    if (*port >= sc::kPortReg) {
      index = *port - sc::kPortReg, count = arch_.sfu.registers;
      what = "SFU registers", key = "sfu.registers";
    } else if (*port >= sc::kPortOut) {
      index = *port - sc::kPortOut, count = arch_.fifo.outputs_per_corelet;
      what = "output FIFOs", key = "fifo.outputs_per_corelet";
    } else {
      index = *port - sc::kPortIn, count = arch_.fifo.inputs_per_corelet;
      what = "input FIFOs", key = "fifo.inputs_per_corelet";
    }
    if (index >= count)
      return op->emitError() << "operand '" << decl.name << "' names " << sc::portName(*port)
                             << ", but a corelet has " << count << " " << what << " (" << key
                             << ")";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Live intervals and registers
//===----------------------------------------------------------------------===//

void ProgramEmitter::computeIntervals() {
  for (const Use& u : uses_) {
    int end = u.pos;
    const int def = defPos_.lookup(u.value);
    // A value defined outside a loop and used in it must survive every iteration.
    for (int l = u.loop; l >= 0; l = loops_[l].parent)
      if (def < loops_[l].bodyStart) end = std::max(end, 2 * loops_[l].endPos + 1);
    auto [it, inserted] = lastUse_.try_emplace(u.value, end);
    if (!inserted) it->second = std::max(it->second, end);
  }
  for (auto& [value, g] : groupOf_) {
    groups_[g].start = std::min(groups_[g].start, defPos_.lookup(value));
    auto last = lastUse_.find(value);
    if (last != lastUse_.end()) groups_[g].end = std::max(groups_[g].end, last->second);
  }
}

void ProgramEmitter::coalesceYields() {
  // Give the value yielded to a loop-carried value or an scf.if result the same register
  // when nothing needs the old value any more, so the yield costs no copy.
  auto tryMerge = [&](Value yielded, int slot, Block* block, ValueRange allYielded,
                      std::optional<Value> carried) {
    auto git = groupOf_.find(yielded);
    if (git == groupOf_.end()) return;
    const int g = git->second;
    Operation* def = yielded.getDefiningOp();
    if (g == slot || !def || def->getBlock() != block || groups_[g].owner != def ||
        groups_[g].mergedInto >= 0)
      return;
    if (llvm::count(allYielded, yielded) != 1) return;
    if (carried) {
      auto last = lastUse_.find(*carried);
      if (last != lastUse_.end() && last->second >= defPos_.lookup(yielded)) return;
    }
    groups_[g].mergedInto = slot;
    groups_[slot].start = std::min(groups_[slot].start, groups_[g].start);
    groups_[slot].end = std::max(groups_[slot].end, groups_[g].end);
  };
  for (LoopRecord& record : loops_) {
    auto loop = cast<scf::ForOp>(record.op);
    Block* body = loop.getBody();
    ValueRange yielded = body->getTerminator()->getOperands();
    for (size_t i = 0; i < yielded.size(); ++i)
      tryMerge(yielded[i], record.slots[i], body, yielded, loop.getRegionIterArgs()[i]);
    // An initial value that nothing reads after the loop starts can be computed in the
    // loop-carried register directly.
    ValueRange inits = loop.getInitArgs();
    for (size_t i = 0; i < inits.size(); ++i) {
      Value init = inits[i];
      auto git = groupOf_.find(init);
      if (git == groupOf_.end()) continue;
      const int g = git->second, slot = record.slots[i];
      Operation* def = init.getDefiningOp();
      if (!def || groups_[g].owner != def || groups_[g].mergedInto >= 0 || g == slot ||
          llvm::count(inits, init) != 1)
        continue;
      auto last = lastUse_.find(init);
      if (last != lastUse_.end() && last->second > 2 * record.initPos) continue;
      groups_[g].mergedInto = slot;
      groups_[slot].start = std::min(groups_[slot].start, groups_[g].start);
      groups_[slot].end = std::max(groups_[slot].end, groups_[g].end);
    }
  }
  for (Operation* op : ifOrder_) {
    const IfRecord& record = ifs_[op];
    if (record.folded) continue;
    auto branch = cast<scf::IfOp>(op);
    for (Block* block : {branch.thenBlock(), branch.elseBlock()}) {
      if (!block) continue;
      ValueRange yielded = block->getTerminator()->getOperands();
      for (size_t i = 0; i < yielded.size(); ++i)
        tryMerge(yielded[i], record.slots[i], block, yielded, std::nullopt);
    }
  }
}

LogicalResult ProgramEmitter::allocate() {
  const int numRegisters = std::min(arch_.scalar.registers, sc::kNumGeneralRegs);
  std::vector<int> order;
  for (size_t g = 0; g < groups_.size(); ++g)
    if (groups_[g].mergedInto < 0) order.push_back(static_cast<int>(g));
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return groups_[a].start < groups_[b].start; });
  std::vector<int> active;
  for (int g : order) {
    LiveGroup& group = groups_[g];
    llvm::erase_if(active, [&](int a) { return groups_[a].end < group.start; });
    std::vector<bool> taken(static_cast<size_t>(numRegisters), false);
    for (int a : active) taken[static_cast<size_t>(groups_[a].reg)] = true;
    auto free = std::find(taken.begin(), taken.end(), false);
    if (free == taken.end())
      return group.owner->emitError()
             << "the program needs more than " << numRegisters
             << " scalar registers here: " << active.size() + 1
             << " values are live at once (keep fewer values live across loops, or split "
                "the program)";
    group.reg = static_cast<int>(free - taken.begin());
    active.push_back(g);
  }
  return success();
}
