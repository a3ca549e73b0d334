//===- EmitDfir.cpp - core schedules to a DataflowIR job -------------------===//
//
// Part of chipless. Projects every core's schedule onto each of its engines: the engine's
// program keeps the loops it takes part in (steps, or token operations, inside them), its
// own steps, and the token sends and waits the synchroniser attached to it. Cores whose
// programs for an engine are identical share one dfir.program over a range of cores.
//
//===----------------------------------------------------------------------===//

#include "Stages.h"
#include "dataflow/Dialect/Dfir/DfirIsa.h"
#include "dataflow/Dialect/Dfir/DfirOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/OperationSupport.h"

#include "llvm/Support/raw_ostream.h"

#include <map>

using namespace mlir;

namespace chipless::sched {

namespace {

class EngineProjection {
public:
  EngineProjection(const CoreSchedule& s, int engine) : s_(s), engine_(engine) {}

  bool participates(const Node& n) {
    auto it = cache_.find(&n);
    if (it != cache_.end()) return it->second;
    bool p = false;
    auto sync = s_.sync.find(&n);
    if (sync != s_.sync.end()) {
      auto e = sync->second.find(engine_);
      if (e != sync->second.end() && !e->second.empty()) p = true;
    }
    if (!n.isLoop()) p |= n.step->engine == engine_;
    for (const auto& c : n.body) p |= participates(*c);
    cache_[&n] = p;
    return p;
  }

  void emitChildren(const Node& n, ProgramWriter& w) {
    for (const auto& c : n.body)
      if (participates(*c)) emitNode(*c, w);
  }

  void emitNode(const Node& n, ProgramWriter& w) {
    const SyncOps* ops = nullptr;
    auto sync = s_.sync.find(&n);
    if (sync != s_.sync.end()) {
      auto e = sync->second.find(engine_);
      if (e != sync->second.end()) ops = &e->second;
    }
    auto send = [&](int t) { w.b.create<dfir::TokenSendOp>(w.loc, w.c(t), Value()); };
    auto wait = [&](int t) { w.b.create<dfir::TokenWaitOp>(w.loc, w.c(t)); };
    if (ops) {
      for (int t : ops->sendBefore) send(t);
      for (int t : ops->before) wait(t);
    }
    if (!n.isLoop()) {
      if (n.step->engine == engine_) {
        w.loc = n.step->loc;
        int done = ops && ops->selfWait ? s_.selfToken.at(engine_) : -1;
        n.step->emit(w, done);
        if (done >= 0) wait(done);
      }
    } else {
      Value lb = w.get(n.lb), ub = w.get(n.ub), step = w.get(n.stride);
      auto loop = w.b.create<scf::ForOp>(w.loc, lb, ub, step);
      {
        OpBuilder::InsertionGuard guard(w.b);
        w.b.setInsertionPoint(loop.getBody()->getTerminator());
        w.vars[n.loop] = loop.getInductionVar();
        emitChildren(n, w);
        if (ops)
          for (int t : ops->bodyEnd) wait(t);
        w.vars.erase(n.loop);
      }
    }
    if (ops) {
      for (int t : ops->after) send(t);
      for (int t : ops->waitAfter) wait(t);
    }
  }

private:
  const CoreSchedule& s_;
  const int engine_;
  std::map<const Node*, bool> cache_;
};

/// `program` as text with its core range left out, for comparing the programs of
/// different cores. Printed whole (values numbered within it, each use naming its
/// definition) and without verifying it again.
std::string bodyText(dfir::ProgramOp program) {
  std::string text;
  llvm::raw_string_ostream os(text);
  OpPrintingFlags flags;
  flags.useLocalScope().assumeVerified();
  auto cores = program.getCoresAttr();
  program.setCoresAttr(DenseI32ArrayAttr::get(program.getContext(), {0, 0}));
  program->print(os, flags);
  program.setCoresAttr(cores);
  return text;
}

} // namespace

OwningOpRef<ModuleOp> writeJob(MLIRContext* ctx, const std::string& name, const KernelArgs& args,
                               const std::vector<CoreSchedule>& cores) {
  OpBuilder b(ctx);
  Location loc = b.getUnknownLoc();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(module->getBody());
  auto job = b.create<dfir::JobOp>(loc, b.getStringAttr(name));
  Block* body = new Block();
  job.getBody().push_back(body);
  b.setInsertionPointToEnd(body);
  for (const ScalarArgument& sa : args.scalars) {
    auto optional = [&](std::optional<int64_t> v) { return v ? b.getI64IntegerAttr(*v) : nullptr; };
    b.create<dfir::ScalarArgOp>(
        loc, b.getStringAttr(sa.name),
        optional(sa.multipleOf != 1 ? std::optional<int64_t>(sa.multipleOf) : std::nullopt),
        optional(sa.min), optional(sa.max),
        sa.real ? TypeAttr::get(dfir::typeOf(ctx, *sa.real)) : TypeAttr());
  }
  for (const TensorArgument& t : args.tensors) {
    SmallVector<Attribute> shape;
    for (size_t k = 0; k < t.shape.size(); ++k)
      shape.push_back(k < t.dimNames.size() && !t.dimNames[k].empty()
                          ? Attribute(b.getStringAttr(t.dimNames[k]))
                          : Attribute(b.getI64IntegerAttr(t.shape[k])));
    auto role = t.read && t.written ? dfir::ArgRole::InOut
                : t.written         ? dfir::ArgRole::Output
                                    : dfir::ArgRole::Input;
    b.create<dfir::TensorArgOp>(loc, b.getStringAttr(t.name), dfir::ArgRoleAttr::get(ctx, role),
                                TypeAttr::get(dfir::typeOf(ctx, t.dtype)), b.getArrayAttr(shape),
                                b.getStringAttr("row_major"));
  }
  std::map<std::string, int64_t> deviceBuffers;
  for (const CoreSchedule& s : cores)
    for (const auto& [bufName, bytes] : s.deviceBuffers)
      deviceBuffers[bufName] = std::max(deviceBuffers[bufName], bytes);
  for (const auto& [bufName, bytes] : deviceBuffers)
    b.create<dfir::BufferOp>(loc, b.getStringAttr(bufName), b.getI64IntegerAttr(bytes));
  // One program per core and engine; identical neighbours merge into a core range.
  struct Emitted {
    dfir::ProgramOp op;
    std::string text;
    int first, last;
  };
  int maxEngine = 0;
  for (const CoreSchedule& s : cores) {
    std::function<void(const Node&)> scan = [&](const Node& n) {
      if (!n.isLoop()) maxEngine = std::max(maxEngine, n.step->engine);
      for (const auto& c : n.body) scan(*c);
    };
    scan(s.root);
    for (const auto& [node, per] : s.sync)
      for (const auto& [e, ops] : per) maxEngine = std::max(maxEngine, e);
  }
  for (int e = 0; e <= maxEngine; ++e) {
    std::vector<Emitted> emitted;
    for (const CoreSchedule& s : cores) {
      EngineProjection proj(s, e);
      if (!proj.participates(s.root)) continue;
      const int corelet = Engines::coreletOf(e);
      auto program = b.create<dfir::ProgramOp>(
          loc, b.getStringAttr(spyrecode::unitName(Engines::unitOf(e))),
          b.getDenseI32ArrayAttr({s.core, s.core}), b.getI32IntegerAttr(corelet));
      Block* pb = new Block();
      program.getBody().push_back(pb);
      OpBuilder pbld(ctx);
      pbld.setInsertionPointToEnd(pb);
      ProgramWriter w(pbld, s, e);
      proj.emitChildren(s.root, w);
      std::string text = bodyText(program);
      if (!emitted.empty() && emitted.back().last == s.core - 1 && emitted.back().text == text) {
        emitted.back().last = s.core;
        emitted.back().op.setCoresAttr(b.getDenseI32ArrayAttr({emitted.back().first, s.core}));
        program.erase();
        continue;
      }
      emitted.push_back({program, text, s.core, s.core});
    }
  }
  return module;
}

} // namespace chipless::sched
