//===- EmitSpyreCode.cpp - a dfir.job to a SpyreCode job ------------------===//
//
// Part of chipless. The job-level half of the emitter: arguments, scalars and buffers
// become the plan's metadata, every dfir.program one program of the binary
// (ProgramEmitter), and the plan gets the standard preparation and execution steps.
// Before the job is handed out it is run through the SpyreCode reader's own checks.
//
//===----------------------------------------------------------------------===//

#include "dataflow/Emit/EmitSpyreCode.h"

#include "ProgramEmitter.h"
#include "mlir/IR/Verifier.h"
#include "support/spyrecode/binary.h"
#include "support/spyrecode/plan.h"

using namespace mlir;
namespace sc = chipless::spyrecode;

namespace {

sc::ArgRole roleOf(dfir::ArgRole role) {
  switch (role) {
  case dfir::ArgRole::Input:
    return sc::ArgRole::Input;
  case dfir::ArgRole::Output:
    return sc::ArgRole::Output;
  case dfir::ArgRole::InOut:
    return sc::ArgRole::InOut;
  }
  return sc::ArgRole::Input;
}

} // namespace

FailureOr<sc::Job> chipless::dataflow::emitSpyreCode(dfir::JobOp job, const SpyreArch& arch) {
  if (failed(mlir::verify(job))) return failure();
  sc::Job out;
  out.plan.kernel = job.getSymName().str();
  detail::SymbolTable symbols;
  bool failedProgram = false; // keep going, to report the errors of every program
  for (Operation& op : job.getBody().front()) {
    if (auto arg = dyn_cast<dfir::TensorArgOp>(op)) {
      sc::TensorArg t;
      if (arg.getLayout() && !sc::parseLayout(*arg.getLayout(), t.layout))
        return arg.emitError() << "layout \"" << *arg.getLayout()
                               << "\" cannot be emitted: a SpyreCode plan stores a tensor "
                                  "argument in the \"stick\" or the \"row_major\" layout";
      t.name = arg.getName().str();
      t.role = roleOf(arg.getRole());
      t.dtype = *dfir::dtypeOf(arg.getDtype());
      for (Attribute dim : arg.getShape()) {
        if (auto size = dyn_cast<IntegerAttr>(dim))
          t.shape.emplace_back(std::in_place_type<int64_t>, size.getValue().getSExtValue());
        else
          t.shape.push_back(cast<StringAttr>(dim).getValue().str());
      }
      out.plan.args.push_back(std::move(t));
    } else if (auto scalar = dyn_cast<dfir::ScalarArgOp>(op)) {
      sc::ScalarArg s;
      s.name = scalar.getName().str();
      if (auto m = scalar.getMultipleOf()) s.multipleOf = static_cast<int64_t>(*m);
      if (auto m = scalar.getMin()) s.min = static_cast<int64_t>(*m);
      if (auto m = scalar.getMax()) s.max = static_cast<int64_t>(*m);
      if (auto t = scalar.getType()) s.real = dfir::dtypeOf(*t);
      out.plan.scalars.push_back(s);
    } else if (auto buffer = dyn_cast<dfir::BufferOp>(op)) {
      out.plan.buffers.push_back({buffer.getName().str(), static_cast<int64_t>(buffer.getSize())});
    } else if (auto program = dyn_cast<dfir::ProgramOp>(op)) {
      sc::Program emitted;
      detail::ProgramEmitter emitter(program, arch, symbols);
      if (failed(emitter.run(emitted))) {
        failedProgram = true;
        continue;
      }
      out.binary.programs.push_back(std::move(emitted));
    }
  }
  if (failedProgram) return failure();
  if (out.binary.programs.empty()) return job.emitError("has no dfir.program to emit");
  out.binary.symbols = symbols.names;

  // The reader's checks (opcodes on their units, operand counts, registers, labels,
  // symbols, the plan's fields) must pass: a job that fails them is an emitter bug, and
  // it is reported here rather than when the simulator loads it.
  const std::string where = "emitted job '" + out.plan.kernel + "'";
  try {
    std::string bytes = sc::encodeBinary(out.binary);
    sc::decodeBinary(bytes, where);
    sc::addStandardSteps(out.plan, arch.programBase(), static_cast<int64_t>(bytes.size()),
                         static_cast<uint64_t>(arch.memory.alignment_bytes));
    sc::parsePlan(sc::planToJson(out.plan), where + " job.plan");
  } catch (const std::exception& e) {
    return job.emitError() << "internal error: the emitted job fails the SpyreCode checks: "
                           << e.what();
  }
  out.arch = arch.description;
  return out;
}
