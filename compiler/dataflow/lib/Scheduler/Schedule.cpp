//===- Schedule.cpp - the static schedule of one core ---------------------===//
//
// Part of chipless. See Schedule.h.
//
//===----------------------------------------------------------------------===//

#include "Schedule.h"

#include "dataflow/Dialect/Dfir/DfirOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"

#include <sstream>

using namespace mlir;

namespace chipless::sched {

spyrecode::Unit Engines::unitOf(int engine) {
  using U = spyrecode::Unit;
  if (engine == 0) return U::DmaIn;
  if (engine == 1) return U::DmaOut;
  if (engine == 2) return U::Ring;
  switch ((engine - 3) % 3) {
  case 0:
    return U::Load;
  case 1:
    return U::Compute;
  default:
    return U::Store;
  }
}

std::string Engines::name(int engine) {
  std::string n = spyrecode::unitName(unitOf(engine));
  int l = coreletOf(engine);
  return l < 0 ? n : n + std::to_string(l);
}

namespace {

void numberNode(Node& node, Node* parent, int depth, int& counter) {
  node.parent = parent;
  node.depth = depth;
  node.pos = counter++;
  for (auto& child : node.body) numberNode(*child, &node, depth + 1, counter);
  node.end = counter - 1;
}

void dumpNode(const CoreSchedule& s, const Node& node, int indent, std::ostringstream& out) {
  std::string pad(static_cast<size_t>(indent) * 2, ' ');
  auto syncText = [&](const char* label, const std::vector<int>& tokens, int engine) {
    if (tokens.empty()) return;
    out << pad << "  " << label << " " << Engines::name(engine) << ":";
    for (int t : tokens) out << " " << t;
    out << "\n";
  };
  auto printSync = [&](bool before) {
    auto it = s.sync.find(&node);
    if (it == s.sync.end()) return;
    for (const auto& [engine, ops] : it->second) {
      if (before) {
        syncText("credit", ops.sendBefore, engine);
        syncText("wait", ops.before, engine);
      } else {
        if (ops.selfWait) out << pad << "  self-wait " << Engines::name(engine) << "\n";
        syncText("send", ops.after, engine);
        syncText("drain", ops.waitAfter, engine);
      }
    }
  };
  if (node.isLoop() && node.loop >= 0) {
    printSync(true);
    out << pad << "for i" << node.loop << " = " << node.lb.str() << " to " << node.ub.str()
        << " step " << node.stride.str() << (node.text.empty() ? "" : "  // " + node.text) << "  ["
        << node.pos << ".." << node.end << "]\n";
    for (const auto& child : node.body) dumpNode(s, *child, indent + 1, out);
    auto it = s.sync.find(&node);
    if (it != s.sync.end())
      for (const auto& [engine, ops] : it->second) {
        if (ops.bodyEnd.empty()) continue;
        out << pad << "  end-of-body drain " << Engines::name(engine) << ":";
        for (int t : ops.bodyEnd) out << " " << t;
        out << "\n";
      }
    out << pad << "end\n";
    printSync(false);
  } else if (node.isLoop()) {
    for (const auto& child : node.body) dumpNode(s, *child, indent, out);
  } else {
    printSync(true);
    out << pad << "[" << node.pos << "] " << Engines::name(node.step->engine) << ": "
        << node.step->text << "\n";
    printSync(false);
  }
}

} // namespace

void CoreSchedule::number() {
  int counter = 0;
  numberNode(root, nullptr, 0, counter);
}

std::string CoreSchedule::dump() const {
  std::ostringstream out;
  out << "core " << core << ":\n  buffers:\n";
  for (size_t i = 0; i < buffers.size(); ++i) {
    const Buffer& b = buffers[i];
    out << "    #" << i << " " << b.name << ": " << b.bytes << " bytes"
        << (b.phases > 1 ? " x" + std::to_string(b.phases) + " by (" + b.phase.str() + ") mod " +
                               std::to_string(b.phases)
                         : "")
        << " at " << b.addr
        << (b.resident ? std::string("  resident (the whole kernel)")
                       : "  live [" + std::to_string(b.first) + ", " + std::to_string(b.last) + "]")
        << "\n";
  }
  out << "  schedule:\n";
  dumpNode(*this, root, 2, out);
  return out.str();
}

ProgramWriter::ProgramWriter(OpBuilder& builder, const CoreSchedule& s, int e)
    : b(builder), loc(builder.getUnknownLoc()), schedule(s), engine(e) {}

Expr ProgramWriter::addr(int buffer, const Expr& offset) const {
  const Buffer& buf = schedule.buffers.at(static_cast<size_t>(buffer));
  Expr base(buf.addr);
  if (buf.phases > 1 && vars.count(buf.phaseLoop))
    base = base + mod(buf.phase, Expr(buf.phases)) * Expr(buf.bytes); // this iteration's copy
  return base + offset;
}

Value ProgramWriter::atom(const Atom& a) {
  switch (a.kind) {
  case Atom::Kind::Sym: {
    auto op = b.create<dfir::SymbolOp>(loc, b.getIndexType(), b.getStringAttr(a.sym));
    return op.getResult();
  }
  case Atom::Kind::Var: {
    auto it = vars.find(a.var);
    if (it == vars.end()) {
      emitError(loc) << "internal error: loop variable i" << a.var << " is not in scope";
      return b.create<arith::ConstantIndexOp>(loc, 0);
    }
    return it->second;
  }
  default:
    break;
  }
  Value x = get(*a.a), y = get(*a.b);
  switch (a.kind) {
  case Atom::Kind::Div:
    return b.create<arith::DivSIOp>(loc, x, y);
  case Atom::Kind::Rem:
    return b.create<arith::RemSIOp>(loc, x, y);
  case Atom::Kind::Mul:
    return b.create<arith::MulIOp>(loc, x, y);
  case Atom::Kind::Min:
    return b.create<arith::MinSIOp>(loc, x, y);
  default:
    return b.create<arith::MaxSIOp>(loc, x, y);
  }
}

Value ProgramWriter::constant(int64_t v) {
  for (Block* block = b.getInsertionBlock(); block;) {
    auto it = constants_.find({block, v});
    if (it != constants_.end()) return it->second;
    Operation* parent = block->getParentOp();
    if (!parent || isa<dfir::ProgramOp>(parent)) break;
    block = parent->getBlock();
  }
  // New constants go to the start of the program, where every block sees them.
  Block* top = b.getInsertionBlock();
  while (top->getParentOp() && !isa<dfir::ProgramOp>(top->getParentOp()))
    top = top->getParentOp()->getBlock();
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(top);
  Value c = b.create<arith::ConstantIndexOp>(loc, v);
  constants_[{top, v}] = c;
  return c;
}

Value ProgramWriter::get(const Expr& e) {
  Value sum;
  for (const auto& [a, coef] : e.terms()) {
    Value v = atom(*a);
    if (coef != 1) v = b.create<arith::MulIOp>(loc, v, constant(coef));
    sum = sum ? b.create<arith::AddIOp>(loc, sum, v).getResult() : v;
  }
  if (!sum) return constant(e.constant());
  if (e.constant() != 0) sum = b.create<arith::AddIOp>(loc, sum, constant(e.constant()));
  return sum;
}

} // namespace chipless::sched
